import Foundation
import Gallery
import HalfBlock
import ImagePipeline
import TerminalUI

extension Browser {
    /// The full-size view of one item: the image fitted to the screen, decoded at the size the
    /// screen needs.
    struct FullView {
        var index: Int
        var ticket: ImagePipeline.Ticket?
        var phase: Phase
        var grid: CellGrid?
        /// Pixel box the image was requested at.
        var requested: BoxSize
    }

    /// The pixel box for a full view: twice the half-block grid of the whole screen.
    var fullViewPixelBox: BoxSize {
        BoxSize(columns: max(1, screen.columns) * 2, rows: max(1, screen.lines - 1) * 4)
    }

    func openFullView(_ index: Int) {
        closeFullView()
        let item = gallery.items[index]
        var view = FullView(index: index, ticket: nil, phase: .noImage, grid: nil, requested: fullViewPixelBox)
        if let url = item.imageURL ?? item.thumbnailURL {
            let box = fullViewPixelBox
            let request = ImageRequest(url: url, maxPixelWidth: box.columns, maxPixelHeight: box.rows)
            switch pipeline.load(request, priority: -1) {
            case .cached(let image): view.phase = .loaded(image)
            case .started(let ticket):
                view.ticket = ticket
                view.phase = .loading(ticket)
            }
        }
        fullView = view
        screen.clearAll()
        needsFullRedraw = true
    }

    func closeFullView() {
        if let ticket = fullView?.ticket { pipeline.cancel(ticket) }
        fullView = nil
    }

    /// After a resize to a larger screen, fetch the image again at the new size.
    func reloadFullViewIfTooSmall() {
        guard let view = fullView else { return }
        let box = fullViewPixelBox
        if box.columns > view.requested.columns || box.rows > view.requested.rows {
            openFullView(view.index)
        }
    }

    func handleFullView(_ key: Int32) {
        guard let view = fullView, let action = KeyMap.imageAction(key) else { return }
        switch action {
        case .back:
            closeFullView()
            table.select(view.index)
            screen.clearAll()
            needsFullRedraw = true
        case .quitAll:
            running = false
        case .next where view.index + 1 < gallery.items.count:
            openFullView(view.index + 1)
        case .previous where view.index > 0:
            openFullView(view.index - 1)
        case .retry:
            if let ticket = view.ticket { pipeline.cancel(ticket) }
            let item = gallery.items[view.index]
            guard let url = item.imageURL ?? item.thumbnailURL else { return }
            let box = fullViewPixelBox
            let request = ImageRequest(url: url, maxPixelWidth: box.columns, maxPixelHeight: box.rows, reload: true)
            if case .started(let ticket) = pipeline.load(request, priority: -1) {
                fullView = FullView(index: view.index, ticket: ticket, phase: .loading(ticket), grid: nil, requested: box)
                needsFullRedraw = true
            }
        case .help, .redraw, .resize:
            handleScreenAction(action)
        default:
            break
        }
    }

    func drawFullView() {
        guard var view = fullView else { return }
        let item = gallery.items[view.index]
        let height = max(1, screen.lines - 1)
        screen.clearAll()
        var size = ""
        switch view.phase {
        case .loaded(let image):
            size = "\(image.sourceWidth) × \(image.sourceHeight)"
            let grid: CellGrid
            if let cached = view.grid {
                grid = cached
            } else {
                let fitted = HalfBlockRenderer.fittedSize(
                    imageWidth: image.sourceWidth, imageHeight: image.sourceHeight,
                    maxColumns: screen.columns, maxRows: height)
                grid = HalfBlockRenderer.render(image.bitmap, columns: fitted.columns, rows: fitted.rows, options: renderOptions)
                view.grid = grid
                fullView = view
            }
            screen.draw(grid, y: (height - grid.rows) / 2, x: (screen.columns - grid.columns) / 2)
        case .loading, .idle, .evicted:
            screen.put(spinner.glyph, y: height / 2, x: screen.columns / 2 - 5, foreground: .terminalDefault, background: .terminalDefault, role: .spinner)
            screen.text("loading…", y: height / 2, x: screen.columns / 2 - 3, width: 12, role: .spinner)
        case .failed(let error):
            let text = "✗ \(error)"
            screen.text(text, y: height / 2, x: max(0, (screen.columns - DisplayWidth.width(text)) / 2), width: screen.columns, role: .error)
        case .noImage:
            // An item whose URL was refused says why; one without any URL says so.
            let text = item.problem.map { "✗ \($0)" } ?? "no image URL"
            let role: Screen.Role = item.problem == nil ? .dim : .error
            screen.text(text, y: height / 2, x: max(0, (screen.columns - DisplayWidth.width(text)) / 2), width: screen.columns, role: role)
        }
        let url = (item.imageURL ?? item.thumbnailURL)?.absoluteString ?? ""
        let right = "\(view.index + 1)/\(gallery.items.count)  n/p q"
        // Title and size first; the URL gets what is left, cut in the middle so the file name
        // at its end stays visible.
        let head = " \(item.title)  \(size.isEmpty ? "" : size + "  ")"
        let room = screen.columns - DisplayWidth.width(right) - 2 - DisplayWidth.width(head)
        StatusLine.draw(on: screen, left: head + Self.middleTruncated(url, columns: room), right: right)
    }

    /// `text` cut to `columns` by replacing its middle with "…" (URLs: keep host and file name).
    static func middleTruncated(_ text: String, columns: Int) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > columns else { return text }
        guard columns > 3 else { return "" }
        let tail = (columns - 1) * 2 / 3
        let head = columns - 1 - tail
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[0..<head])
        out.append("…")
        out.append(contentsOf: scalars[(scalars.count - tail)...])
        return String(out)
    }
}
