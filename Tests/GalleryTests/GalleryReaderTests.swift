import Foundation
import Testing
@testable import Gallery

@Suite("GalleryReader format detection")
struct GalleryReaderTests {
    @Test("an XML plist after a UTF-8 BOM and blank lines is still a plist")
    func bomXML() throws {
        // Given the Countries plist with a BOM and leading newlines
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(("\n\n" + Fixtures.countriesXML).utf8)
        // When it is read
        let gallery = try GalleryReader.read(data, source: Fixtures.plistFile)
        // Then it is detected as a plist
        #expect(gallery.format == .countriesPlist)
        #expect(gallery.items.count == 3)
    }

    @Test("a plist with its list nested deeper is found by the general search")
    func nestedPlist() throws {
        let data = try Fixtures.binaryPlist(["meta": ["v": 1], "content": ["flags": [["name": "Peru", "url": "pe.png"]]]])
        let gallery = try GalleryReader.read(data, source: Fixtures.plistFile)
        #expect(gallery.format == .generic)
        #expect(gallery.items.map(\.title) == ["Peru"])
    }

    @Test("a known format whose shape does not match falls back to the generic search")
    func fallbackToGenericSearch() throws {
        // Given JSON with Reddit's signature (kind Listing) whose children hold no Reddit posts,
        // but plain items with image URLs deeper down
        let json = #"{"kind": "Listing", "data": {"children": [{"x": 1}], "photos": [{"name": "A", "url": "https://e.example.com/a.jpg"}, {"name": "B", "url": "https://e.example.com/b.jpg"}]}}"#
        // When it is read
        let gallery = try Fixtures.read(json)
        // Then the generic search found the pictures
        #expect(gallery.format == .generic)
        #expect(gallery.items.map(\.title) == ["A", "B"])
        // And a forced preset gets no fallback: its own error stands
        #expect(throws: GalleryError.self) {
            try GalleryReader.read(Data(json.utf8), source: Fixtures.jsonFile, mapping: nil, preset: .reddit)
        }
    }
}
