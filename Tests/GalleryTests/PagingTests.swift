import Foundation
import Testing
@testable import Gallery

@Suite("LinkHeader")
struct LinkHeaderTests {
    let base = URL(string: "http://127.0.0.1:8080/api/v1/timelines/public?limit=2")!

    @Test("finds rel=next among several links, quoted or not")
    func next() {
        let header = #"<http://127.0.0.1:8080/api?max_id=9>; rel="next", <http://127.0.0.1:8080/api?min_id=12>; rel="prev""#
        #expect(LinkHeader.next(from: header)?.absoluteString == "http://127.0.0.1:8080/api?max_id=9")
        let reversed = #"<https://h.example.com/p1>; rel=prev, <https://h.example.com/p3>; rel=next"#
        #expect(LinkHeader.next(from: reversed)?.absoluteString == "https://h.example.com/p3")
    }

    @Test("rel may hold several values and be in any case; other parameters are skipped")
    func relations() {
        let header = #"<https://h.example.com/a?page=3>; title="Page, three"; REL="last NEXT""#
        #expect(LinkHeader.next(from: header)?.absoluteString == "https://h.example.com/a?page=3")
    }

    @Test("commas inside the URL and inside quoted parameters do not split links")
    func commas() {
        let header = #"<https://h.example.com/a?ids=1,2,3>; title="x, y"; rel="next""#
        #expect(LinkHeader.next(from: header)?.absoluteString == "https://h.example.com/a?ids=1,2,3")
    }

    @Test("relative targets resolve against the request URL")
    func relative() {
        #expect(LinkHeader.next(from: #"</api/v1/timelines/public?max_id=5>; rel="next""#, relativeTo: base)?.absoluteString
            == "http://127.0.0.1:8080/api/v1/timelines/public?max_id=5")
        #expect(LinkHeader.next(from: #"<?page=2>; rel="next""#, relativeTo: base)?.absoluteString
            == "http://127.0.0.1:8080/api/v1/timelines/public?page=2")
    }

    @Test("no next link, malformed headers and non-http targets give nil", arguments: [
        #"<https://h.example.com/p1>; rel="prev""#,
        "",
        "garbage",
        #"https://h.example.com/p2; rel="next""#,
        #"<https://h.example.com/p2; rel="next""#,
        #"<file:///etc/passwd>; rel="next""#,
        #"<javascript:alert(1)>; rel="next""#,
        #"<>; rel="nextpage""#,
    ])
    func none(header: String) {
        #expect(LinkHeader.next(from: header, relativeTo: base) == nil)
    }

    @Test("parses every link with its parameters")
    func links() {
        let links = LinkHeader.links(in: #"<a>; rel="next"; type=json , <b>;rel=last"#)
        #expect(links == [
            LinkHeader.Link(target: "a", parameters: ["rel": "next", "type": "json"]),
            LinkHeader.Link(target: "b", parameters: ["rel": "last"]),
        ])
    }
}

@Suite("Paging")
struct PagingTests {
    /// A JSON Feed page `k` of 3, with relative `next_url`s.
    func feedPage(_ k: Int) -> String {
        let next = k < 3 ? #", "next_url": "feed.json?page=\#(k + 1)""# : ""
        return #"{"version": "https://jsonfeed.org/version/1.1", "title": "Feed"\#(next), "items": [{"id": "\#(k)", "title": "Item \#(k)", "image": "/img/\#(k).png"}]}"#
    }

    @Test("follows next_url across three pages and stops after the last")
    func threeFeedPages() throws {
        // Given the first page's URL
        var url = URL(string: "http://127.0.0.1:9/feed.json")!
        var gallery = try GalleryReader.read(Data(feedPage(1).utf8), source: url)
        var fetched = [url.absoluteString]
        // When each next page is read and appended
        while let next = gallery.nextPageURL(after: url) {
            let page = Int(URLComponents(url: next, resolvingAgainstBaseURL: false)?.queryItems?.first?.value ?? "") ?? 0
            #expect(page <= 3)
            gallery.append(page: try GalleryReader.read(Data(feedPage(page).utf8), source: next))
            url = next
            fetched.append(next.absoluteString)
        }
        // Then all three pages were fetched, in order, and their items kept
        #expect(fetched == [
            "http://127.0.0.1:9/feed.json", "http://127.0.0.1:9/feed.json?page=2", "http://127.0.0.1:9/feed.json?page=3",
        ])
        #expect(gallery.items.map(\.title) == ["Item 1", "Item 2", "Item 3"])
        #expect(gallery.items[2].imageURL?.absoluteString == "http://127.0.0.1:9/img/3.png")
        #expect(gallery.nextPage == nil)
    }

    @Test("DeviantArt offsets build three successive requests from the last one")
    func threeOffsetPages() throws {
        var request = URL(string: "http://127.0.0.1:9/api/v1/oauth2/gallery/all?limit=24")!
        var urls: [String] = []
        for offset in [24, 48] {
            let gallery = Gallery(name: "g", source: request, items: [], format: .deviantArt, nextPage: .deviantArtOffset(offset))
            request = try #require(gallery.nextPageURL(after: request))
            urls.append(request.absoluteString)
        }
        let last = Gallery(name: "g", source: request, items: [], format: .deviantArt, nextPage: nil)
        #expect(last.nextPageURL(after: request) == nil)
        #expect(urls == [
            "http://127.0.0.1:9/api/v1/oauth2/gallery/all?limit=24&offset=24",
            "http://127.0.0.1:9/api/v1/oauth2/gallery/all?limit=24&offset=48",
        ])
    }

    @Test("the Link header is used when the body says nothing")
    func linkHeaderFallback() {
        let request = URL(string: "http://127.0.0.1:9/api/v1/timelines/public")!
        let gallery = Gallery(name: "g", source: request, items: [], format: .mastodon)
        #expect(gallery.nextPageURL(after: request, linkHeader: #"</api/v1/timelines/public?max_id=7>; rel="next""#)?.absoluteString
            == "http://127.0.0.1:9/api/v1/timelines/public?max_id=7")
        #expect(gallery.nextPageURL(after: request) == nil)
        // The body wins over the header.
        let paged = Gallery(name: "g", source: request, items: [], format: .unsplash, nextPage: .page(2))
        #expect(paged.nextPageURL(after: request, linkHeader: #"<https://h.example.com/x>; rel="next""#)?.absoluteString
            == "http://127.0.0.1:9/api/v1/timelines/public?page=2")
    }

    @Test("a next page equal to the current one, or a file: URL from a remote page, is refused")
    func loops() {
        let request = URL(string: "http://127.0.0.1:9/feed.json")!
        let same = Gallery(name: "g", source: request, items: [], format: .jsonFeed, nextPage: .url(request))
        #expect(same.nextPageURL(after: request) == nil)
        let local = Gallery(name: "g", source: request, items: [], format: .jsonFeed, nextPage: .url(URL(fileURLWithPath: "/etc/passwd")))
        #expect(local.nextPageURL(after: request) == nil)
        let samePage = Gallery(name: "g", source: request, items: [], format: .flickr, nextPage: .page(2))
        let page2 = URL(string: "http://127.0.0.1:9/feed.json?page=2")!
        #expect(samePage.nextPageURL(after: page2) == nil)
    }

    @Test("an unusable next_url keeps the page's items and says why the next page fails")
    func unusableNextLink() throws {
        // Given a remote feed whose items are fine and whose next_url is a file: URL
        let request = URL(string: "http://127.0.0.1:9/feed.json")!
        let text = #"{"version": "https://jsonfeed.org/version/1.1", "next_url": "file:///etc/passwd", "items": [{"id": "1", "title": "A", "image": "a.png"}]}"#
        // When it is read
        let gallery = try GalleryReader.read(Data(text.utf8), source: request)
        // Then the page stands and only the next page has a problem
        #expect(gallery.items.map(\.title) == ["A"])
        let link = gallery.nextPageLink(after: request)
        #expect(link.url == nil)
        #expect(link.problem == ".next_url: file: URL in a gallery read over http")
        // And a number no Double holds, in a field nobody reads, costs nothing
        let huge = #"{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": "1", "title": "A", "image": "a.png", "w": 1e999}]}"#
        #expect(try GalleryReader.read(Data(huge.utf8), source: request).items.count == 1)
    }
}
