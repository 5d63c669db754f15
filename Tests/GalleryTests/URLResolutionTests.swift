import Foundation
import Testing
@testable import Gallery

@Suite("URLResolver")
struct URLResolutionTests {
    @Test("relative paths resolve against a file gallery's directory")
    func fileBase() throws {
        // Given a gallery in /srv/galleries with relative, rooted and spaced paths
        let json = #"["flags/fr.png", "/opt/pics/a.png", "my flag.png", "../up.png"]"#
        // When it is read
        let urls = try Fixtures.read(json).items.map { $0.imageURL?.absoluteString }
        // Then each is a file URL beside or above the gallery
        #expect(urls == [
            "file:///srv/galleries/flags/fr.png", "file:///opt/pics/a.png",
            "file:///srv/galleries/my%20flag.png", "file:///srv/up.png",
        ])
    }

    @Test("relative paths resolve against an http gallery's URL, query dropped")
    func httpBase() throws {
        let json = #"["flags/fr.png", "/img/b.png", "//cdn.example.com/c.png"]"#
        let urls = try Fixtures.read(json, from: Fixtures.httpJSON).items.map { $0.imageURL?.absoluteString }
        #expect(urls == [
            "http://127.0.0.1:8080/api/v1/flags/fr.png", "http://127.0.0.1:8080/img/b.png",
            "http://cdn.example.com/c.png",
        ])
    }

    @Test("absolute http(s), file and data URLs are kept as they are")
    func absolute() throws {
        let json = #"["https://images.example.com/x.png?s=1", "file:///tmp/y.png", "data:image/png;base64,iVBORw0KGgo="]"#
        let items = try Fixtures.read(json).items
        #expect(items.map { $0.imageURL?.absoluteString } == [
            "https://images.example.com/x.png?s=1", "file:///tmp/y.png", "data:image/png;base64,iVBORw0KGgo=",
        ])
        // And a data: URL has no file name, so the title falls back to "Item 3"
        #expect(items[2].fileName == "")
        #expect(items[2].title == "Item 3")
    }

    @Test("an invalid URL string is a shape error naming its key path")
    func invalid() {
        #expect(Fixtures.error(#"{"items": [{"title": "a", "url": "ok.png"}, {"title": "b", "url": "http://[::1"}]}"#)
            == .shape(source: "gallery.json", keyPath: "items[1].url", message: "not a valid URL: 'http://[::1'"))
    }

    @Test("unsupported schemes, and file: URLs in a remote gallery, are shape errors")
    func refusedSchemes() {
        #expect(Fixtures.error(#"[{"url": "javascript:alert(1)"}]"#)
            == .shape(source: "gallery.json", keyPath: "[0].url", message: "unsupported URL scheme 'javascript'"))
        #expect(Fixtures.error(#"[{"url": "file:///etc/passwd"}]"#, from: Fixtures.httpJSON)?.description
            == "gallery.json: [0].url: file: URL in a gallery read over http")
    }

    @Test("a gallery at a URL without a path is named by its host")
    func hostName() throws {
        let source = URL(string: "https://gallery.example.com/")!
        let gallery = try GalleryReader.read(Data(#"["a.png"]"#.utf8), source: source)
        #expect(gallery.name == "gallery.example.com")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://gallery.example.com/a.png")
    }
}

@Suite("URLResolver fast path")
struct URLResolverFastPathTests {
    @Test("joining plain relative paths gives what Foundation's resolution gives", arguments: [
        "file:///srv/galleries/gallery.json", "http://127.0.0.1:8080/api/v1/gallery.json?offset=0#top",
        "http://127.0.0.1:8080", "http://127.0.0.1:8080/", "https://h.example.com/a/b/", "file:///g.json",
        "http://user@127.0.0.1:9/x%20y/g.json",
    ])
    func sameAsFoundation(base: String) throws {
        let baseURL = try #require(URL(string: base))
        let resolver = URLResolver(base: baseURL)
        for relative in [
            "a.png", "pictures/12.jpg", "a/b/c.webp?w=1&h=2", "x.jpg#frag", "a%20b.png", "a..b/c.png", "a/./b.png",
            "a/../b.png", "./a.png", "../a.png", "/root.png", "//cdn.example.com/a.png", "?page=2", "#x", "a b.png",
            "é.png", "a/b/..", "a.", "a/.hidden/x.png", "~user/p.png", "a(1).png",
        ] {
            let expected = URL(string: relative, relativeTo: baseURL)?.absoluteURL
            let got = try? resolver.resolve(relative, at: .root)
            #expect(got?.absoluteString == expected?.absoluteString, "\(relative) against \(base)")
        }
    }
}
