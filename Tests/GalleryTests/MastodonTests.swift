import Foundation
import Testing
@testable import Gallery

@Suite("Mastodon")
struct MastodonTests {
    @Test("one item per attachment, boosts followed, alt text or status text as title")
    func timeline() throws {
        // Given three statuses: two attachments, none, and a boost with a video
        let json = """
        [
          {"id": "1", "content": "<p>Two <b>birds</b> &amp; a tree</p>", "reblog": null, "media_attachments": [
            {"id": "a", "type": "image", "url": "https://files.example.social/a/original.jpg",
             "preview_url": "https://files.example.social/a/small.jpg", "description": "A robin",
             "meta": {"original": {"width": 2000, "height": 1500}, "small": {"width": 400, "height": 300}}},
            {"id": "b", "type": "image", "url": "https://files.example.social/b/original.png",
             "preview_url": "https://files.example.social/b/small.png", "description": null}
          ]},
          {"id": "2", "content": "<p>no media</p>", "media_attachments": []},
          {"id": "3", "content": "", "media_attachments": [], "reblog": {"id": "9", "content": "<p>clip</p>",
            "media_attachments": [{"id": "v", "type": "video", "url": "https://files.example.social/v.mp4",
              "preview_url": "https://files.example.social/v.png", "description": "Waves"}]}}
        ]
        """
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .mastodon)
        #expect(gallery.items.map(\.title) == ["A robin", "Two birds & a tree", "Waves"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://files.example.social/a/small.jpg")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://files.example.social/a/original.jpg")
        // And a video is shown by its preview still, never the .mp4
        #expect(gallery.items[2].imageURL?.absoluteString == "https://files.example.social/v.png")
    }

    @Test("a timeline without media is empty")
    func noMedia() {
        #expect(Fixtures.error(#"[{"id": "1", "content": "hi", "media_attachments": []}]"#) == .empty(source: "gallery.json"))
    }
}
