import Foundation

/// Image formats the decoder accepts, recognised by their magic bytes (never by the file name or
/// the Content-Type header, which servers get wrong).
enum ImageFormat: String, Sendable {
    case jpeg, png, gif, webp, tiff, heif, bmp

    /// The format whose signature starts `data`, or nil.
    /// Signatures: JPEG `FF D8 FF`; PNG `89 50 4E 47 0D 0A 1A 0A`; GIF `GIF87a`/`GIF89a`;
    /// WebP `RIFF....WEBP`; TIFF `II*\0` / `MM\0*`; HEIF/AVIF an ISO-BMFF `ftyp` box at byte 4
    /// whose major brand is one of ``heifBrands``; BMP `BM`.
    static func sniff(_ data: Data) -> ImageFormat? {
        let b = [UInt8](data.prefix(12))
        func starts(_ sig: [UInt8]) -> Bool { b.count >= sig.count && Array(b.prefix(sig.count)) == sig }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if b.count >= 12, starts(Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8),
            heifBrands.contains(String(decoding: b[8..<12], as: UTF8.self))
        {
            return .heif
        }
        if starts([0x42, 0x4D]) { return .bmp }
        return nil
    }

    /// Major brands of HEIF (ISO/IEC 23008-12) and AVIF files as phones and cameras write them.
    static let heifBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis"]

    /// The format's name for messages ("JPEG", "PNG", "GIF", "WebP", "TIFF", "HEIF/AVIF", "BMP").
    var name: String {
        switch self {
        case .webp: return "WebP"
        case .heif: return "HEIF/AVIF"
        default: return rawValue.uppercased()
        }
    }

    /// Whether Vitrine decodes the format. BMP is recognised (so its row says "unsupported
    /// image format (BMP)") but not decoded: libvips reads it only through ImageMagick, which
    /// is outside the loader allow-list.
    var isDecoded: Bool { self != .bmp }

    /// A short description of what non-image bytes look like, for the error message.
    static func describe(_ data: Data) -> String {
        if data.isEmpty { return "empty body" }
        let head = String(decoding: data.prefix(64), as: UTF8.self).lowercased()
        if head.contains("<html") || head.contains("<!doctype") { return "HTML page" }
        if head.hasPrefix("{") || head.hasPrefix("[") { return "JSON" }
        return "unknown format"
    }
}

extension ImagePipeline {
    /// The kind of image `data` starts like, for messages ("PNG", "JPEG", ..., by the same
    /// signatures the decoder checks, plus "HEIF/AVIF" for an ISO-BMFF `ftyp` box at byte 4),
    /// or nil when it does not look like an image. `vitrine` uses it to say that a file given
    /// as a gallery is a picture.
    public static func imageKind(of data: Data) -> String? {
        if let format = ImageFormat.sniff(data) { return format.name }
        if data.count >= 8, data.dropFirst(4).prefix(4).elementsEqual("ftyp".utf8) { return "HEIF/AVIF" }  // other brands
        return nil
    }
}

