import Foundation
import Gallery
import HalfBlock
import ImagePipeline
import TerminalUI

/// The interactive browser: the gallery table, the full view and the main loop.
///
/// Everything here runs on the main thread. Background loads reach it only through `Inbox`.
@MainActor
final class Browser {
    typealias Phase = RowLoader.Phase

    /// The gallery so far: further pages are appended as they arrive.
    var gallery: Gallery
    /// Further pages of the gallery.
    let pages: PageLoader
    let pipeline: ImagePipeline
    let screen: Screen
    let table: TableView
    let inbox: Inbox
    let loop: EventLoop
    /// Which rows load and what each shows.
    let rows: RowLoader
    /// Half-block art per row, with the box it was fitted to.
    var thumbnails: [Int: (box: BoxSize, grid: CellGrid)] = [:]
    var fullView: FullView?
    var showingHelp = false
    var spinner: Spinner
    var nextTick = ContinuousClock.now
    var dirtyRows = Set<Int>()
    var needsFullRedraw = true
    var running = true

    struct BoxSize: Equatable {
        var columns: Int
        var rows: Int
    }

    /// - Parameters:
    ///   - first: the gallery's first page, read before the screen started.
    ///   - reading: the mapping options, for further pages.
    init(
        first: GallerySource.Page, reading: GalleryReadOptions, pipeline: ImagePipeline, screen: Screen, inbox: Inbox,
        rowHeight: Int
    ) {
        let gallery = first.gallery
        self.gallery = gallery
        self.pipeline = pipeline
        self.screen = screen
        self.inbox = inbox
        self.loop = EventLoop(wakePipe: inbox.wakePipe)
        self.pages = PageLoader(first: first, fetcher: PipelineGalleryFetcher(pipeline: pipeline), reading: reading) {
            [inbox] in inbox.send(.page($0))
        }
        self.table = TableView(count: gallery.items.count + (pages.hasMore ? 1 : 0), rowHeight: rowHeight)
        self.rows = RowLoader(items: gallery.items, loader: pipeline)
        self.spinner = Spinner(unicode: screen.unicodeGlyphs)
    }

    var renderOptions: RenderOptions { RenderOptions(colorMode: screen.colorMode) }

    /// Runs until the user quits or a termination signal arrives.
    func run() {
        table.layout(lines: screen.lines, columns: screen.columns)
        while running {
            updateInterest()
            draw()
            let wake = loop.wait(timeoutMilliseconds: animating ? max(0, millisecondsUntilTick) : nil)
            if TerminalRestore.pendingTerminationSignal != 0 { break }
            for key in screen.pendingKeys() { handle(key) }
            if wake.posted { applyDeliveries() }
            if animating && millisecondsUntilTick <= 0 { tick() }
        }
        rows.cancelAll()
        closeFullView()
    }

    // MARK: Loading

    /// Hands the viewport to the row loader (see `RowLoader` for the policy).
    func updateInterest() {
        guard fullView == nil else { return }
        let changed = rows.update(visible: table.visibleRows, rowsPerPage: table.rowsPerPage, pixelBox: thumbnailPixelBox)
        dirtyRows.formUnion(changed)
        // Half-block art goes with the bitmap: only rows that hold one keep their grid.
        for row in changed {
            if case .loaded = rows.phases[row] { continue }
            thumbnails[row] = nil
        }
        // Near the end of what is loaded: fetch the next page (a failed page waits for `r`).
        if case .ready = pages.state, table.visibleRows.upperBound + table.rowsPerPage >= gallery.items.count {
            pages.loadNext()
            dirtyRows.insert(gallery.items.count)
        }
    }

    /// Appends a page's items (the "loading more" row moves down), or marks the page failed.
    func applyPage(_ outcome: PageLoader.Outcome) {
        let moreRow = gallery.items.count
        if let items = pages.apply(outcome) {
            gallery.items += items
            rows.append(items)
            table.setCount(gallery.items.count + (pages.hasMore ? 1 : 0))
            needsFullRedraw = true
        } else {
            dirtyRows.insert(moreRow)
        }
    }

    var thumbnailBox: BoxSize {
        let box = table.thumbnailBox
        return BoxSize(columns: box.columns, rows: box.rows)
    }

    /// Thumbnails are decoded at twice the half-block grid in each direction; the renderer's box
    /// filter averages them down in linear light.
    var thumbnailPixelBox: (width: Int, height: Int) {
        let box = thumbnailBox
        return (box.columns * 2, box.rows * 4)
    }

    func applyDeliveries() {
        for event in inbox.drain() {
            guard case .image(let delivery) = event else {
                if case .page(let outcome) = event { applyPage(outcome) }
                continue
            }
            if let row = rows.apply(delivery) {
                thumbnails[row] = nil
                dirtyRows.insert(row)
            } else if var view = fullView, view.ticket == delivery.ticket {
                view.ticket = nil
                switch delivery.result {
                case .success(let image): view.phase = .loaded(image)
                case .failure(let error): view.phase = .failed(error)
                }
                view.grid = nil
                fullView = view
                needsFullRedraw = true
            }
            // Anything else answers a ticket that was cancelled: dropped.
        }
    }

    func retry(_ row: Int) {
        thumbnails[row] = nil
        rows.retry(row, pixelBox: thumbnailPixelBox)
        dirtyRows.insert(row)
    }

    // MARK: Keys

    func handle(_ key: Int32) {
        if showingHelp {
            showingHelp = false
            needsFullRedraw = true
            if KeyMap.tableAction(key) != .resize { return }
        }
        if fullView != nil {
            handleFullView(key)
            return
        }
        guard let action = KeyMap.tableAction(key) else { return }
        switch action {
        case .up, .down, .pageUp, .pageDown, .halfPageUp, .halfPageDown, .first, .last:
            let oldSelection = table.selected
            let oldTop = table.top
            table.apply(action)
            if table.top != oldTop {
                needsFullRedraw = true
            } else {
                dirtyRows.insert(oldSelection)
                dirtyRows.insert(table.selected)
            }
        case .open:
            if table.selected < gallery.items.count { openFullView(table.selected) }
        case .retry:
            if table.selected < gallery.items.count {
                retry(table.selected)
            } else if pages.hasMore {
                pages.loadNext()
                dirtyRows.insert(table.selected)
            }
        case .help, .redraw, .resize:
            handleScreenAction(action)
        case .quit, .quitAll, .back:
            running = false
        case .next, .previous:
            break
        }
    }

    /// Actions that mean the same in every view: `?`, `^L` and a terminal resize.
    func handleScreenAction(_ action: Action) {
        switch action {
        case .help:
            showingHelp = true
        case .redraw:
            screen.repaintAll()
        case .resize:
            resize()
        default:
            return
        }
        needsFullRedraw = true
    }

    func resize() {
        screen.updateSize()
        table.layout(lines: screen.lines, columns: screen.columns)
        screen.clearAll()
        needsFullRedraw = true
        if var view = fullView {
            view.grid = nil
            fullView = view
            if case .loaded = view.phase { reloadFullViewIfTooSmall() }
        }
    }

    // MARK: Drawing

    var animating: Bool {
        if let view = fullView {
            if case .loading = view.phase { return true }
            return false
        }
        return table.visibleRows.contains { row in
            if row >= gallery.items.count {
                if case .loading = pages.state { return true }
                return false
            }
            if case .loading = rows.phases[row] { return true }
            return false
        }
    }

    var millisecondsUntilTick: Int {
        let remaining = nextTick - ContinuousClock.now
        return Int(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
    }

    func tick() {
        spinner.tick()
        nextTick = ContinuousClock.now + .milliseconds(Spinner.interval)
        if fullView != nil {
            needsFullRedraw = true
            return
        }
        for row in table.visibleRows {
            if row >= gallery.items.count {
                dirtyRows.insert(row)
            } else if case .loading = rows.phases[row] {
                dirtyRows.insert(row)
            }
        }
    }

    func draw() {
        if animating && millisecondsUntilTick > Spinner.interval {
            nextTick = ContinuousClock.now + .milliseconds(Spinner.interval)
        }
        if needsFullRedraw {
            if fullView != nil {
                drawFullView()
            } else {
                table.draw(on: screen, spinner: spinner.glyph) { content(for: $0) }
            }
            if showingHelp { HelpOverlay.draw(on: screen) }
        } else if fullView == nil {
            for row in dirtyRows.sorted() {
                table.drawRow(row, on: screen, spinner: spinner.glyph, content: content(for: row))
            }
        }
        if fullView == nil && !showingHelp { drawStatus() }
        if needsFullRedraw || !dirtyRows.isEmpty { screen.refresh() }
        needsFullRedraw = false
        dirtyRows.removeAll()
    }

    func drawStatus() {
        let (loaded, loading, failed) = rows.counts
        let total = "\(gallery.items.count)\(pages.hasMore ? "+" : "")"
        let position = gallery.items.isEmpty ? "0/\(total)" : "\(min(table.selected + 1, gallery.items.count))/\(total)"
        let counts = "loaded \(loaded) · loading \(loading) · failed \(failed)  ? help"
        let left = " \(gallery.name)  \(position)"
        if DisplayWidth.width(left) + DisplayWidth.width(counts) + 2 <= screen.columns {
            StatusLine.draw(on: screen, left: left, right: counts)
        } else {
            // Narrow: the position first, then the counts in short (✓ loaded, … loading, ✗ failed).
            StatusLine.draw(on: screen, left: " \(position) \(gallery.name)", right: "✓\(loaded) …\(loading) ✗\(failed)")
        }
    }

    func content(for row: Int) -> RowContent {
        guard row < gallery.items.count else {
            switch pages.state {
            case .failed(_, let reason):
                return RowContent(
                    title: "Could not load page \(pages.pagesLoaded + 1)", fileName: "press r to retry",
                    detail: "✗ \(reason)", thumbnail: .failed)
            default:
                return RowContent(
                    title: "Loading more…", fileName: "page \(pages.pagesLoaded + 1)", detail: "loading…",
                    thumbnail: .loading)
            }
        }
        let item = gallery.items[row]
        switch rows.phases[row] {
        case .idle, .loading, .evicted:
            return RowContent(title: item.title, fileName: item.fileName, detail: "loading…", thumbnail: .loading)
        case .noImage:
            if let problem = item.problem {
                return RowContent(title: item.title, fileName: item.fileName, detail: "✗ \(problem)", thumbnail: .failed)
            }
            return RowContent(title: item.title, fileName: item.fileName, detail: "no image URL", thumbnail: .none)
        case .failed(let error):
            return RowContent(title: item.title, fileName: item.fileName, detail: "✗ \(error.shortReason)", thumbnail: .failed)
        case .loaded(let image):
            let box = thumbnailBox
            let grid: CellGrid
            if let cached = thumbnails[row], cached.box == box {
                grid = cached.grid
            } else {
                let size = HalfBlockRenderer.fittedSize(
                    imageWidth: image.bitmap.width, imageHeight: image.bitmap.height,
                    maxColumns: box.columns, maxRows: box.rows)
                grid = HalfBlockRenderer.render(image.bitmap, columns: size.columns, rows: size.rows, options: renderOptions)
                thumbnails[row] = (box, grid)
            }
            return RowContent(
                title: item.title, fileName: item.fileName,
                detail: "\(image.sourceWidth) × \(image.sourceHeight)", thumbnail: .image(grid))
        }
    }
}
