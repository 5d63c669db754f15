import Foundation
import Testing
@testable import Gallery

@Suite("Flickr")
struct FlickrTests {
    @Test("url_q thumbnail, largest non-original image, built URLs, page < pages")
    func photos() throws {
        // Given a search page with extras for one photo and none for another
        let json = """
        {"photos": {"page": 1, "pages": "3", "perpage": 2, "total": "6", "photo": [
          {"id": "11", "secret": "aa", "server": "65535", "title": "Bridge",
           "url_q": "https://live.example.com/1_q.jpg", "height_q": 150, "width_q": 150,
           "url_m": "https://live.example.com/1_m.jpg", "height_m": 375, "width_m": 500,
           "url_o": "https://live.example.com/1_o.jpg", "height_o": 4000, "width_o": 6000},
          {"id": "22", "secret": "bb", "server": "65535", "title": {"_content": "Tower"}}
        ]}, "stat": "ok"}
        """
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .flickr)
        #expect(gallery.nextPage == .page(2))
        #expect(gallery.items.map(\.title) == ["Bridge", "Tower"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://live.example.com/1_q.jpg")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://live.example.com/1_m.jpg")
        #expect(gallery.items[1].thumbnailURL?.absoluteString == "https://live.staticflickr.com/65535/22_bb_q.jpg")
        #expect(gallery.items[1].imageURL?.absoluteString == "https://live.staticflickr.com/65535/22_bb_b.jpg")
    }
}
