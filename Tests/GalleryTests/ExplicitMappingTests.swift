import Foundation
import Testing
@testable import Gallery

@Suite("Explicit mapping")
struct ExplicitMappingTests {
    /// An invented photo API no built-in reader knows.
    static let custom = """
    {"results": {"total": 3, "cursor": "c2", "photos": [
        {"id": 101, "caption": {"text": "Harbour"}, "files": {"small": "/t/101.jpg", "large": "/f/101.jpg"}},
        {"id": 102, "caption": null, "alt": "Bridge", "files": {"large": "/f/102.jpg"}},
        {"id": 103, "caption": {"text": "Market"}, "files": {"small": "/t/103.jpg", "large": "/f/103.jpg"}}
    ]}}
    """
    static let source = URL(string: "http://127.0.0.1:8080/api/photos.json?limit=3")!

    func read(_ text: String = custom, from source: URL = source, mapping: GalleryMapping?, preset: GalleryFormat? = nil) throws(GalleryError) -> Gallery {
        try GalleryReader.read(Data(text.utf8), source: source, mapping: mapping, preset: preset)
    }

    func error(_ text: String = custom, from source: URL = source, mapping: GalleryMapping?, preset: GalleryFormat? = nil) -> GalleryError? {
        do {
            _ = try read(text, from: source, mapping: mapping, preset: preset)
            return nil
        } catch {
            return error
        }
    }

    @Test("every field mapped: items, title with fallback, thumb, image, next")
    func fullMapping() throws {
        // Given a mapping for every field
        let mapping = try GalleryMapping(
            items: ".results.photos[]", title: ".caption.text // .alt", thumb: ".files.small",
            image: ".files.large", next: #""?cursor=\(.results.cursor)""#)
        // When the gallery is read with it
        let gallery = try read(mapping: mapping)
        // Then each item has its fields, relative URLs resolved against the gallery's URL
        #expect(gallery.format == .mapped)
        #expect(gallery.items.map(\.title) == ["Harbour", "Bridge", "Market"])
        #expect(gallery.items[0].thumbnailURL?.absoluteString == "http://127.0.0.1:8080/t/101.jpg")
        #expect(gallery.items[0].imageURL?.absoluteString == "http://127.0.0.1:8080/f/101.jpg")
        // and an item without a thumbnail falls back to its image
        #expect(gallery.items[1].thumbnailURL?.absoluteString == "http://127.0.0.1:8080/f/102.jpg")
        // and the next page replaces the query
        #expect(gallery.nextPage == .url(URL(string: "http://127.0.0.1:8080/api/photos.json?cursor=c2")!))
    }

    @Test("only --thumb mapped: the image is the thumbnail, not a caption that looks like a file name")
    func oneURLMappedIsBoth() throws {
        // Given items whose caption ends in .png, mapped with --title and --thumb only
        let text = #"[{"caption": "Sunset.png", "link": "a.png"}, {"label": "b.JPG", "link": "b.jpg"}]"#
        let source = URL(fileURLWithPath: "/tmp/r/g.json")
        let thumbOnly = try read(text, from: source, mapping: GalleryMapping(title: ".caption // .label", thumb: ".link"))
        // Then each item's image is its thumbnail, and the title stays the caption
        #expect(thumbOnly.items.map(\.imageURLString) == ["file:///tmp/r/a.png", "file:///tmp/r/b.jpg"])
        #expect(thumbOnly.items.map(\.thumbnailURLString) == ["file:///tmp/r/a.png", "file:///tmp/r/b.jpg"])
        #expect(thumbOnly.items.map(\.title) == ["Sunset.png", "b.JPG"])
        // And the same the other way round with --image only
        let imageOnly = try read(text, from: source, mapping: GalleryMapping(title: ".caption // .label", image: ".link"))
        #expect(imageOnly.items.map(\.thumbnailURLString) == ["file:///tmp/r/a.png", "file:///tmp/r/b.jpg"])
    }

    @Test("a path to one array without [] takes its elements")
    func arrayWithoutIterate() throws {
        let gallery = try read(mapping: GalleryMapping(items: ".results.photos", image: ".files.large"))
        #expect(gallery.items.count == 3)
    }

    @Test("templates build URLs from ids")
    func templates() throws {
        let mapping = try GalleryMapping(
            items: ".results.photos[]", thumb: #""https://img.example.com/\(.id)_s.jpg""#,
            image: #""https://img.example.com/\(.id).jpg""#)
        let gallery = try read(mapping: mapping)
        #expect(gallery.items.map { $0.imageURL?.absoluteString ?? "" } == [
            "https://img.example.com/101.jpg", "https://img.example.com/102.jpg", "https://img.example.com/103.jpg",
        ])
        #expect(gallery.items[2].thumbnailURL?.absoluteString == "https://img.example.com/103_s.jpg")
        // No title expression: the usual names are guessed (caption, a language-map-like
        // object; alt for the second item).
        #expect(gallery.items.map(\.title) == ["Harbour", "Bridge", "Market"])
    }

    @Test("fields not mapped are guessed; --items alone is enough for usual names")
    func itemsOnly() throws {
        let text = #"{"payload": {"list": [{"name": "A", "url": "a.png"}, {"name": "B", "url": "b.png"}]}, "meta": [{"title": "x", "url": "m.png"}]}"#
        let gallery = try read(text, from: Fixtures.jsonFile, mapping: GalleryMapping(items: ".payload.list[]"))
        #expect(gallery.items.map(\.title) == ["A", "B"])
        #expect(gallery.items[1].imageURL?.path == "/srv/galleries/b.png")
    }

    @Test("fields without --items use the array the generic search picks")
    func fieldsOnly() throws {
        let gallery = try read(mapping: GalleryMapping(title: ".caption.text", image: ".files.large"))
        #expect(gallery.items.count == 3)
        #expect(gallery.items[2].title == "Market")
    }

    @Test("--items that matches nothing names the step and the keys there")
    func itemsMiss() throws {
        let e = error(mapping: try GalleryMapping(items: ".data.images[]"))
        #expect(e?.description == "photos.json: --items .data.images[]: .data matched nothing (keys at top level: results)")
        let e2 = error(mapping: try GalleryMapping(items: ".results.photos[5]"))
        #expect(e2?.description == "photos.json: --items .results.photos[5]: .results.photos[5] matched nothing (.results.photos has 3 elements)")
    }

    @Test("a field that matches nothing in any item is an error naming the first item")
    func fieldMiss() throws {
        let e = error(mapping: try GalleryMapping(items: ".results.photos[]", image: ".files.huge"))
        #expect(e == .mapping(
            source: "photos.json", expression: "--image .files.huge",
            message: ".files.huge matched nothing (keys at .results.photos[0].files: large, small) (the same in all 3 items)"))
    }

    @Test("a field that matches in some items only is not an error")
    func fieldPartial() throws {
        let gallery = try read(mapping: try GalleryMapping(items: ".results.photos[]", title: ".caption.text", image: ".files.large"))
        #expect(gallery.items.map(\.title) == ["Harbour", "102.jpg", "Market"])
    }

    @Test("a wrong type is a shape error at the key path")
    func wrongType() throws {
        let e = error(mapping: try GalleryMapping(items: ".results.photos[]", image: ".id"))
        #expect(e == .shape(source: "photos.json", keyPath: ".results.photos[0].id", message: "not a URL string (found a number)"))
    }

    @Test("a --thumb that lands on a number in some items fails those rows only, naming the field")
    func wrongTypeSomeItems() throws {
        // Given --thumb .t, a string in two items and a number in one
        let text = #"{"data": [{"id": "a", "t": "https://img.example.com/a.jpg"}, {"id": "b", "t": 12}, {"id": "c", "t": "c.jpg"}]}"#
        // When it is mapped
        let gallery = try read(text, mapping: try GalleryMapping(items: ".data[]", title: ".id", thumb: ".t"))
        // Then the second row fails with the field's path, the others keep their URLs
        #expect(gallery.items.map(\.problem) == [nil, ".t: not a URL string (found a number)", nil])
        #expect(gallery.items[0].thumbnailURLString == "https://img.example.com/a.jpg")
        #expect(gallery.items[2].thumbnailURLString == "http://127.0.0.1:8080/api/c.jpg")
    }

    @Test("a remote gallery may not map to file: URLs (every item's row would fail: the gallery fails)")
    func fileURLFromRemote() throws {
        let e = error(mapping: try GalleryMapping(items: ".results.photos[]", image: #""file:///etc/\(.id)""#))
        #expect(e?.description == "photos.json: .results.photos[0]: file: URL in a gallery read over http")
    }

    @Test("a mapping that gives one item an unusable URL fails that item only")
    func oneUnusableMapped() throws {
        let text = #"[{"id": 1, "u": "https://img.example.com/1.jpg"}, {"id": 2, "u": "file:///etc/passwd"}, {"id": 3, "u": "javascript:x"}]"#
        let gallery = try read(text, mapping: try GalleryMapping(title: #""n\(.id)""#, image: ".u"))
        #expect(gallery.items.map(\.title) == ["n1", "n2", "n3"])
        #expect(gallery.items.map(\.problem) == [nil, "file: URL in a gallery read over http", "unsupported URL scheme 'javascript'"])
        #expect(gallery.items[1].imageURL == nil)
    }

    @Test("an unusable --image replaces a guessed URL, and a usable one replaces an unusable guess")
    func explicitOverridesGuess() throws {
        let text = #"[{"url": "file:///etc/passwd", "big": "https://img.example.com/1.jpg"}, {"url": "https://img.example.com/2.jpg", "big": "javascript:x"}]"#
        let gallery = try read(text, mapping: try GalleryMapping(image: ".big"))
        #expect(gallery.items[0].problem == nil)
        #expect(gallery.items[0].imageURLString == "https://img.example.com/1.jpg")
        #expect(gallery.items[1].problem == "unsupported URL scheme 'javascript'")
    }

    @Test("--next alone keeps the detected format and sets the next page")
    func nextOnly() throws {
        let text = #"[{"title": "A", "url": "a.png"}]"#
        let mapping = try GalleryMapping(next: #""page2.json""#)
        let gallery = try read(text, mapping: mapping)
        #expect(gallery.format == .plainArray)
        #expect(gallery.nextPage == .url(URL(string: "http://127.0.0.1:8080/api/page2.json")!))
        // A --next that matches nothing means the last page.
        let last = try read(text, mapping: try GalleryMapping(next: ".next"))
        #expect(last.nextPage == nil)
    }

    @Test("an empty array of items is reported as empty")
    func emptyItems() throws {
        #expect(error(#"{"a": []}"#, mapping: try GalleryMapping(items: ".a")) == .empty(source: "photos.json"))
    }
}

@Suite("Presets")
struct PresetTests {
    @Test("every format but .mapped, .textList and .files is a preset, by raw value, forgiving case and dashes")
    func names() throws {
        #expect(GalleryFormat.presets.count == GalleryFormat.allCases.count - 3)
        #expect(!GalleryFormat.presets.contains(.mapped) && !GalleryFormat.presets.contains(.textList))
        #expect(!GalleryFormat.presets.contains(.files))
        #expect(try GalleryFormat(preset: "reddit") == .reddit)
        #expect(try GalleryFormat(preset: "iiif-v3") == .iiifV3)
        #expect(try GalleryFormat(preset: "ITUNESRSS") == .iTunesRSS)
    }

    @Test("an unknown name lists the valid ones")
    func unknown() {
        do {
            _ = try GalleryFormat(preset: "tumblr")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("unknown preset 'tumblr' (valid: countriesPlist, plainArray, deviantArt, reddit,"))
            #expect(error.description.hasSuffix("iTunesRSS, generic)"))
            #expect(!error.description.contains("mapped"))
        }
    }

    @Test("a preset forces its reader even when another signature matches")
    func forced() throws {
        // Given a DeviantArt-looking response (has_more) whose items also read as a plain array
        let text = #"{"has_more": false, "results": [{"title": "A", "url": "https://x.example.com/a.png", "content": {"src": "https://x.example.com/full.png"}}]}"#
        let detected = try GalleryReader.read(Data(text.utf8), source: Fixtures.jsonFile)
        #expect(detected.format == .deviantArt)
        #expect(detected.items.first?.imageURL?.absoluteString == "https://x.example.com/full.png")
        // When the generic reader is forced, it reads the url field DeviantArt ignores
        let forced = try GalleryReader.read(Data(text.utf8), source: Fixtures.jsonFile, mapping: nil, preset: .generic)
        #expect(forced.format == .generic)
        #expect(forced.items.first?.imageURL?.absoluteString == "https://x.example.com/a.png")
    }

    @Test("a preset that does not fit reports the shape it expected")
    func misfit() {
        let text = #"[{"title": "A", "url": "a.png"}]"#
        #expect(throws: GalleryError.self) {
            try GalleryReader.read(Data(text.utf8), source: Fixtures.jsonFile, mapping: nil, preset: .reddit)
        }
        #expect(ObjectIdentifier(GalleryReader.reader(for: .iiifV3)) == ObjectIdentifier(IIIF.self))
        #expect(ObjectIdentifier(GalleryReader.reader(for: .countriesPlist)) == ObjectIdentifier(CountriesPlist.self))
        for format in GalleryFormat.presets where format != .iiifV3 {
            #expect(GalleryReader.reader(for: format).format == format)
        }
    }
}
