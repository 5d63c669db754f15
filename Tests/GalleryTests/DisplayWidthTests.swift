import Foundation
import Testing
@testable import Gallery

@Suite("DisplayText.truncated")
struct DisplayWidthTests {
    @Test("short text is kept as it is")
    func short() {
        #expect(DisplayText.truncated("Sunset", columns: 10) == "Sunset")
        #expect(DisplayText.truncated("0123456789", columns: 10) == "0123456789")
        #expect(DisplayText.truncated("日本語", columns: 6) == "日本語")
    }

    @Test("long ASCII is cut to the width, with an ellipsis")
    func ascii() {
        let cut = DisplayText.truncated(String(repeating: "a", count: 11), columns: 10)
        #expect(cut == String(repeating: "a", count: 9) + "…")
    }

    @Test("wide characters count two columns and are never split")
    func wide() {
        // 6 ideographs = 12 columns into 7: 3 fit (6 columns) plus the ellipsis.
        #expect(DisplayText.truncated("日本語日本語", columns: 7) == "日本語…")
        // "ab日" is 4 columns; 本 would make 6 and leave no room for the ellipsis.
        #expect(DisplayText.truncated("ab日本語日本語", columns: 6) == "ab日…")
        #expect(DisplayText.truncated("ab日本語日本語", columns: 7) == "ab日本…")
        #expect(DisplayText.truncated("🙂🙂🙂🙂", columns: 5) == "🙂🙂…")
    }

    @Test("combining marks take no column and stay with their letter")
    func combining() {
        let text = String(repeating: "e\u{301}", count: 6)            // 6 columns
        #expect(DisplayText.truncated(text, columns: 6) == text)
        #expect(DisplayText.truncated(text, columns: 5) == String(repeating: "e\u{301}", count: 4) + "…")
    }

    @Test("gallery titles are cut at 200 columns")
    func items() throws {
        let long = String(repeating: "x", count: 5000)
        let item = GalleryItem(title: long, imageURL: URL(string: "https://h.example.com/a.png"))
        #expect(item.title.count == 200)
        #expect(item.title.hasSuffix("…"))
        let gallery = try Fixtures.read(#"[{"title": "\#(String(repeating: "界", count: 150))", "url": "a.png"}]"#)
        #expect(gallery.items[0].title == String(repeating: "界", count: 99) + "…")
    }
}
