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

    @Test("an invalid URL fails its own row, not the gallery")
    func invalid() throws {
        // Given a gallery whose second item has a malformed URL
        let gallery = try Fixtures.read(#"{"items": [{"title": "a", "url": "ok.png"}, {"title": "b", "url": "http://[::1"}]}"#)
        // Then both items are kept; the bad one has a problem and no URLs
        #expect(gallery.items.map(\.title) == ["a", "b"])
        #expect(gallery.items[0].problem == nil)
        #expect(gallery.items[1].problem == "not a valid URL: 'http://[::1'")
        #expect(gallery.items[1].thumbnailURL == nil && gallery.items[1].imageURL == nil)
    }

    @Test("unusable URLs are row problems", arguments: [
        ("javascript:alert(1)", Fixtures.jsonFile, "unsupported URL scheme 'javascript'"),
        ("http:///x.png", Fixtures.jsonFile, "not a valid URL: 'http:///x.png'"),
        ("file:///etc/passwd", Fixtures.httpJSON, "file: URL in a gallery read over http"),
        ("FILE:/etc/passwd", URL(string: "https://127.0.0.1/g.json")!, "file: URL in a gallery read over https"),
        ("file://fileserver/share/a.png", Fixtures.jsonFile, "file: URL on another host 'fileserver'"),
        ("//cdn.example.com/a.png", Fixtures.jsonFile, "protocol-relative URL '//cdn.example.com/a.png' in a local gallery"),
        ("a.png", URL(string: "data:application/json,%5B%5D")!, "relative URL 'a.png' in a gallery without a base (data:)"),
    ])
    func rowProblems(url: String, source: URL, problem: String) throws {
        // Given a usable item and one with `url`
        let json = #"[{"title": "good", "url": "http://127.0.0.1:9/a.png"}, {"title": "bad", "url": "\#(url)"}]"#
        let items = try Fixtures.read(json, from: source).items
        // Then the gallery reads, and the bad item carries the reason
        #expect(items.count == 2)
        #expect(items[0].problem == nil && items[0].imageURL != nil)
        #expect(items[1].title == "bad")
        #expect(items[1].problem == problem)
        #expect(items[1].thumbnailURLString == nil && items[1].imageURLString == nil)
    }

    @Test("a gallery where no item is usable fails with the first problem at its key path")
    func noUsableItem() {
        #expect(Fixtures.error(#"[{"url": "javascript:alert(1)"}]"#)
            == .shape(source: "gallery.json", keyPath: ".[0].url", message: "unsupported URL scheme 'javascript'"))
        #expect(Fixtures.error(#"[{"url": ""}, {"url": "file:///etc/passwd"}]"#, from: Fixtures.httpJSON)?.description
            == "gallery.json: .[1].url: file: URL in a gallery read over http")
    }

    @Test("an empty URL is missing, not a problem: the row shows no image")
    func emptyURL() throws {
        let items = try Fixtures.read(#"[{"title": "a", "url": "a.png"}, {"title": "b", "url": "  "}]"#).items
        #expect(items[1].problem == nil)
        #expect(items[1].hasURL == false)
    }

    @Test("protocol-relative URLs take the scheme of an http(s) gallery, ports included")
    func protocolRelative() throws {
        let json = #"["//cdn.example.com/a.png", "//127.0.0.1:8443/b.png", "//[::1]:9/c.png"]"#
        let https = URL(string: "https://127.0.0.1/api/g.json")!
        let urls = try Fixtures.read(json, from: https).items.map(\.imageURLString)
        #expect(urls == ["https://cdn.example.com/a.png", "https://127.0.0.1:8443/b.png", "https://[::1]:9/c.png"])
    }

    @Test("a colon later in a relative path does not make it a scheme")
    func colonInPath() throws {
        let urls = try Fixtures.read(#"["photos/12:30.jpg", "2020:01.jpg"]"#).items.map(\.imageURLString)
        #expect(urls == ["file:///srv/galleries/photos/12:30.jpg", "file:///srv/galleries/2020:01.jpg"])
    }

    @Test("scheme detection follows RFC 3986")
    func schemes() {
        #expect(URLResolver.hasScheme("https://x"))
        #expect(URLResolver.hasScheme("data:image/png,"))
        #expect(URLResolver.hasScheme("svn+ssh:x"))
        #expect(!URLResolver.hasScheme("//h:8080/a"))
        #expect(!URLResolver.hasScheme("a/b:c"))
        #expect(!URLResolver.hasScheme("2020:01.jpg"))
        #expect(!URLResolver.hasScheme(":x"))
        #expect(!URLResolver.hasScheme("plain.png"))
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
            "é.png", "a/b/..", "a.", "a/.hidden/x.png", "~user/p.png", "a(1).png", "a%2Fb.png", "a%zz.png", "a%2",
        ] {
            // A local gallery refuses protocol-relative URLs (see rowProblems).
            if relative.hasPrefix("//"), baseURL.isFileURL { continue }
            let expected = URL(string: relative, relativeTo: baseURL)?.absoluteURL
            let got = resolver.resolve(relative, at: .root)?.string
            #expect(got == expected?.absoluteString, "\(relative) against \(base)")
        }
    }
}
