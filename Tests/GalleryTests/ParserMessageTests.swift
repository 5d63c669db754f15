import Foundation
import Testing
@testable import Gallery

/// Positions in messages (JSON) and Foundation's plist error texts.
@Suite("Parser messages")
struct ParserMessageTests {
    @Test("line and column from a byte offset: LF lines, columns in characters")
    func position() {
        let bytes = Array("ab\r\n東京x".utf8)
        let x = JSONPosition(offset: bytes.count - 1, in: bytes)
        #expect((x.line, x.column) == (2, 3))
        let start = JSONPosition(offset: 0, in: bytes)
        #expect((start.line, start.column) == (1, 1))
        let past = JSONPosition(offset: 10_000, in: bytes)
        #expect((past.line, past.column) == (2, 4))
    }

    @Test("PropertyListSerialization: the line of 'on line N' and ', failing on line N'")
    func plistLine() {
        #expect(PlistParser.splitLine("Encountered unknown tag strin on line 5") == (5, "encountered unknown tag strin"))
        #expect(PlistParser.splitLine("Too many nested arrays or dictionaries, failing on line 1")
            == (1, "too many nested arrays or dictionaries"))
        #expect(PlistParser.splitLine("Unexpected character \u{1B} at line 3") == (3, "unexpected character"))
    }
}
