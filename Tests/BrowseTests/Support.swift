import Foundation
import Gallery
import HalfBlock
import ImagePipeline
import TerminalUI

@testable import Browse

/// An app over `count` items titled "Picture I" (file names pic-I.png) on a test canvas.
@MainActor
struct Harness {
    let app: App
    let loader: RecordingLoader
    let canvas: TestCanvas
    var model: BrowseModel { app.model }
    var gallery: GalleryView { app.gallery }

    init(
        count: Int = 100, lines: Int = 24, columns: Int = 80, mode: GalleryLayout.Mode = .list, listRows: Int = 4,
        gridRows: Int = 4, paging: BrowseModel.Paging = .done, titles: ((Int) -> String)? = nil
    ) {
        // Widths of ▀, · and … come from wcwidth: a UTF-8 locale, as the terminal has.
        setlocale(LC_ALL, "C.UTF-8")
        loader = RecordingLoader()
        let items = (0..<count).map { i in
            GalleryItem(title: titles?(i) ?? "Picture \(i)", thumbnailURL: URL(string: "http://127.0.0.1:9/pic-\(i).png"))
        }
        let model = BrowseModel(name: "test.json", items: items, loader: loader, paging: paging, colorMode: .truecolor)
        app = App(model: model, options: App.Options(mode: mode, listRows: listRows, gridRows: gridRows))
        canvas = TestCanvas(lines: lines, columns: columns)
        app.layout(lines: lines, columns: columns)
        frame()
    }

    /// One turn of the loop: interest, then a frame.
    @discardableResult
    func frame() -> Bool {
        app.updateInterest()
        return app.draw(on: canvas)
    }

    /// Types `text` key by key (one frame after each), as tmux send-keys would.
    func type(_ keys: Key...) {
        for key in keys {
            app.handle(key)
            frame()
        }
    }

    func type(_ text: String) {
        for c in text { type(.character(c)) }
    }

    /// Finishes every load in flight with a 640x480 image.
    func finishLoads() {
        for (_, ticket) in loader.tickets { app.apply(ticket, .success(ThumbnailLoaderTests.image)) }
        loader.tickets.removeAll()
        frame()
    }

    var status: String { canvas.row(canvas.lines - 1) }

    /// The selected item's title.
    var selectedTitle: String? { gallery.selectedItem.map { model.list.title(of: $0) } }
}
