import Foundation
import Testing
@testable import Gallery

@Suite("MediaWiki")
struct MediaWikiTests {
    @Test("pages object in index order, File: dropped, thumburl, continue")
    func imageinfo() throws {
        // Given a generator=categorymembers response, pages keyed by id, out of index order
        let json = """
        {"batchcomplete": "", "continue": {"gcmcontinue": "file|42", "continue": "gcmcontinue||"},
         "query": {"pages": {
           "900": {"pageid": 900, "ns": 6, "title": "File:Zebra.jpg", "index": 2, "imagerepository": "local",
                   "imageinfo": [{"url": "https://upload.example.org/a/ab/Zebra.jpg", "width": 3000, "height": 2000,
                                  "thumburl": "https://upload.example.org/thumb/a/ab/Zebra.jpg/200px-Zebra.jpg",
                                  "thumbwidth": 200, "thumbheight": 133}]},
           "15": {"pageid": 15, "ns": 6, "title": "File:Aardvark.png", "index": 1,
                  "imageinfo": [{"url": "https://upload.example.org/c/cd/Aardvark.png", "width": 800, "height": 600}]},
           "77": {"pageid": 77, "ns": 14, "title": "Category:Animals", "index": 3}
         }}}
        """
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .mediaWiki)
        #expect(gallery.items.map(\.title) == ["Aardvark", "Zebra"])
        #expect(gallery.items[1].thumbnailURL?.absoluteString == "https://upload.example.org/thumb/a/ab/Zebra.jpg/200px-Zebra.jpg")
        #expect(gallery.items[1].imageURL?.absoluteString == "https://upload.example.org/a/ab/Zebra.jpg")
        #expect(gallery.nextPage == .mediaWikiContinue(["gcmcontinue": "file|42", "continue": "gcmcontinue||"]))
        let request = URL(string: "http://127.0.0.1:8080/w/api.php?action=query&continue=")!
        #expect(gallery.nextPage?.url(after: request)?.absoluteString
            == "http://127.0.0.1:8080/w/api.php?action=query&continue=gcmcontinue%7C%7C&gcmcontinue=file%7C42")
    }

    @Test("formatversion=2 pages array")
    func pagesArray() throws {
        let json = #"{"query": {"pages": [{"title": "File:One.gif", "imageinfo": [{"url": "https://upload.example.org/One.gif"}]}]}}"#
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .mediaWiki)
        #expect(gallery.items.map(\.title) == ["One"])
        #expect(gallery.nextPage == nil)
    }
}
