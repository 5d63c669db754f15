import Gallery
import HalfBlock
import ImagePipeline
import TerminalUI

/// The full-size view of one item: the image fitted to the screen, decoded at the size the
/// screen needs (twice the half-block grid), with `n` / `p` stepping through the list in the
/// order the gallery shows it (filter and sort included).
///
/// Its state (`item`, `phase`, the requested box) is what a zoom and pan, or a pixel
/// presenter, would extend; drawing goes through `draw(on:items:)` alone.
@MainActor
public final class ImageView: BrowseView {
    /// The image's state.
    public enum Phase {
        case loading
        case loaded(DecodedImage)
        case failed(ImagePipeline.Error)
        case noImage
    }

    let model: BrowseModel
    /// The item shown.
    public private(set) var item: ItemID
    public private(set) var phase: Phase = .noImage
    /// The load in flight (its answer is the only one that counts).
    public private(set) var ticket: ImagePipeline.Ticket?
    /// Pixel box the image was requested at.
    private var requested = PixelBox(width: 0, height: 0)
    private var grid: CellGrid?
    private var lines = 24, columns = 80

    public init(model: BrowseModel, item: ItemID) {
        self.model = model
        self.item = item
    }

    public var kind: ViewKind { .image }

    /// The pixel box for the screen: twice the half-block grid of the whole screen.
    var pixelBox: PixelBox { PixelBox(width: max(1, columns) * 2, height: max(1, lines - 1) * 4) }

    public func layout(lines: Int, columns: Int) {
        self.lines = max(1, lines)
        self.columns = max(1, columns)
        grid = nil
        let box = pixelBox
        // The first layout loads; a screen larger than the one requested for loads again.
        if requested.width == 0 {
            load(reload: false)
        } else if case .loaded = phase, box.width > requested.width || box.height > requested.height {
            load(reload: false)
        }
    }

    /// Withdraws the load in flight (the view is closing).
    public func close() {
        if let ticket { model.loader.cancel(ticket) }
        ticket = nil
    }

    private func load(reload: Bool) {
        close()
        grid = nil
        let entry = model.items[item.index]
        guard let url = entry.imageURL ?? entry.thumbnailURL else {
            phase = .noImage
            return
        }
        let box = pixelBox
        requested = box
        let request = ImageRequest(url: url, maxPixelWidth: box.width, maxPixelHeight: box.height, reload: reload)
        switch model.loader.load(request, priority: -1) {
        case .cached(let image): phase = .loaded(image)
        case .started(let t):
            ticket = t
            phase = .loading
        }
    }

    /// Applies a finished load; false when it is not this view's.
    public func apply(_ ticket: ImagePipeline.Ticket, _ result: Result<DecodedImage, ImagePipeline.Error>) -> Bool {
        guard ticket == self.ticket else { return false }
        self.ticket = nil
        switch result {
        case .success(let image): phase = .loaded(image)
        case .failure(let error): phase = .failed(error)
        }
        grid = nil
        return true
    }

    public func handle(_ action: Action, count: Int?) -> Reaction {
        switch action {
        case .back:
            close()
            return .pop
        case .next, .previous:
            guard let p = model.list.position(of: item) else { return .none }
            let target = p + (action == .next ? 1 : -1) * max(1, count ?? 1)
            guard target >= 0, target < model.list.count else { return .none }
            item = model.list[target]
            load(reload: false)
            return .redrawAll
        case .retry:
            load(reload: true)
            return .redrawAll
        default:
            return .none
        }
    }

    public var animating: Bool {
        if case .loading = phase { return true }
        return false
    }

    public func tick() -> Reaction { .redrawAll }

    public func draw(on canvas: any Canvas, items: Set<ItemID>?) {
        let height = max(1, lines - 1)
        let entry = model.items[item.index]
        var art: CellGrid?
        var message: (String, Screen.Role)?
        switch phase {
        case .loaded(let image):
            if grid == nil {
                let fitted = HalfBlockRenderer.fittedSize(
                    imageWidth: image.sourceWidth, imageHeight: image.sourceHeight, maxColumns: columns, maxRows: height)
                grid = HalfBlockRenderer.render(image.bitmap, columns: fitted.columns, rows: fitted.rows, options: RenderOptions(colorMode: model.colorMode))
            }
            art = grid
        case .loading:
            message = ("loading…", .spinner)
        case .failed(let error):
            message = ("✗ \(error)", .error)
        case .noImage:
            // An item whose URL was refused says why; one without any URL says so.
            message = entry.problem.map { ("✗ \($0)", .error) } ?? ("no image URL", .dim)
        }
        // Every line is rewritten in place (never cleared first), so only changed cells reach
        // the terminal.
        let top = art.map { (height - $0.rows) / 2 } ?? 0
        let left = art.map { (columns - $0.columns) / 2 } ?? 0
        for y in 0..<height {
            if let art, y >= top, y < top + art.rows {
                canvas.clear(y: y, x: 0, width: left)
                canvas.clear(y: y, x: left + art.columns, width: columns - left - art.columns)
            } else {
                canvas.clear(y: y, x: 0, width: columns)
            }
        }
        if let art { canvas.draw(art, y: top, x: left) }
        if let (text, role) = message {
            if case .loading = phase {
                canvas.put(model.spinner.glyph, y: height / 2, x: columns / 2 - 5, foreground: .terminalDefault, background: .terminalDefault, role: .spinner)
            }
            canvas.text(text, y: height / 2, x: max(0, (columns - DisplayWidth.width(text)) / 2), width: columns, role: role)
        }
    }

    public func status() -> (left: String, right: String) {
        let entry = model.items[item.index]
        var size = ""
        if case .loaded(let image) = phase { size = "\(image.sourceWidth) × \(image.sourceHeight)" }
        let url = (entry.imageURL ?? entry.thumbnailURL)?.absoluteString ?? ""
        let position = (model.list.position(of: item) ?? 0) + 1
        let right = "\(position)/\(model.list.count)  n/p q"
        // Title and size first; the URL gets what is left, cut in the middle so the file name
        // at its end stays visible.
        let head = " \(entry.title)  \(size.isEmpty ? "" : size + "  ")"
        let room = columns - DisplayWidth.width(right) - 2 - DisplayWidth.width(head)
        return (head + Self.middleTruncated(url, columns: room), right)
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
