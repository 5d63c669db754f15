import Foundation
import Testing
@testable import Gallery

@Suite("PathEvaluator")
struct PathEvaluatorTests {
    static let sample = """
    {"data": {"images": [
        {"id": "a1", "title": "One", "n": 7, "ok": true, "off": false, "nil": null, "link": "https://i.example.com/a1.jpg"},
        {"id": "b2", "description": "Two", "n": 2.5, "link": "https://i.example.com/b2.jpg"},
        null,
        {"id": "c3", "im:name": {"label": "Three"}}
    ]}, "pages": {"10": {"t": "ten"}, "2": {"t": "two"}, "x": {"t": "ex"}}, "count": 3, "empty": []}
    """

    let root: Cursor

    init() throws {
        root = Cursor(try JSONParser.parse(Data(Self.sample.utf8), source: "t.json"))
    }

    func values(_ text: String, at cursor: Cursor? = nil) throws -> [String] {
        let result = try PathEvaluator.evaluate(try PathExpression(text), at: cursor ?? root)
        return try result.values.map { value -> String in
            if case .node(let c) = value, c.node.object != nil || c.node.array != nil { return c.path.description }
            return try PathEvaluator.text(of: value)
        }
    }

    func miss(_ text: String, at cursor: Cursor? = nil) throws -> String? {
        let result = try PathEvaluator.evaluate(try PathExpression(text), at: cursor ?? root)
        #expect(result.values.isEmpty, "\(text) matched \(result.values.count) values")
        return result.miss
    }

    @Test("keys, quoted keys and identity")
    func keys() throws {
        #expect(try values(".count") == ["3"])
        #expect(try values(".data.images[0].title") == ["One"])
        #expect(try values(#".data.images[3]["im:name"].label"#) == ["Three"])
        #expect(try values(".") == ["."])  // the root object's path is ""
    }

    @Test("indices from the start and the end; nulls are skipped")
    func indices() throws {
        #expect(try values(".data.images[1].id") == ["b2"])
        #expect(try values(".data.images[-1].id") == ["c3"])
        #expect(try values(".data.images[-4].id") == ["a1"])
        #expect(try values(".data.images[]") == [".data.images[0]", ".data.images[1]", ".data.images[3]"])
    }

    @Test("[] streams; following steps apply to each value")
    func iterate() throws {
        #expect(try values(".data.images[].id") == ["a1", "b2", "c3"])
        #expect(try values(".data.images[].link") == ["https://i.example.com/a1.jpg", "https://i.example.com/b2.jpg"])
        // Object members in key order, numeric keys by value.
        #expect(try values(".pages[].t") == ["two", "ten", "ex"])
    }

    @Test("alternatives take the first truthy values, jq-style")
    func alternatives() throws {
        let items = try #require(root.member(path: "data.images")?.elements)
        #expect(try values(".title // .description", at: items[0]) == ["One"])
        #expect(try values(".title // .description", at: items[1]) == ["Two"])
        #expect(try values(".off // .nil // .id", at: items[0]) == ["a1"])
        #expect(try values(".ok // .id", at: items[0]) == ["true"])
        #expect(try values(".missing // \"Untitled\"", at: items[0]) == ["Untitled"])
    }

    @Test("templates put in strings, numbers and booleans")
    func templates() throws {
        let items = try #require(root.member(path: "data.images")?.elements)
        #expect(try values(#""https://host/\(.id).jpg""#, at: items[0]) == ["https://host/a1.jpg"])
        #expect(try values(#""\(.n)/\(.ok)""#, at: items[0]) == ["7/true"])
        #expect(try values(#""\(.n)""#, at: items[1]) == ["2.5"])
        #expect(try values(#""\(.title // .description)!""#, at: items[1]) == ["Two!"])
        // A template whose interpolation yields nothing yields nothing, so '//' falls back.
        #expect(try values(#""x/\(.title).jpg" // .id"#, at: items[1]) == ["b2"])
        #expect(try miss(#""x/\(.title)""#, at: items[1])?.contains(#"\(.title): .title matched nothing"#) == true)
    }

    @Test("a template cannot interpolate an object")
    func templateOfObject() throws {
        do {
            _ = try values(#""\(.data)""#)
            Issue.record("expected an error")
        } catch let error as MappingError {
            #expect(error == .shape(KeyPath.root.appending("data"), "not a string, number or boolean to put in a string (found an object)"))
        }
    }

    @Test("a miss names the step and what was there", arguments: [
        (".data.pictures[]", ".data.pictures matched nothing (keys at .data: images)"),
        (".results[]", ".results matched nothing (keys at top level: count, data, empty, pages)"),
        (".data.images.id", ".data.images.id matched nothing (found an array of 4 at .data.images; use [] or [0])"),
        (".data.images[9]", ".data.images[9] matched nothing (.data.images has 4 elements)"),
        (".data.images[2]", ".data.images[2] matched nothing (.data.images[2] is null)"),
        (".empty[]", ".empty[] matched nothing (.empty is empty or holds only nulls)"),
        (".empty[0]", ".empty[0] matched nothing (.empty is an empty array)"),
        (".count[]", ".count[] matched nothing (found a number at .count)"),
        (".count.x", ".count.x matched nothing (found a number at .count)"),
        (".data.images[].zzz", ".data.images[].zzz matched nothing (keys at .data.images[0]: id, link, n, nil, off, ok, title)"),
        (".a // .b", ".a matched nothing (keys at top level: count, data, empty, pages); .b matched nothing (keys at top level: count, data, empty, pages)"),
    ])
    func misses(text: String, expected: String) throws {
        #expect(try miss(text) == expected)
    }
}
