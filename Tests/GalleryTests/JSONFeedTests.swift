import Foundation
import Testing
@testable import Gallery

@Suite("JSONFeed")
struct JSONFeedTests {
    @Test("image as thumbnail, image attachment as full, next_url, feed title")
    func feed() throws {
        let json = """
        {"version": "https://jsonfeed.org/version/1.1", "title": "Photo blog", "next_url": "page2.json",
         "items": [
           {"id": "1", "title": "Morning", "image": "img/morning-small.jpg",
            "attachments": [{"url": "audio/x.mp3", "mime_type": "audio/mpeg"},
                            {"url": "img/morning.jpg", "mime_type": "image/jpeg"}]},
           {"id": "2", "content_text": "Evening walk", "banner_image": "img/evening.jpg"}
         ]}
        """
        let gallery = try Fixtures.read(json, from: Fixtures.httpJSON)
        #expect(gallery.format == .jsonFeed)
        #expect(gallery.name == "Photo blog")
        #expect(gallery.nextPage == .url(URL(string: "http://127.0.0.1:8080/api/v1/page2.json")!))
        #expect(gallery.items.map(\.title) == ["Morning", "Evening walk"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "http://127.0.0.1:8080/api/v1/img/morning-small.jpg")
        #expect(gallery.items[0].imageURL?.absoluteString == "http://127.0.0.1:8080/api/v1/img/morning.jpg")
        #expect(gallery.items[1].imageURL == gallery.items[1].thumbnailURL)
    }
}
