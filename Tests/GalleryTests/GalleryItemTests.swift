import Foundation
import Testing
@testable import Gallery

@Suite("GalleryItem")
struct GalleryItemTests {
    @Test("thumbnail and image fall back to each other")
    func fallbacks() {
        // Given items with only one of the two URLs
        let full = URL(string: "https://images.example.com/full.jpg")!
        let onlyImage = GalleryItem(title: "a", imageURL: full)
        let onlyThumb = GalleryItem(title: "b", thumbnailURL: full)
        // Then both URLs are set on each
        #expect(onlyImage.thumbnailURL == full)
        #expect(onlyThumb.imageURL == full)
        // And an item with none has neither, and no file name
        let none = GalleryItem(title: "c")
        #expect(none.imageURL == nil && none.thumbnailURL == nil && none.fileName == "")
    }

    @Test("the file name is percent-decoded, sanitized, and stands in for an empty title")
    func fileName() {
        // Given an image URL whose last component hides an escape sequence and a space
        let url = URL(string: "https://images.example.com/dir/%1B%5B31mred%20cat.png?size=large")!
        // When the item has a title made only of controls
        let item = GalleryItem(title: "\u{1B}[0m\u{7}", imageURL: url)
        // Then the file name is clean text and is the title
        #expect(item.fileName == "red cat.png")
        #expect(item.title == "red cat.png")
    }

    @Test("no file name for a bare host or a data URL")
    func noFileName() {
        #expect(GalleryItem(title: "x", imageURL: URL(string: "https://images.example.com/")!).fileName == "")
        #expect(GalleryItem(title: "x", imageURL: URL(string: "data:image/png;base64,AAAA")!).fileName == "")
    }

    @Test("a gallery of many items reads in order")
    func large() throws {
        // Given 20 000 plain items
        let entries = (0..<20_000).map { #"{"title": "n\#($0)", "url": "img/\#($0).png"}"# }
        let json = "[" + entries.joined(separator: ",\n") + "]"
        // When it is read
        let gallery = try Fixtures.read(json)
        // Then every item is there, in order
        #expect(gallery.items.count == 20_000)
        #expect(gallery.items[19_999].title == "n19999")
        #expect(gallery.items[19_999].fileName == "19999.png")
    }

    @Test("URLs are stored as strings and made on demand; a problem leaves no URL")
    func strings() {
        let item = GalleryItem(title: "a", thumbnail: nil, image: "https://images.example.com/a%20b.jpg")
        #expect(item.thumbnailURLString == "https://images.example.com/a%20b.jpg")
        #expect(item.thumbnailURL == URL(string: "https://images.example.com/a%20b.jpg"))
        #expect(item.fileName == "a b.jpg")
        var copy = item
        copy.imageURL = URL(string: "https://images.example.com/c.jpg")
        #expect(copy.imageURLString == "https://images.example.com/c.jpg")
        let bad = GalleryItem(title: "", thumbnail: nil, image: nil, problem: "unsupported URL scheme 'javascript'\u{1B}[2J")
        #expect(bad.problem == "unsupported URL scheme 'javascript'")
        #expect(!bad.hasURL && bad.thumbnailURL == nil)
    }

    @Test("a plain relative URL is joined when read, and equals the same item built absolute")
    func lazilyJoined() throws {
        // Given a file gallery whose item has a relative image and an absolute thumbnail
        let gallery = try Fixtures.read(#"[{"title": "a", "url": "pics/a.png", "thumbnail": "https://i.example.com/t.png"}]"#)
        var item = gallery.items[0]
        // Then each URL reads absolute
        #expect(item.imageURLString == "file:///srv/galleries/pics/a.png")
        #expect(item.thumbnailURLString == "https://i.example.com/t.png")
        #expect(item.fileName == "a.png")
        // And the item equals (and hashes as) one built from the absolute strings
        let absolute = GalleryItem(title: "a", thumbnail: "https://i.example.com/t.png", image: "file:///srv/galleries/pics/a.png")
        #expect(item == absolute)
        #expect(Set([item, absolute]).count == 1)
        // When the thumbnail is replaced, the image keeps its absolute form
        item.thumbnailURLString = "https://i.example.com/u.png"
        #expect(item.imageURLString == "file:///srv/galleries/pics/a.png")
        #expect(item.thumbnailURLString == "https://i.example.com/u.png")
        item.imageURLString = nil
        #expect(item.imageURLString == nil && item.thumbnailURLString == "https://i.example.com/u.png")
    }
}
