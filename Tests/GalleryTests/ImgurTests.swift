import Foundation
import Testing
@testable import Gallery

@Suite("Imgur")
struct ImgurTests {
    @Test("album images: link as image, the 't' size as thumbnail, videos by their still")
    func album() throws {
        // Given an Imgur album response (invented ids on example hosts)
        let json = """
        {"data": {"id": "AbCd", "title": "My album", "images": [
          {"id": "x1", "title": null, "description": "A lake", "link": "https://i.example.com/x1.jpg", "type": "image/jpeg"},
          {"id": "x2", "title": "Clip", "link": "https://i.example.com/x2.mp4", "type": "video/mp4"},
          {"id": "x3", "title": "Logo", "link": "https://i.example.com/x3.png"}
        ]}, "success": true, "status": 200}
        """
        // When it is read
        let gallery = try Fixtures.read(json)
        // Then
        #expect(gallery.format == .imgur)
        #expect(gallery.name == "My album")
        #expect(gallery.items.map(\.title) == ["A lake", "Clip", "Logo"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://i.example.com/x1t.jpg")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://i.example.com/x1.jpg")
        #expect(gallery.items[1].imageURL?.absoluteString == "https://i.example.com/x2h.jpg")
        #expect(gallery.items[2].thumbnailURL?.absoluteString == "https://i.example.com/x3t.png")
    }
}
