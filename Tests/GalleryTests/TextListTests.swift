import Foundation
import Testing

@testable import Gallery

@Suite("TextList: one path or URL per line")
struct TextListTests {
    let source = URL(fileURLWithPath: "/data/lists/photos.txt")

    @Test("paths, URLs, comments and blank lines")
    func lines() throws {
        // Given what `find` and a hand-written list look like, with CRLF line ends
        let text = "# holiday\r\n/abs/a.jpg\r\n\r\nrel/b.png\n  http://127.0.0.1:8000/c%20d.webp?x=1  \n"
        // When it is read
        let gallery = try GalleryReader.read(Data(text.utf8), source: source)
        // Then each line is an item, titled by its file name, relative to the list's folder
        #expect(gallery.format == .textList)
        #expect(gallery.items.map(\.title) == ["a", "b", "c d"])
        #expect(gallery.items.map(\.imageURLString) == [
            "file:///abs/a.jpg", "file:///data/lists/rel/b.png", "http://127.0.0.1:8000/c%20d.webp?x=1",
        ])
    }

    @Test("a bad line fails its row, naming the line; a list with no good line fails")
    func problems() throws {
        let gallery = try GalleryReader.read(Data("a.png\njavascript:alert(1).png\n".utf8), source: source)
        #expect(gallery.items.count == 2)
        #expect(gallery.items[1].problem == "line 2: unsupported URL scheme 'javascript'")
        #expect(throws: GalleryError.shape(source: "photos.txt", keyPath: "line 1", message: "unsupported URL scheme 'javascript'")) {
            try GalleryReader.read(Data("javascript:x.png\n".utf8), source: source)
        }
    }

    @Test("a list read over http cannot name local files")
    func remote() throws {
        let gallery = try GalleryReader.read(
            Data("file:///etc/passwd.png\nhttp://127.0.0.1/a.png\n".utf8), source: URL(string: "http://127.0.0.1/list.txt")!)
        #expect(gallery.items[0].problem == "line 1: file: URL in a gallery read over http")
        #expect(gallery.items[1].problem == nil)
    }

    @Test("JSON and stray words are not lists: their syntax errors stay")
    func notLists() {
        #expect(!TextList.matches(Data("[\"a.png\"]".utf8)))
        #expect(!TextList.matches(Data("tru".utf8)))
        #expect(TextList.matches(Data("pics/a\n".utf8)))
        #expect(TextList.matches(Data("IMG_1.JPG\n".utf8)))
        #expect(throws: GalleryError.self) { try GalleryReader.read(Data("tru".utf8), source: source) }
    }

    @Test("titles drop the extension and decode percent escapes")
    func titles() {
        #expect(TextList.title(of: "http://h/a/Sunset%20Beach.jpeg?w=1") == "Sunset Beach")
        #expect(TextList.title(of: "dir/.hidden") == ".hidden")
        #expect(TextList.title(of: "http://h/photos/") == "photos")
    }
}

@Suite("NaturalOrder")
struct NaturalOrderTests {
    @Test("digit runs compare by value, letters without case, and the order is total")
    func order() {
        let names = ["img10.jpg", "IMG2.jpg", "img1.jpg", "img02.jpg", "a", "img2.jpg", "img2a.jpg", "b1", "b01"]
        let sorted = names.sorted(by: NaturalOrder.less)
        // (equal by value and case, the exact text decides: "IMG2" < "img02" < "img2")
        #expect(sorted == ["a", "b01", "b1", "img1.jpg", "IMG2.jpg", "img02.jpg", "img2.jpg", "img2a.jpg", "img10.jpg"])
        for x in names {
            #expect(NaturalOrder.compare(x, x) == 0)
            for y in names where x != y { #expect(NaturalOrder.compare(x, y) == -NaturalOrder.compare(y, x)) }
        }
    }
}
