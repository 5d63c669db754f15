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
}
