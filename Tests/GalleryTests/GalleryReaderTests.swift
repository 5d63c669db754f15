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

    @Test("an image given as the gallery says so and points at render")
    func imageInsteadOfGallery() throws {
        // Given the first bytes of a real PNG and a real JPEG fixture
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let png = try Data(contentsOf: root.appendingPathComponent("Fixtures/images/1x1.png"))
        let jpeg = try Data(contentsOf: root.appendingPathComponent("Fixtures/images/progressive.jpg"))
        for (data, kind) in [(png, "PNG"), (jpeg, "JPEG")] {
            // When each is read as a gallery
            do {
                _ = try GalleryReader.read(data, source: URL(fileURLWithPath: "/tmp/photo.x"))
                Issue.record("\(kind) read as a gallery")
            } catch {
                // Then the error names the image kind and the render command
                #expect("\(error)".contains("a \(kind) image, not a gallery (to show one image, use vitrine render)"))
            }
        }
        // And text that merely mentions a signature is still read as a gallery
        #expect(GalleryReader.imageKind(Data(#"[{"title": "GIF89a", "url": "a.gif"}]"#.utf8)) == nil)
    }
}
