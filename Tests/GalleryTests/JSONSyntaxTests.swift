import Foundation
import Testing
@testable import Gallery

/// Broken JSON: each error is one line with the file name, line and column (1-based, columns in
/// characters) and what is wrong there.
@Suite("JSON syntax errors")
struct JSONSyntaxTests {
    private func message(_ json: String) -> String? {
        Fixtures.error(json)?.description
    }

    @Test("a stray closing brace in an array")
    func strayBrace() {
        // Given an object closer where an array element should be, on line 4
        let json = """
        {
          "items": [
            {"title": "a", "url": "a.png"},
            }
          ]
        }
        """
        // When it is read
        // Then the error points at line 4, column 5
        #expect(Fixtures.error(json) == .syntax(
            source: "gallery.json", line: 4, column: 5, message: "unexpected character '}' (expected a value)"
        ))
        #expect(message(json) == "gallery.json:4:5: unexpected character '}' (expected a value)")
    }

    @Test("a missing comma between members")
    func missingComma() {
        let json = "{\"title\": \"x\"\n \"items\": []}"
        #expect(message(json) == "gallery.json:2:2: unexpected character '\"' (expected ',' or '}')")
    }

    @Test("a misspelt literal, which Foundation reports only as end of file")
    func badLiteral() {
        #expect(message(#"{"a": tru}"#) == "gallery.json:1:7: invalid literal 'tru'")
    }

    @Test("an unterminated string is reported where it opens")
    func unterminatedString() {
        #expect(message("[\"a.png\",\n  \"b.png") == "gallery.json:2:3: unterminated string")
    }

    @Test("a line break inside a string (a forgotten quote)")
    func lineBreakInString() {
        #expect(message("[\"a.png,\n \"b.png\"]") == "gallery.json:1:9: line break inside a string (missing '\"'?)")
    }

    @Test("an unclosed array at end of file names where it opened")
    func unclosed() {
        let json = "[\n  {\"url\": \"a.png\"}\n"
        #expect(message(json) == "gallery.json:3:1: unexpected end of file: '[' opened at 1:1 is not closed")
    }

    @Test("columns count characters, not bytes, after CJK and emoji")
    func wideColumns() {
        // Given a bare word after a CJK title and an emoji (3 and 4 bytes each in UTF-8)
        // When it is read
        // Then the column is where an editor puts the cursor
        #expect(message(#"["東京😀", x]"#) == "gallery.json:1:9: unexpected character 'x' (expected a value)")
    }

    @Test("bad escapes, numbers, control characters and trailing data")
    func assorted() {
        #expect(message(#"["a\qb"]"#) == #"gallery.json:1:4: invalid escape '\q'"#)
        #expect(message("[01]") == "gallery.json:1:2: invalid number '01'")
        #expect(message("[\"a\u{01}b\"]") == "gallery.json:1:4: unescaped control character U+0001 in a string")
        #expect(message("[1] x") == "gallery.json:1:5: unexpected character 'x' after the end of the JSON value")
        #expect(message(#"{title: "a"}"#) == "gallery.json:1:2: unexpected character 't' (expected a string key)")
        #expect(message(#"["\ud800"]"#) == #"gallery.json:1:3: lone high surrogate in \u escape"#)
    }

    @Test("invalid UTF-8 inside a string")
    func invalidUTF8() {
        let data = Data([0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D])  // ["a\xFF"]
        #expect(throws: GalleryError.syntax(
            source: "gallery.json", line: 1, column: 4, message: "invalid UTF-8 byte 0xFF"
        )) { try GalleryReader.read(data, source: Fixtures.jsonFile) }
    }

    @Test("a BOM does not shift the column; UTF-16 galleries are read")
    func encodings() throws {
        // Given a UTF-8 BOM before broken JSON
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("[1, x]".utf8)
        #expect(throws: GalleryError.syntax(
            source: "gallery.json", line: 1, column: 5, message: "unexpected character 'x' (expected a value)"
        )) { try GalleryReader.read(bom, source: Fixtures.jsonFile) }
        // Given a UTF-16 LE gallery with a BOM
        var utf16 = Data([0xFF, 0xFE])
        utf16.append(#"[{"title": "Ünïcode", "url": "a.png"}]"#.data(using: .utf16LittleEndian)!)
        // Then it reads like UTF-8
        #expect(try GalleryReader.read(utf16, source: Fixtures.jsonFile).items.map(\.title) == ["Ünïcode"])
        // And so do BOM-less UTF-16 BE and UTF-32 LE (RFC 4627's zero-byte patterns)
        let text = #"["a.png"]"#
        for encoding in [String.Encoding.utf16BigEndian, .utf32LittleEndian] {
            let data = text.data(using: encoding)!
            #expect(try GalleryReader.read(data, source: Fixtures.jsonFile).items.map(\.title) == ["a.png"])
        }
        // And broken UTF-16 is one clear line
        #expect(throws: GalleryError.syntax(
            source: "gallery.json", line: nil, column: nil, message: "not valid UTF-16 or UTF-32 text"
        )) { try GalleryReader.read(Data([0xFF, 0xFE, 0x00, 0xD8, 0x41]), source: Fixtures.jsonFile) }
    }

    @Test("trailing commas are accepted, as Foundation on Linux does")
    func trailingComma() throws {
        #expect(try Fixtures.read(#"{"items": [{"url": "a.png",},],}"#).items.count == 1)
    }

    @Test("empty files and HTML pages get their own one-line message")
    func notJSON() {
        #expect(message("") == "gallery.json: the file is empty")
        #expect(message(" \n\t") == "gallery.json: the file is empty")
        #expect(message("<!DOCTYPE html>\n<html><body>Sign in</body></html>")
            == "gallery.json: an HTML page, not a gallery")
    }
}

@Suite("JSON nesting limit")
struct JSONNestingTests {
    @Test("nesting past Foundation's 512 levels is one positioned error, not a crash")
    func tooDeep() {
        // Given 512 levels (accepted) and 100 000 levels (refused by Foundation)
        let ok = String(repeating: "[", count: 512) + "\"a.png\"" + String(repeating: "]", count: 512)
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        // When they are read
        // Then the first parses (an array of arrays is not a gallery), and the second names
        // the 513th bracket
        #expect(Fixtures.error(ok) == .unrecognized(source: "gallery.json", found: "an array of 1 arrays"))
        #expect(Fixtures.error(deep)?.description == "gallery.json:1:513: nested more than 512 levels deep")
    }
}
