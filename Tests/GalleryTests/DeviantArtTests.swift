import Foundation
import Testing
@testable import Gallery

@Suite("DeviantArt")
struct DeviantArtTests {
    @Test("maps results: smallest thumb, full content, unescaped title, next offset")
    func gallery() throws {
        // Given a DeviantArt gallery page fetched over http
        // When it is read
        let gallery = try Fixtures.read(Fixtures.deviantArt, from: Fixtures.httpJSON)
        // Then it is recognised and paged by offset
        #expect(gallery.format == .deviantArt)
        #expect(gallery.nextPage == .deviantArtOffset(24))
        #expect(gallery.name == "gallery.json")
        #expect(gallery.items.count == 3)
        // And the first item has the 150 px thumb and the full content
        let moon = gallery.items[0]
        #expect(moon.title == "Moon & Sea \"II\"")
        #expect(moon.thumbnailURL?.absoluteString == "https://images.example.com/t150/moon.jpg")
        #expect(moon.imageURL?.absoluteString == "https://images.example.com/full/moon.jpg")
        #expect(moon.fileName == "moon.jpg")
        // And the literature deviation is kept without a picture
        #expect(gallery.items[1].title == "A poem")
        #expect(gallery.items[1].thumbnailURL == nil && gallery.items[1].imageURL == nil)
        // And a preview-only, untitled item uses the preview for both and its file name as title
        #expect(gallery.items[2].imageURL?.absoluteString == "https://images.example.com/pre/field.jpg")
        #expect(gallery.items[2].thumbnailURL == gallery.items[2].imageURL)
        #expect(gallery.items[2].title == "field.jpg")
    }

    @Test("the last page has no next offset")
    func lastPage() throws {
        // Given has_more false
        let json = #"{"has_more": false, "next_offset": null, "results": [{"deviationid": "x", "title": "t", "content": {"src": "https://images.example.com/a.png"}}]}"#
        // When it is read, then there is no next page
        #expect(try Fixtures.read(json).nextPage == nil)
    }

    @Test("a content.src of the wrong type fails that result's row, naming the field")
    func wrongType() throws {
        // Given the third result's content.src is an array
        let json = """
        {"has_more": false, "results": [
          {"title": "a", "content": {"src": "https://images.example.com/a.jpg"}},
          {"title": "b", "content": {"src": "https://images.example.com/b.jpg"}},
          {"title": "c", "content": {"src": ["https://images.example.com/c.jpg"]}}
        ]}
        """
        // When it is read, then the first two open and the third's row names content.src
        let gallery = try Fixtures.read(json)
        #expect(gallery.items.map(\.problem) == [nil, nil, ".content.src: not a URL string (found an array)"])
        #expect(gallery.items[1].imageURLString == "https://images.example.com/b.jpg")
        // And a gallery of that result alone fails at its key path
        let alone = #"{"has_more": false, "results": [{"title": "c", "content": {"src": 7}}]}"#
        #expect(Fixtures.error(alone)?.description == "gallery.json: .results[0].content.src: not a URL string (found a number)")
    }

    @Test("a thumb width that is not a number fails its item, naming the field")
    func badWidth() throws {
        let json = #"{"has_more": false, "results": [{"title": "a", "thumbs": [{"src": "https://images.example.com/a.jpg", "width": true}]}, {"title": "b", "content": {"src": "https://images.example.com/b.jpg"}}]}"#
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .deviantArt)
        #expect(gallery.items.map(\.problem) == [".thumbs[0].width: not a number (found a boolean)", nil])
    }

    @Test("results without any picture are a shape error at the first result")
    func noPictures() {
        // Given only literature deviations
        let json = #"{"has_more": false, "results": [{"title": "poem"}, {"title": "story"}]}"#
        // When it is read, then it says which fields were expected
        #expect(Fixtures.error(json)?.description
            == "gallery.json: .results[0]: no image URL (expected content.src, preview.src or thumbs[].src)")
    }

    @Test("an empty results page is an empty gallery")
    func emptyPage() {
        #expect(Fixtures.error(#"{"has_more": false, "next_offset": null, "results": []}"#) == .empty(source: "gallery.json"))
    }
}
