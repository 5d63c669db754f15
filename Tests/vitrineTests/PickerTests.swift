import Foundation
import Gallery
import Testing

@testable import vitrine

@Suite("Picker: what vitrine pick prints")
struct PickerTests {
    @Test("a file: URL prints as its plain path, an http URL as it is, a row with no URL not at all")
    func lines() {
        let file = GalleryItem(title: "a", thumbnail: "file:///tmp/pics/a%20b.jpg", image: "file:///tmp/pics/a%20b.jpg")
        let web = GalleryItem(title: "b", thumbnail: "http://127.0.0.1:8000/t.jpg", image: "http://127.0.0.1:8000/full.jpg?x=1")
        let broken = GalleryItem(title: "c", thumbnail: nil, image: nil, problem: "not a valid URL")
        #expect(Picker.line(for: file) == "/tmp/pics/a b.jpg")
        #expect(Picker.line(for: web) == "http://127.0.0.1:8000/full.jpg?x=1")
        #expect(Picker.line(for: broken) == nil)
    }

    @Test("a path with a line feed, an escape or a bidi control prints as its percent-encoded file: URL")
    func hostilePaths() throws {
        for name in ["a\nb.jpg", "x\u{1B}]52;c;AAAA\u{07}.png", "evil\u{202E}gpj.exe", "tab\there.jpg"] {
            let url = URL(fileURLWithPath: "/tmp/" + name)
            let line = try #require(Picker.line(for: GalleryItem(title: "t", thumbnail: url.absoluteString, image: url.absoluteString)))
            #expect(line.hasPrefix("file:///tmp/"), "\(line)")
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E })
            #expect(URL(string: line)?.path == url.path, "the URL names the same file")
        }
    }

    @Test("write puts one line per item on the descriptor and counts them")
    func write() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let items = ["file:///tmp/1.jpg", "http://127.0.0.1:9/2.png"].map { GalleryItem(title: "x", thumbnail: $0, image: $0) }
        #expect(Picker.write(items + [GalleryItem(title: "none", thumbnail: nil, image: nil)], to: fds[1]) == 2)
        close(fds[1])
        let data = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile()
        #expect(String(decoding: data, as: UTF8.self) == "/tmp/1.jpg\nhttp://127.0.0.1:9/2.png\n")
    }

    @Test("pick takes the browser's options and needs a GALLERY")
    func arguments() throws {
        guard case .browse(let galleries, let options) = try parseArguments(["pick", "g.json", "--view", "grid", "-"]) else {
            Issue.record("not a browse")
            return
        }
        #expect(galleries == ["g.json", "-"] && options.pick && options.view == .grid)
        guard case .browse(_, let plain) = try parseArguments(["g.json"]) else { return }
        #expect(!plain.pick)
        #expect(throws: Failure.self) { try parseArguments(["pick"]) }
        // A gallery named like a command is a gallery after pick
        guard case .browse(let named, _) = try parseArguments(["pick", "render"]) else {
            Issue.record("pick render is a gallery named render")
            return
        }
        #expect(named == ["render"])
    }
}
