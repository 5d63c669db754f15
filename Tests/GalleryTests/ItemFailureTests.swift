import Foundation
import Testing

@testable import Gallery

@Suite("A field fails its item, not the gallery")
struct ItemFailureTests {
    let source = URL(string: "http://127.0.0.1:9/g.json")!

    func read(_ text: String) throws -> [GalleryItem] {
        try GalleryReader.read(Data(text.utf8), source: source).items
    }

    @Test("a plain array keeps its good items around an element that is a number")
    func plainArray() throws {
        // Given an array whose third element is a number and whose second has a list for a title
        let items = try read(#"[{"title": "A", "url": "a.png"}, {"title": ["x"], "url": "b.png"}, 5, {"title": "C", "url": "c.png"}]"#)
        // Then every element is an item, and only the number's fails
        #expect(items.map(\.title) == ["A", "x", "Item 3", "C"])
        #expect(items[2].problem == "not an object or a URL string (found a number)")
        #expect(items[3].imageURLString == "http://127.0.0.1:9/c.png")
    }

    @Test("a JSON Feed entry that is not an object, or has a bad field, fails alone")
    func jsonFeed() throws {
        let items = try read(#"""
            {"version": "https://jsonfeed.org/version/1.1", "items": [
              {"id": "1", "title": "A", "image": "a.png"}, 7,
              {"id": "2", "title": "B", "image": "b.png", "attachments": 5}]}
            """#)
        #expect(items.map(\.problem) == [nil, "not an object (found a number)", ".attachments: not an array (found a number)"])
    }

    @Test("DeviantArt, Mastodon: a title of the wrong type fails its item")
    func knownFormats() throws {
        let deviantArt = try read(#"""
            {"has_more": false, "results": [{"title": "a", "content": {"src": "a.png"}},
             {"title": {"x": true}, "content": {"src": "b.png"}}]}
            """#)
        #expect(deviantArt.map(\.problem) == [nil, ".title: not text (found an object)"])
        let mastodon = try read(#"""
            [{"id": "1", "content": "<p>hi</p>", "media_attachments": [{"type": "image", "url": "a.png", "preview_url": "a.png"}]},
             {"id": "2", "content": 5, "media_attachments": [{"type": "image", "url": "b.png"}]}]
            """#)
        #expect(mastodon.map(\.problem) == [nil, ".content: not a string (found a number)"])
    }

    @Test("a gallery with no usable item still fails, naming the first problem")
    func nothingUsable() {
        #expect(throws: GalleryError.self) { try read(#"[{"title": "A", "url": 1}, 2]"#) }
    }
}
