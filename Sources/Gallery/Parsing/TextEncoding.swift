import Foundation

/// Brings JSON text to BOM-less UTF-8 before parsing.
///
/// JSON may arrive as UTF-8 with a BOM, or as UTF-16/32 (with or without a BOM, RFC 4627's
/// zero-byte pattern). `JSONSerialization` copes with all of them, but the byte offsets in its
/// errors, and our own line/column count, are only meaningful on one encoding: UTF-8 it is.
enum TextEncoding {
    /// The bytes as UTF-8 without a BOM, or nil if they claim UTF-16/32 and do not decode.
    static func utf8(_ data: Data) -> Data? {
        let b = [UInt8](data.prefix(4)) + [UInt8](repeating: 0xAA, count: max(0, 4 - data.count))
        let encoding: String.Encoding
        switch (b[0], b[1], b[2], b[3]) {
        case (0xEF, 0xBB, 0xBF, _): return data.dropFirst(3)
        case (0x00, 0x00, 0xFE, 0xFF), (0x00, 0x00, 0x00, _) where data.count >= 4:
            encoding = .utf32BigEndian
        case (0xFF, 0xFE, 0x00, 0x00), (_, 0x00, 0x00, 0x00) where data.count >= 4 && b[0] != 0:
            encoding = .utf32LittleEndian
        case (0xFE, 0xFF, _, _), (0x00, _, _, _) where data.count >= 2:
            encoding = .utf16BigEndian
        case (0xFF, 0xFE, _, _), (_, 0x00, _, _) where data.count >= 2:
            encoding = .utf16LittleEndian
        default:
            return data
        }
        var body = data
        if (b[0], b[1]) == (0xFE, 0xFF) || (b[0], b[1]) == (0xFF, 0xFE) {
            body = data.dropFirst(encoding == .utf32LittleEndian ? 4 : 2)
        } else if (b[0], b[1], b[2], b[3]) == (0x00, 0x00, 0xFE, 0xFF) {
            body = data.dropFirst(4)
        }
        guard let text = String(data: body, encoding: encoding) else { return nil }
        return Data(text.utf8)
    }

    /// The first non-whitespace bytes, for sniffing (`<?xml`, `<plist`, `{`).
    static func leadingText(_ data: Data, count: Int = 64) -> String {
        let trimmed = data.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return String(decoding: trimmed.prefix(count), as: UTF8.self)
    }
}
