import Foundation
import Testing
@testable import Gallery

@Suite("Reddit")
struct RedditTests {
    /// A listing with an image post, a gallery post, a self post and a comment (invented).
    static let listing = """
    {"kind": "Listing", "data": {"after": "t3_zz9", "before": null, "children": [
      {"kind": "t3", "data": {
        "title": "Cats &amp; dogs", "url": "https://i.example.com/cat.jpg",
        "thumbnail": "https://thumbs.example.com/cat.jpg", "thumbnail_width": 140,
        "preview": {"images": [{
          "source": {"url": "https://preview.example.com/cat.jpg?width=1080&amp;s=abc", "width": 1080, "height": 720},
          "resolutions": [
            {"url": "https://preview.example.com/cat.jpg?width=320&amp;s=def", "width": 320, "height": 213},
            {"url": "https://preview.example.com/cat.jpg?width=108&amp;s=ghi", "width": 108, "height": 72}
          ]}]}
      }},
      {"kind": "t3", "data": {
        "title": "Trip", "is_gallery": true, "url": "https://www.example.com/gallery/abc",
        "gallery_data": {"items": [{"media_id": "m1", "id": 1}, {"media_id": "m2", "id": 2, "caption": "Second"}]},
        "media_metadata": {
          "m1": {"status": "valid", "e": "Image", "m": "image/jpg",
                 "p": [{"u": "https://preview.example.com/m1.jpg?width=108&amp;s=1", "x": 108, "y": 81}],
                 "s": {"u": "https://preview.example.com/m1.jpg?width=2000&amp;s=2", "x": 2000, "y": 1500}},
          "m2": {"status": "valid", "e": "AnimatedImage", "m": "image/gif",
                 "p": [], "s": {"gif": "https://i.example.com/m2.gif", "x": 400, "y": 300}}
        }
      }},
      {"kind": "t3", "data": {"title": "Just text", "is_self": true, "thumbnail": "self", "url": "https://www.example.com/r/x/comments/1/"}},
      {"kind": "t1", "data": {"body": "a comment"}}
    ]}}
    """

    @Test("maps posts, expands gallery posts, unescapes &amp;, pages by after")
    func listing() throws {
        // Given a subreddit listing fetched over http
        let gallery = try Fixtures.read(Self.listing, from: Fixtures.httpJSON)
        // Then it is a Reddit listing with the next page's cursor
        #expect(gallery.format == .reddit)
        #expect(gallery.nextPage == .redditAfter("t3_zz9"))
        // And one item per post picture, the comment skipped
        #expect(gallery.items.map(\.title) == ["Cats & dogs", "Trip (1/2)", "Second", "Just text"])
        let cat = gallery.items[0]
        #expect(cat.thumbnailURL?.absoluteString == "https://preview.example.com/cat.jpg?width=108&s=ghi")
        #expect(cat.imageURL?.absoluteString == "https://preview.example.com/cat.jpg?width=1080&s=abc")
        #expect(gallery.items[1].imageURL?.absoluteString == "https://preview.example.com/m1.jpg?width=2000&s=2")
        #expect(gallery.items[1].thumbnailURL?.absoluteString == "https://preview.example.com/m1.jpg?width=108&s=1")
        #expect(gallery.items[2].imageURL?.absoluteString == "https://i.example.com/m2.gif")
        // And the self post is kept without a picture ("self" is not a thumbnail URL)
        #expect(gallery.items[3].imageURL == nil)
    }

    @Test("a post page (array of listings) reads the post; a link post uses its image url")
    func postPage() throws {
        let json = """
        [{"kind": "Listing", "data": {"after": null, "children": [{"kind": "t3", "data":
           {"title": "Direct", "url": "https://i.example.com/direct.png", "thumbnail": "default"}}]}},
         {"kind": "Listing", "data": {"children": [{"kind": "t1", "data": {}}]}}]
        """
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .reddit)
        #expect(gallery.nextPage == nil)
        #expect(gallery.items.first?.imageURL?.absoluteString == "https://i.example.com/direct.png")
    }

    @Test("a preview source url of the wrong type fails that post's row; alone, the gallery, at its path")
    func wrongType() throws {
        let bad = #"{"kind": "t3", "data": {"title": "x", "preview": {"images": [{"source": {"url": 5}}]}}}"#
        let good = #"{"kind": "t3", "data": {"title": "y", "url": "https://i.example.com/y.jpg"}}"#
        let json = #"{"kind": "Listing", "data": {"children": [\#(bad)]}}"#
        #expect(Fixtures.error(json)?.description
            == "gallery.json: .data.children[0].data.preview.images[0].source.url: not a URL string (found a number)")
        let both = try Fixtures.read(#"{"kind": "Listing", "data": {"children": [\#(bad), \#(good)]}}"#)
        #expect(both.items.map(\.problem) == [".preview.images[0].source.url: not a URL string (found a number)", nil])
        #expect(both.items[1].imageURLString == "https://i.example.com/y.jpg")
    }
}
