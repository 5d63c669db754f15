import Foundation
import Testing
@testable import Gallery

@Suite("PathExpression syntax")
struct PathExpressionTests {
    /// The parsed term of `text`, or nil when it does not parse.
    func term(_ text: String) -> PathExpression.Term? {
        try? PathExpression(text).term
    }

    func syntaxError(_ text: String) -> PathSyntaxError? {
        do {
            _ = try PathExpression(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("identity and dotted keys")
    func keys() {
        #expect(term(".") == .path([]))
        #expect(term(" . ") == .path([]))
        #expect(term(".a") == .path([.key("a")]))
        #expect(term(".data.images") == .path([.key("data"), .key("images")]))
        #expect(term("._x9.Y_") == .path([.key("_x9"), .key("Y_")]))
    }

    @Test("quoted keys: .[\"…\"], .a[\"…\"], .\"…\" with escapes")
    func quotedKeys() {
        #expect(term(#".["key with:colon"]"#) == .path([.key("key with:colon")]))
        #expect(term(#".feed["im:name"].label"#) == .path([.key("feed"), .key("im:name"), .key("label")]))
        #expect(term(#"."im:image""#) == .path([.key("im:image")]))
        #expect(term(#".["a\"b\\c\u00e9"]"#) == .path([.key("a\"b\\cé")]))
    }

    @Test("indices, negative indices and iteration")
    func brackets() {
        #expect(term(".[0]") == .path([.index(0)]))
        #expect(term(".a[12]") == .path([.key("a"), .index(12)]))
        #expect(term(".a[-1]") == .path([.key("a"), .index(-1)]))
        #expect(term(".a[ 2 ]") == .path([.key("a"), .index(2)]))
        #expect(term(".[]") == .path([.iterate]))
        #expect(term(".data.children[].data") == .path([.key("data"), .key("children"), .iterate, .key("data")]))
        #expect(term(".a.[0]") == .path([.key("a"), .index(0)]))
        #expect(term(".a[]?") == .path([.key("a"), .iterate]))
    }

    @Test("alternatives bind loosest, left to right")
    func alternatives() {
        #expect(term(".a // .b") == .alternatives([.path([.key("a")]), .path([.key("b")])]))
        #expect(term(".a//.b//\"x\"") == .alternatives([.path([.key("a")]), .path([.key("b")]), .template([.literal("x")])]))
        #expect(term(". // .b") == .alternatives([.path([]), .path([.key("b")])]))
    }

    @Test("string templates with interpolations")
    func templates() throws {
        let t = try PathExpression(#""https://host/\(.id).jpg""#)
        guard case .template(let parts) = t.term, parts.count == 3 else {
            Issue.record("not a three-part template: \(t.term)")
            return
        }
        #expect(parts[0] == .literal("https://host/"))
        #expect(parts[2] == .literal(".jpg"))
        guard case .interpolation(let inner) = parts[1] else { Issue.record("no interpolation"); return }
        #expect(inner.term == .path([.key("id")]))
        #expect(inner.text == ".id")
        #expect(term(#""""#) == .template([.literal("")]))
        #expect(term(#""\(.a // .b)""#) != nil)
        #expect(term(#""a\nb\u0041""#) == .template([.literal("a\nbA")]))
    }

    @Test("describe writes steps back in jq form")
    func describe() {
        #expect(PathExpression.describe([]) == ".")
        #expect(PathExpression.describe([.key("data"), .key("images"), .iterate]) == ".data.images[]")
        #expect(PathExpression.describe([.index(0)]) == ".[0]")
        #expect(PathExpression.describe([.key("feed"), .key("im:name")]) == #".feed["im:name"]"#)
        #expect(PathExpression.describe([.key("a b")]) == #".["a b"]"#)
    }

    @Test("errors point at the column of the fault", arguments: [
        ("", 1, "empty expression"),
        ("a.b", 1, "expected a path starting with '.'"),
        (".a.", 4, "expected a key name after '.'"),
        (".a[", 3, "'[' is never closed"),
        (".a[1", 3, "'[' is never closed"),
        (".a[x]", 4, "expected ']', an index"),
        (".a[1:2]", 5, "slices are not supported"),
        (#".title // "abc"#, 11, "unterminated string"),
        (".a //", 6, "expected an expression after '//'"),
        (".a | .b", 4, "pipes are not supported"),
        ("..a", 2, "recursive descent"),
        (".a.-b", 4, "expected a key name"),
        ("[0]", 1, "a path starts with '.': write '.[0]'"),
        (#""\(.id""#, 7, "expected ')' to close '\\(', found '\"'"),
        (#""\(.id"#, 2, "'\\(' is never closed"),
        (#""\q""#, 2, "unknown escape"),
        (#"."\(.a)""#, 2, "a key cannot contain"),
        (".a .b", 4, "unexpected '.'"),
    ])
    func errors(text: String, column: Int, message: String) throws {
        let error = try #require(syntaxError(text))
        #expect(error.column == column, "\(text): \(error)")
        #expect(error.message.contains(message), "\(text): \(error)")
        #expect(error.description.hasPrefix("column \(column): "))
    }

    @Test("the pointer puts a caret under the column")
    func pointer() throws {
        let error = try #require(syntaxError(".a[x]"))
        #expect(error.pointer == ".a[x]\n   ^")
    }

    @Test("templates nested too deep are refused, not recursed into")
    func depth() throws {
        var text = ".a"
        for _ in 0..<40 { text = "\"\\(\(text))\"" }
        let error = try #require(syntaxError(text))
        #expect(error.message.contains("nested too deep"))
    }

    @Test("GalleryMapping names the option of a bad expression")
    func fieldError() {
        do {
            _ = try GalleryMapping(items: ".data[]", title: ".a[")
            Issue.record("expected an error")
        } catch {
            #expect(error.field == .title)
            #expect(error.description == "--title '.a[': column 3: '[' is never closed")
        }
    }
}
