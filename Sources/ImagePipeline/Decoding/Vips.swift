import CVips
import Foundation
import HalfBlock

/// The only door to libvips. Every call goes through `cvips_*` shims (libvips's API is
/// variadic) and `check`, which turns a failure into `ImagePipeline.Error`.
///
/// - Important: libvips's error buffer is process-wide; its text is a hint for people and is
///   never matched on.
enum Vips {
    /// Starts libvips once per process (behind `pthread_once` in the shim). Returns false if it
    /// could not start.
    @discardableResult
    static func start() -> Bool { cvips_init() == 0 }

    /// Sends libvips and GLib warnings to `fd` (a log file) instead of dropping them.
    static func setLogFileDescriptor(_ fd: Int32) { cvips_set_log_fd(fd) }

    /// The SHA-256 of `data` as 64 lower-case hex digits, from GLib's
    /// `g_compute_checksum_for_data` (GLib comes with libvips). Names disk-cache files.
    static func sha256Hex(_ data: Data) -> String {
        var out = [CChar](repeating: 0, count: 65)
        let rc = data.withUnsafeBytes { raw in cvips_sha256_hex(raw.baseAddress, raw.count, &out) }
        // GLib only fails here on allocation failure, which aborts first; keep the check anyway.
        precondition(rc == 0, "g_compute_checksum_for_data failed")
        return out.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Width and height in pixels from the header alone (EXIF orientation applied).
    /// - Throws: `.corrupt` when the bytes are not a readable image.
    static func probe(_ data: Data) throws(ImagePipeline.Error) -> (width: Int, height: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let rc = data.withUnsafeBytes { raw in
            cvips_probe(raw.baseAddress, raw.count, &width, &height, &message, message.count)
        }
        if rc != 0 { throw .corrupt(Self.text(message)) }
        return (Int(width), Int(height))
    }

    /// Decodes `data` with shrink-on-load to fit `maxWidth` x `maxHeight` pixels (aspect kept,
    /// never enlarged), as 8-bit sRGB RGBA.
    /// - Throws: `.tooManyPixels` when the header is over `maxPixels` (nothing is decoded),
    ///   `.corrupt` for truncated or undecodable data.
    static func thumbnail(
        _ data: Data, maxWidth: Int, maxHeight: Int, maxPixels: Int
    ) throws(ImagePipeline.Error) -> DecodedImage {
        var out = cvips_image()
        var message = [CChar](repeating: 0, count: 512)
        let rc = data.withUnsafeBytes { raw in
            cvips_thumbnail_rgba(
                raw.baseAddress, raw.count, Int32(clamping: maxWidth), Int32(clamping: maxHeight),
                Int64(maxPixels), &out, &message, message.count)
        }
        if rc == -2 {
            let size: (width: Int, height: Int) = (try? probe(data)) ?? (0, 0)
            throw .tooManyPixels(width: size.width, height: size.height, limit: maxPixels)
        }
        guard rc == 0, let pixels = out.pixels else { throw .corrupt(Self.text(message)) }
        defer { cvips_free(pixels) }
        let bytes = [UInt8](UnsafeBufferPointer(start: pixels, count: out.length))
        let bitmap = RGBAImage(width: Int(out.width), height: Int(out.height), pixels: bytes)
        return DecodedImage(
            bitmap: bitmap, sourceWidth: Int(out.source_width), sourceHeight: Int(out.source_height))
    }

    private static func text(_ buffer: [CChar]) -> String {
        let s = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return s.isEmpty ? "unreadable image" : s
    }
}
