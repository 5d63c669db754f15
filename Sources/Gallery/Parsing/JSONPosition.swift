import Foundation

/// A 1-based line and column in a text, found from a byte offset into its UTF-8 bytes.
///
/// Lines end at LF (a CRLF counts once). The column counts characters (grapheme clusters) from
/// the start of the line, so it matches what an editor shows for CJK and emoji; a tab is one.
struct JSONPosition: Sendable, Equatable {
    var line: Int
    var column: Int

    /// The position of byte `offset` in `bytes` (clamped to the end, which is a valid place
    /// for "unexpected end of file").
    init(offset: Int, in bytes: [UInt8]) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < end {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        let prefix = String(decoding: bytes[lineStart..<end], as: UTF8.self)
        self.line = line
        self.column = prefix.count + 1
    }

    /// Reads the byte offset out of a Linux `JSONSerialization` error.
    ///
    /// swift-corelibs-foundation 6.3 puts it only in `NSDebugDescription`:
    /// "Invalid value around character 10." (a byte offset after any BOM) or "Invalid UTF-8
    /// sequence 1 bytes starting from character 2."; "Unexpected end of file during JSON
    /// parse." carries none.
    static func foundationOffset(in message: String) -> Int? {
        guard let range = message.range(of: "character ", options: .backwards) else { return nil }
        let digits = message[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }

    /// `message` without Foundation's position suffix and with a lowercase start, for reuse
    /// when our own locator finds no error (it never should).
    static func foundationMessage(_ message: String) -> String {
        var text = message
        if let range = text.range(of: " around character ") { text = String(text[..<range.lowerBound]) }
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first else { return "invalid JSON" }
        return first.lowercased() + text.dropFirst()
    }
}
