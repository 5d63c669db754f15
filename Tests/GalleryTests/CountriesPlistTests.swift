import Foundation
import Testing
@testable import Gallery

@Suite("CountriesPlist")
struct CountriesPlistTests {
    @Test("reads the XML Countries plist, resolving relative URLs against the file")
    func xml() throws {
        // Given the classic Countries plist in /srv/galleries
        // When it is read
        let gallery = try Fixtures.read(Fixtures.countriesXML, from: Fixtures.plistFile)
        // Then every country is an item, in order, with its flag URL as thumbnail and image
        #expect(gallery.format == .countriesPlist)
        #expect(gallery.name == "flags.plist")
        #expect(gallery.items.map(\.title) == ["France", "Japan", "Brazil"])
        #expect(gallery.items[0].imageURL?.absoluteString == "file:///srv/galleries/flags/fr.png")
        #expect(gallery.items[0].thumbnailURL == gallery.items[0].imageURL)
        #expect(gallery.items[2].imageURL?.absoluteString == "http://127.0.0.1:8080/flags/br.png")
        #expect(gallery.items[1].fileName == "jp.png")
        #expect(gallery.nextPage == nil)
    }

    @Test("reads a binary plist with the list under another key and a gallery title")
    func binary() throws {
        // Given a binary plist whose flags sit under "flags", beside a non-item array
        let tree: [String: Any] = [
            "title": "Flags of\tthe world",
            "authors": ["Ann", "Bob"],
            "flags": [
                ["title": "Italy", "image": "it.png"],
                ["title": "Peru", "image": "pe.png", "thumbnail": "small/pe.png"],
            ],
        ]
        let data = try Fixtures.binaryPlist(tree)
        #expect(data.starts(with: Array("bplist00".utf8)))
        // When it is read
        let gallery = try GalleryReader.read(data, source: Fixtures.plistFile)
        // Then the item array is found, and the title names the gallery (sanitized)
        #expect(gallery.format == .countriesPlist)
        #expect(gallery.name == "Flags of the world")
        #expect(gallery.items.map(\.title) == ["Italy", "Peru"])
        #expect(gallery.items[1].thumbnailURL?.path == "/srv/galleries/small/pe.png")
        #expect(gallery.items[1].imageURL?.path == "/srv/galleries/pe.png")
    }

    @Test("reads a top-level array of dictionaries; a missing name falls back to the file name")
    func topLevelArray() throws {
        // Given a binary plist that is just an array, one entry without a name
        let data = try Fixtures.binaryPlist([["url": "flags/de.png"], ["name": "Chile", "url": "flags/cl.png"]])
        // When it is read
        let gallery = try GalleryReader.read(data, source: Fixtures.plistFile)
        // Then the nameless item is titled by its file name
        #expect(gallery.items.map(\.title) == ["de.png", "Chile"])
    }

    @Test("a url that is not a string fails its row only, naming the field")
    func wrongType() throws {
        // Given the fourth country's url is a number
        let list: [[String: Any]] = [
            ["name": "A", "url": "a.png"], ["name": "B", "url": "b.png"],
            ["name": "C", "url": "c.png"], ["name": "D", "url": 42],
        ]
        let data = try Fixtures.binaryPlist(["countries": list])
        // When it is read
        let gallery = try GalleryReader.read(data, source: Fixtures.plistFile)
        // Then the other countries open and D's row says which field is wrong
        #expect(gallery.items.map(\.title) == ["A", "B", "C", "D"])
        #expect(gallery.items.map(\.problem) == [nil, nil, nil, ".url: not a URL string (found a number)"])
        #expect(gallery.items[3].thumbnailURL == nil)
        #expect(gallery.items[2].imageURLString == "file:///srv/galleries/c.png")
    }

    @Test("a gallery whose only url is not a string is a shape error with its key path")
    func wrongTypeOnly() throws {
        let data = try Fixtures.binaryPlist(["countries": [["name": "D", "url": 42]]])
        #expect(throws: GalleryError.shape(
            source: "flags.plist", keyPath: ".countries[0].url", message: "not a URL string (found a number)"
        )) { try GalleryReader.read(data, source: Fixtures.plistFile) }
        let described = GalleryError.shape(
            source: "flags.plist", keyPath: ".countries[0].url", message: "not a URL string (found a number)"
        ).description
        #expect(described == "flags.plist: .countries[0].url: not a URL string (found a number)")
    }

    @Test("an XML syntax error names the line Foundation reports")
    func xmlSyntax() {
        // Given a close tag that does not match on line 7
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
            <key>countries</key>
            <array>
            </array>
        </dic>
        </plist>
        """
        // When it is read
        let error = Fixtures.error(xml, from: Fixtures.plistFile)
        // Then the error is on line 7
        #expect(error == .syntax(
            source: "flags.plist", line: 7, column: nil, message: "close tag does not match open tag dict"
        ))
        #expect(error?.description == "flags.plist:7: close tag does not match open tag dict")
    }

    @Test("a corrupt binary plist is reported as such")
    func corruptBinary() throws {
        // Given a valid binary plist cut short, and bytes that only start like one
        let whole = try Fixtures.binaryPlist(["countries": [["name": "A", "url": "a.png"]]])
        let expected = GalleryError.syntax(
            source: "flags.plist", line: nil, column: nil, message: "corrupt binary property list"
        )
        // When they are read, then both are corrupt binary plists (not a string gallery)
        #expect(throws: expected) { try GalleryReader.read(whole.prefix(whole.count - 6), source: Fixtures.plistFile) }
        #expect(throws: expected) { try GalleryReader.read(Data("bplist00garbage".utf8), source: Fixtures.plistFile) }
        #expect(expected.description == "flags.plist: corrupt binary property list")
    }

    @Test("an empty country list is an empty gallery")
    func empty() {
        // Given a plist whose countries array is empty
        let xml = """
        <?xml version="1.0"?><plist version="1.0"><dict><key>countries</key><array/></dict></plist>
        """
        // When it is read
        let error = Fixtures.error(xml, from: Fixtures.plistFile)
        // Then it says no items were found and what was expected
        #expect(error == .empty(source: "flags.plist"))
        #expect(error?.description == "flags.plist: no gallery items found (expected an array of items with an image URL)")
    }

    @Test("a plist without any list is unrecognised, naming its keys")
    func unrecognised() {
        let xml = """
        <?xml version="1.0"?><plist version="1.0"><dict><key>version</key><integer>2</integer>\
        <key>author</key><string>me</string></dict></plist>
        """
        #expect(Fixtures.error(xml, from: Fixtures.plistFile)?.description
            == "flags.plist: not a gallery: found an object with keys author, version (expected an array of items with an image URL)")
    }

    @Test("a binary plist holding a set is refused as corrupt (it crashed Foundation's reader)")
    func binarySet() throws {
        // Given the fuzz target's crash input: a binary plist whose top object is a set
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/corpus/plist/crash-binary-set.plist")
        let data = try Data(contentsOf: url)
        // When it is read, then it is an error, not a crash
        #expect(throws: GalleryError.syntax(source: "flags.plist", line: nil, column: nil, message: "corrupt binary property list")) {
            try GalleryReader.read(data, source: Fixtures.plistFile)
        }
        #expect(BinaryPlistCheck.isFreeOfSets(data) == false)
    }
}
