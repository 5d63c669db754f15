import Foundation
import Testing
@testable import Gallery

/// How Foundation's own error texts on Linux (swift-corelibs-foundation 6.3) are taken apart.
@Suite("Foundation error texts")
struct ParserMessageTests {
    @Test("JSONSerialization: the byte offset of 'around character N'")
    func jsonOffset() {
        #expect(JSONPosition.foundationOffset(in: "Invalid value around character 10.") == 10)
        #expect(JSONPosition.foundationOffset(in: "Invalid UTF-8 sequence 1 bytes starting from character 2.") == 2)
        #expect(JSONPosition.foundationOffset(in: "Unexpected end of file during JSON parse.") == nil)
        #expect(JSONPosition.foundationMessage("Too many nested arrays or dictionaries around character 513.")
            == "too many nested arrays or dictionaries")
    }

    @Test("JSONSerialization really reports byte offsets here (what JSONPosition relies on)")
    func foundationStillSaysSo() {
        // Given an error after two 2-byte characters
        let data = Data(#"["éé", x]"#.utf8)
        // When Foundation parses it
        var text = ""
        do { _ = try JSONSerialization.jsonObject(with: data) } catch {
            text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
        }
        // Then the offset is in bytes (9), where a character count would say 7
        #expect(JSONPosition.foundationOffset(in: text) == 9)
    }

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
