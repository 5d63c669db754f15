import Foundation
import Testing
@testable import Gallery

@Suite("NodeJSONParser")
struct NodeJSONParserTests {
    func direct(_ text: String) -> Node? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { NodeJSONParser.parse($0) }
    }

    func foundation(_ text: String) throws -> Node {
        Node(foundation: try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
    }

    @Test("gives the tree Foundation gives", arguments: [
        #"[{"title": "A", "url": "a.png"}, {"n": -12.5e2, "z": 0, "big": 12345678901234567890, "t": true, "f": false, "x": null}]"#,
        #"{"s": "tab\tquote\"slash\/back\\nl\nu\u00e9 \ud83d\ude00 \u2028", "e": "", "ü": "ß"}"#,
        #"  "fragment"  "#, "42", "-0.5", "1E3", "true", "null",
        #"{"a": [1, 2, 3,], "b": {"c": 1,},}"#,
        "[[[[[]]]]]", "{}", "[]", #"{"k": 1, "k": 2}"#,
        #"[{"a": {"b": {"c": 1}, "d": [{"e": 2}, {}]}, "f": 3}, {"g": {"h": {}}}]"#,
    ])
    func same(text: String) throws {
        let got = try #require(direct(text), "refused \(text)")
        #expect(got == (try foundation(text)))
    }

    @Test("refuses what is not JSON, so Foundation and the locator report it", arguments: [
        "", "[", "]", "{\"a\" 1}", "[1 2]", "[01]", "[1.]", "[.5]", "[1e]", "[-]", "tru", "[nul]",
        "\"abc", "\"a\u{01}b\"", #""\x""#, #""\u12G4""#, #""\ud800""#, #""\udc00x""#, "[,]", "{,}",
        "[1] [2]",
    ])
    func refuses(text: String) {
        #expect(direct(text) == nil, "accepted \(text)")
    }

    @Test("a number out of a Double's range is infinity, not a refusal (a field fails, not the gallery)")
    func outOfRange() {
        #expect(direct(#"{"a": 1e999, "b": -1e999, "c": 1e-999}"#)
            == .object(NodeObject(pairs: [("a", .number(.infinity)), ("b", .number(-.infinity)), ("c", .number(0))])))
    }

    @Test("refuses invalid UTF-8 and nesting past 512 levels")
    func limits() {
        let bad: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
        #expect(bad.withUnsafeBufferPointer { NodeJSONParser.parse($0) } == nil)
        #expect(direct(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)) != nil)
        #expect(direct(String(repeating: "[", count: 513) + String(repeating: "]", count: 513)) == nil)
    }
}
