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

    @Test("a gallery list: albums among the posts show their images, titled by the album")
    func galleryList() throws {
        // Given the gallery endpoint's list: an image post and an album post with two images
        let json = #"""
            {"success": true, "status": 200, "data": [
              {"id": "a1", "title": "Single", "link": "https://i.imgur.com/a1.png", "is_album": false},
              {"id": "b", "title": "Trip", "is_album": true, "link": "https://imgur.com/a/b", "images": [
                {"id": "b1", "title": null, "link": "https://i.imgur.com/b1.jpg"},
                {"id": "b2", "title": "Beach", "link": "https://i.imgur.com/b2.jpg"}]}]}
            """#
        // When it is read
        let gallery = try Fixtures.read(json)
        // Then the album's place holds its two images
        #expect(gallery.format == .imgur)
        #expect(gallery.items.map(\.title) == ["Single", "Trip", "Beach"])
        #expect(gallery.items.map(\.thumbnailURLString) == [
            "https://i.imgur.com/a1t.png", "https://i.imgur.com/b1t.jpg", "https://i.imgur.com/b2t.jpg",
        ])
    }
}
