import Foundation
import Testing
@testable import Gallery

@Suite("Unsplash")
struct UnsplashTests {
    static let search = """
    {"total": 40, "total_pages": 4, "results": [
      {"id": "u1", "description": null, "alt_description": "green leaves", "width": 4000, "height": 3000,
       "urls": {"raw": "https://images.example.com/u1?ixid=1", "full": "https://images.example.com/u1?q=85",
                "regular": "https://images.example.com/u1?w=1080", "small": "https://images.example.com/u1?w=400",
                "thumb": "https://images.example.com/u1?w=200"}}
    ]}
    """

    @Test("search results: urls.thumb and urls.full, alt text as title, next page from the request")
    func search() throws {
        // Given page 2 of 4 of a search
        let source = URL(string: "http://127.0.0.1:8080/search/photos?query=leaf&page=2")!
        let gallery = try Fixtures.read(Self.search, from: source)
        // Then
        #expect(gallery.format == .unsplash)
        #expect(gallery.items[0].title == "green leaves")
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://images.example.com/u1?w=200")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://images.example.com/u1?q=85")
        #expect(gallery.nextPage == .page(3))
        #expect(gallery.nextPage?.url(after: source)?.absoluteString
            == "http://127.0.0.1:8080/search/photos?query=leaf&page=3")
    }

    @Test("a bare array of photos, last page without a next")
    func bareArray() throws {
        let json = #"[{"id": "u2", "description": "Dune", "urls": {"small": "https://images.example.com/u2?w=400", "regular": "https://images.example.com/u2?w=1080"}}]"#
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .unsplash)
        #expect(gallery.nextPage == nil)
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://images.example.com/u2?w=400")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://images.example.com/u2?w=1080")
    }
}
