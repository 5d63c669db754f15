import Foundation
import Testing
@testable import Gallery

@Suite("ITunesRSS")
struct ITunesRSSTests {
    @Test("smallest and largest im:image, im:name label, a lone entry object")
    func feed() throws {
        let json = """
        {"feed": {"title": {"label": "Top Albums"}, "entry": {
          "im:name": {"label": "Blue Record"},
          "im:image": [
            {"label": "https://art.example.com/55x55bb.png", "attributes": {"height": "55"}},
            {"label": "https://art.example.com/170x170bb.png", "attributes": {"height": "170"}},
            {"label": "https://art.example.com/60x60bb.png", "attributes": {"height": "60"}}
          ]}}}
        """
        let gallery = try Fixtures.read(json)
        #expect(gallery.format == .iTunesRSS)
        #expect(gallery.name == "Top Albums")
        #expect(gallery.items.map(\.title) == ["Blue Record"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "https://art.example.com/55x55bb.png")
        #expect(gallery.items[0].imageURL?.absoluteString == "https://art.example.com/170x170bb.png")
    }
}
