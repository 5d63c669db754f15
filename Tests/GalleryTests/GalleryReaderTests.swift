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
}
