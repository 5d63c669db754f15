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
        var bomLength = 0
        if b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF {
            return Data(data.dropFirst(3))
        } else if b[0] == 0x00, b[1] == 0x00, b[2] == 0xFE, b[3] == 0xFF {
            (encoding, bomLength) = (.utf32BigEndian, 4)
        } else if b[0] == 0xFF, b[1] == 0xFE, b[2] == 0x00, b[3] == 0x00 {
            (encoding, bomLength) = (.utf32LittleEndian, 4)
        } else if b[0] == 0xFE, b[1] == 0xFF {
            (encoding, bomLength) = (.utf16BigEndian, 2)
        } else if b[0] == 0xFF, b[1] == 0xFE {
            (encoding, bomLength) = (.utf16LittleEndian, 2)
        } else if data.count >= 4, b[0] == 0x00, b[1] == 0x00, b[2] == 0x00 {
            encoding = .utf32BigEndian
        } else if data.count >= 4, b[0] != 0x00, b[1] == 0x00, b[2] == 0x00, b[3] == 0x00 {
            encoding = .utf32LittleEndian
        } else if data.count >= 2, b[0] == 0x00 {
            encoding = .utf16BigEndian
        } else if data.count >= 2, b[1] == 0x00 {
            encoding = .utf16LittleEndian
        } else {
            return data
        }
        guard let text = String(data: data.dropFirst(bomLength), encoding: encoding) else { return nil }
        return Data(text.utf8)
    }

    /// The first bytes after a UTF-8 BOM and whitespace, for sniffing (`<?xml`, `<plist`, `{`).
    static func leadingText(_ data: Data, count: Int = 64) -> String {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        let trimmed = body.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return String(decoding: trimmed.prefix(count), as: UTF8.self)
    }
}
