// libFuzzer entry for ImagePipeline's byte readers that run on untrusted input before
// libvips: the disk-cache entry reader (DiskCacheEntry(file:): magic, JSON header, length,
// checksum) and the magic-byte sniffing (ImageFormat.sniff/describe, ImagePipeline.imageKind).
// Built by Fuzz/run.sh from those two source files plus the stand-ins below, since the rest of
// the target needs libvips. VITRINE_FUZZ: cache-entry or sniff.
import Foundation

/// Stand-in for the `ImagePipeline` class that ImageFormat.swift extends.
enum ImagePipeline {}

/// Stand-in for DataLoading.swift's validators (only carried by DiskCacheMetadata).
struct CacheValidators: Sendable, Equatable {
    var etag: String?
    var lastModified: String?
}

/// Stand-in for GLib's SHA-256 (CVips): FNV-1a, as hex. The checksum's arithmetic is not what
/// is fuzzed; the parsing around it is.
enum Vips {
    static func sha256Hex(_ data: Data) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in data { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return String(h, radix: 16)
    }
}

private let target = ProcessInfo.processInfo.environment["VITRINE_FUZZ"] ?? "cache-entry"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    switch target {
    case "cache-entry":
        if let entry = DiskCacheEntry(file: data) {
            _ = entry.metadata.isFresh(now: Date())
            _ = entry.metadata.validators
            // What is read back must write out and read again the same.
            if let again = try? entry.encoded() { precondition(DiskCacheEntry(file: again)?.data == entry.data) }
        }
        // The same bytes as a body: the entry written for them reads back whole.
        if !data.isEmpty {
            let meta = DiskCacheMetadata(url: "http://127.0.0.1/x.png", headers: ["cache-control": "max-age=60"], now: Date())
            let file = try! DiskCacheEntry(metadata: meta, data: data).encoded()
            precondition(DiskCacheEntry(file: file)?.data == data)
        }
        _ = CacheControl(String(decoding: data, as: UTF8.self))
    case "sniff":
        _ = ImageFormat.sniff(data)
        _ = ImageFormat.describe(data)
        _ = ImagePipeline.imageKind(of: data)
    default:
        fatalError("VITRINE_FUZZ=\(target): no such target")
    }
    return 0
}
