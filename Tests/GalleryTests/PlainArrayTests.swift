import Foundation
import Testing
@testable import Gallery

@Suite("PlainArray")
struct PlainArrayTests {
    @Test("reads a top-level array of objects with assorted field names")
    func array() throws {
        // Given items using title/name, url/image and thumbnail/thumb
        let json = """
        [
          {"title": "Sunset", "url": "photos/sunset.jpg", "thumbnail": "thumbs/sunset.jpg"},
          {"name": "Beach", "image": "https://images.example.com/beach.jpg", "thumb": "https://images.example.com/t/beach.jpg"},
          {"title": "Only a thumb", "thumbnail": "thumbs/x.jpg"}
        ]
        """
        // When it is read from a file
        let gallery = try Fixtures.read(json)
        // Then each item gets its title and both URLs, falling back between them
        #expect(gallery.format == .plainArray)
        #expect(gallery.items.map(\.title) == ["Sunset", "Beach", "Only a thumb"])
        #expect(gallery.items[0].imageURL?.path == "/srv/galleries/photos/sunset.jpg")
        #expect(gallery.items[0].thumbnailURL?.path == "/srv/galleries/thumbs/sunset.jpg")
        #expect(gallery.items[1].thumbnailURL?.absoluteString == "https://images.example.com/t/beach.jpg")
        #expect(gallery.items[2].imageURL == gallery.items[2].thumbnailURL)
        #expect(gallery.items[2].imageURL?.path == "/srv/galleries/thumbs/x.jpg")
    }

    @Test("reads the single array of an object and takes its title")
    func wrapped() throws {
        // Given {"title": ..., "items": [...]} with another, non-item array beside it
        let json = #"{"title": "Holiday\n2024", "tags": ["sea", "sun"], "items": [{"caption": "Pier", "src": "pier.png"}]}"#
        // When it is read
        let gallery = try Fixtures.read(json)
        // Then the items array is used and the title names the gallery
        #expect(gallery.name == "Holiday 2024")
        #expect(gallery.items.map(\.title) == ["Pier"])
        #expect(gallery.items[0].fileName == "pier.png")
    }

    @Test("reads an array of bare URL strings, titled by file name")
    func urlStrings() throws {
        let gallery = try Fixtures.read(#"["a/one.png", "https://images.example.com/two%20words.jpg"]"#)
        #expect(gallery.items.map(\.title) == ["one.png", "two words.jpg"])
    }

    @Test("an item without a URL is kept when others have one; titles fall back to Item N")
    func missingURL() throws {
        // Given a second item with neither title nor picture
        let gallery = try Fixtures.read(#"[{"title": "a", "url": "a.png"}, {"id": 7}]"#)
        // Then it is kept, without URLs, as "Item 2"
        #expect(gallery.items.count == 2)
        #expect(gallery.items[1].title == "Item 2")
        #expect(gallery.items[1].imageURL == nil)
    }

    @Test("no item with a URL is a shape error at the first item")
    func noURLAtAll() {
        #expect(Fixtures.error(#"[{"title": "a"}, {"title": "b"}]"#)?.description
            == "gallery.json: .[0]: no image URL (expected a url, image or thumbnail field)")
    }

    @Test("titles are sanitized: escape sequences and newlines do not reach the terminal")
    func sanitizedTitle() throws {
        let gallery = try Fixtures.read(#"[{"title": "\u001b[31mred\u001b[0m\nline", "url": "a.png"}]"#)
        #expect(gallery.items[0].title == "red line")
    }

    @Test("a URL field of the wrong type fails its row only, naming the field", arguments: [
        (#"{"title": "x", "url": 5}"#, ".url: not a URL string (found a number)"),
        (#"{"title": "x", "thumbnail": true, "url": "b.png"}"#, ".thumbnail: not a URL string (found a boolean)"),
        (#"{"title": "x", "image": {"src": [1]}}"#, ".image: not a URL string (found an object)"),
        (#"{"title": "x", "image": ["a.png"]}"#, ".image: not a URL string (found an array)"),
    ])
    func wrongTypeURL(bad: String, message: String) throws {
        // Given a good item, a bad one, a good one
        let json = #"[{"title": "a", "url": "a.png"}, "# + bad + #", {"title": "c", "url": "https://images.example.com/c.jpg"}]"#
        // When it is read
        let gallery = try Fixtures.read(json)
        // Then only the bad one's row fails, with the field in its message
        #expect(gallery.items.map(\.title) == ["a", "x", "c"])
        #expect(gallery.items.map(\.problem) == [nil, message, nil])
        #expect(gallery.items[1].hasURL == false)
        #expect(gallery.items[0].imageURLString == "file:///srv/galleries/a.png")
        #expect(gallery.items[2].thumbnailURLString == "https://images.example.com/c.jpg")
    }

    @Test("items whose field names change from one to the next are each read by their own names")
    func changingFieldNames() throws {
        // Given runs of items with the same names, then other names, then nulls, then the first again
        let json = #"""
        [{"title": "a", "url": "a.png"}, {"title": "b", "url": "b.png"},
         {"name": "c", "image": "c.png", "thumb": "c-t.png"},
         {"title": null, "name": "d", "url": "d.png"}, {"title": "e", "name": "x", "url": "e.png"},
         {"title": "f", "url": "f.png"}]
        """#
        // When it is read, then every item has its own title and URLs
        let gallery = try Fixtures.read(json)
        #expect(gallery.items.map(\.title) == ["a", "b", "c", "d", "e", "f"])
        #expect(gallery.items.map { $0.imageURLString?.split(separator: "/").last } == ["a.png", "b.png", "c.png", "d.png", "e.png", "f.png"])
        #expect(gallery.items[2].thumbnailURLString == "file:///srv/galleries/c-t.png")
    }

    @Test("a wrong-type URL in every item fails the gallery at the first one's key path")
    func wrongTypeEverywhere() {
        #expect(Fixtures.error(#"{"items": [{"title": "x", "url": 5}, {"title": "y", "url": 6}]}"#)?.description
            == "gallery.json: .items[0].url: not a URL string (found a number)")
    }

    @Test("a caption that looks like a file name is the title, not the picture")
    func captionLikeAFileName() throws {
        // Given an item whose only picture is under a key no reader knows ("link"), and whose
        // caption ends in .png
        let gallery = try Fixtures.read(#"[{"caption": "Sunset.png", "link": "a.png"}]"#)
        // Then the caption is the title and the link the picture
        #expect(gallery.items[0].title == "Sunset.png")
        #expect(gallery.items[0].imageURLString?.hasSuffix("/a.png") == true)
    }

    @Test("a guessed title of the wrong type is no title: the item keeps its row")
    func badTitle() throws {
        let gallery = try Fixtures.read(#"{"items": [{"title": false, "url": "a.png"}, {"title": "B", "url": "b.png"}]}"#)
        #expect(gallery.items.count == 2)
        #expect(gallery.items[0].title == "a.png")  // the file name, as for an item without a title
        #expect(gallery.items[0].imageURLString?.hasSuffix("/a.png") == true)
        #expect(gallery.items[1].title == "B")
    }

    @Test("empty arrays and non-galleries")
    func emptyAndUnrecognised() {
        // Given an empty array, an object with an empty items array, and arrays/values that hold no items
        #expect(Fixtures.error("[]") == .empty(source: "gallery.json"))
        #expect(Fixtures.error(#"{"items": []}"#) == .empty(source: "gallery.json"))
        #expect(Fixtures.error("[1, 2, 3]") == .unrecognized(source: "gallery.json", found: "an array of 3 numbers"))
        #expect(Fixtures.error(#""hello""#)?.description
            == "gallery.json: not a gallery: found a string (expected an array of items with an image URL)")
        #expect(Fixtures.error(#"{"error": "unauthorized", "status": 401}"#)
            == .unrecognized(source: "gallery.json", found: "an object with keys error, status"))
    }
}
