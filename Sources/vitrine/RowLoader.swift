import Foundation
import Gallery
import ImagePipeline

/// What the row loader needs from the image pipeline: the seam tests replace with a mock.
@MainActor
protocol ImageLoading: AnyObject {
    func load(_ request: ImageRequest, priority: Int) -> ImagePipeline.LoadStart
    func cancel(_ ticket: ImagePipeline.Ticket)
    func setPriority(_ ticket: ImagePipeline.Ticket, _ priority: Int)
}

extension ImagePipeline: ImageLoading {}

/// The table's lazy-loading policy: which rows load, in what order, which are cancelled, and
/// which answers still matter.
///
/// - Rows on screen, plus `lookahead` rows beyond each edge, are requested; nothing else is.
/// - Priority is the distance from the top of the viewport; look-ahead rows come after every
///   visible row.
/// - Rows more than one page outside the viewport are cancelled and go back to idle.
/// - A ticket is a row's generation token: an answer whose ticket the row no longer holds
///   (cancelled, or superseded by a retry) is dropped.
@MainActor
final class RowLoader {
    /// One row's image.
    enum Phase {
        case idle
        case loading(ImagePipeline.Ticket)
        case loaded(DecodedImage)
        /// Was loaded; its bitmap was let go when the row went more than a page away, so memory
        /// stays bounded by the memory cache however far one scrolls (the cache may still hold
        /// it: coming back is then instant). Counts as loaded.
        case evicted(sourceWidth: Int, sourceHeight: Int)
        case failed(ImagePipeline.Error)
        /// Nothing to load: the item has no URL, or one that cannot be used (``problem(of:)``).
        case noImage
    }

    /// Rows beyond each edge of the viewport that are requested before they are shown.
    static let lookahead = 1

    /// Row i's phase. Written only through `set(_:_:)`, which keeps the status-line counts.
    private(set) var phases: [Phase]
    /// Rows counted as loaded (`.loaded`, `.evicted`) and as failed (`.failed`, or `.noImage`
    /// with a problem), kept as phases change so the status line costs O(1) per draw.
    private var loadedCount = 0
    private var failedCount = 0
    private var ticketRows: [ImagePipeline.Ticket: Int] = [:]
    /// Rows drawn from a stale disk-cache entry being revalidated, by ticket: a newer image
    /// may still come for them (`Delivery.replacement`).
    private var replaceableRows: [ImagePipeline.Ticket: Int] = [:]
    /// Rows holding a bitmap (`.loaded`), to let go of those that go far away.
    private var loadedRows = Set<Int>()
    /// Row i's item: its thumbnail URL is kept as a string until the row is requested (a `URL`
    /// per item would cost about 440 bytes each on a big gallery).
    private var items: [GalleryItem]
    private let loader: any ImageLoading
    private var visible: Range<Int> = 0..<0
    private var rowsPerPage = 1

    /// `items[i]` is row i's item; rows without a usable URL are `.noImage`.
    init(items: [GalleryItem], loader: any ImageLoading) {
        self.items = []
        self.phases = []
        self.loader = loader
        append(items)
    }

    /// `urls[i]` is row i's thumbnail URL (nil: nothing to load).
    convenience init(urls: [URL?], loader: any ImageLoading) {
        self.init(items: urls.map { GalleryItem(title: "", thumbnailURL: $0) }, loader: loader)
    }

    /// Adds rows at the end (a further gallery page arrived).
    func append(_ more: [GalleryItem]) {
        let first = items.count
        items += more
        phases += more.map { $0.hasURL ? .idle : .noImage }
        for row in first..<items.count { failedCount += tally(phases[row], row: row).failed }
    }

    /// Why row `row` has nothing to load when the gallery gave a URL that cannot be used
    /// ("file: URL in a gallery read over http"); nil otherwise.
    func problem(of row: Int) -> String? {
        items[row].problem
    }

    /// Number of rows with a load in flight.
    var loadingCount: Int { ticketRows.count }

    /// (loaded, loading, failed) row counts for the status line; a row whose URL cannot be
    /// used counts as failed.
    var counts: (loaded: Int, loading: Int, failed: Int) {
        (loadedCount, ticketRows.count, failedCount)
    }

    /// What `phase` of `row` adds to the (loaded, failed) counts.
    private func tally(_ phase: Phase, row: Int) -> (loaded: Int, failed: Int) {
        switch phase {
        case .loaded, .evicted: return (1, 0)
        case .failed: return (0, 1)
        case .noImage where items[row].problem != nil: return (0, 1)
        default: return (0, 0)
        }
    }

    /// Sets row `row`'s phase and keeps the counts in step.
    private func set(_ row: Int, _ phase: Phase) {
        let old = tally(phases[row], row: row), new = tally(phase, row: row)
        loadedCount += new.loaded - old.loaded
        failedCount += new.failed - old.failed
        phases[row] = phase
    }

    /// Applies a new viewport: cancels rows that went far away, requests rows that came into
    /// view (plus the look-ahead), and re-prioritises the rest.
    /// - Parameters:
    ///   - visible: rows on screen.
    ///   - rowsPerPage: rows that fit on screen (the cancellation distance).
    ///   - pixelBox: the decoded size to ask for, in pixels.
    /// - Returns: rows whose phase changed (to redraw).
    func update(visible: Range<Int>, rowsPerPage: Int, pixelBox: (width: Int, height: Int)) -> Set<Int> {
        self.visible = visible
        self.rowsPerPage = max(1, rowsPerPage)
        var changed = Set<Int>()
        let count = phases.count
        let wanted = max(0, visible.lowerBound - Self.lookahead)..<min(count, visible.upperBound + Self.lookahead)
        let keep = max(0, visible.lowerBound - self.rowsPerPage)..<min(count, visible.upperBound + self.rowsPerPage)
        for (ticket, row) in ticketRows where !keep.contains(row) {
            loader.cancel(ticket)
            ticketRows[ticket] = nil
            set(row, .idle)
            changed.insert(row)
        }
        for row in loadedRows where !keep.contains(row) {
            if case .loaded(let image) = phases[row] {
                set(row, .evicted(sourceWidth: image.sourceWidth, sourceHeight: image.sourceHeight))
            }
            loadedRows.remove(row)
            changed.insert(row)
        }
        for row in wanted {
            switch phases[row] {
            case .idle, .evicted:
                start(row, pixelBox: pixelBox, reload: false)
                changed.insert(row)
            default:
                break
            }
        }
        for (ticket, row) in ticketRows {
            loader.setPriority(ticket, priority(of: row))
        }
        return changed
    }

    /// Loads `row` again with a fresh download (`r`), dropping any load in flight for it.
    func retry(_ row: Int, pixelBox: (width: Int, height: Int)) {
        if case .loading(let ticket) = phases[row] {
            loader.cancel(ticket)
            ticketRows[ticket] = nil
        }
        start(row, pixelBox: pixelBox, reload: true)
    }

    /// Applies one delivery: a finished load, or a newer image for a row drawn from a stale
    /// disk-cache entry (applied only while that row still shows the image it replaces).
    /// Returns the row it changed, or nil when the answer is stale.
    func apply(_ delivery: Delivery) -> Int? {
        guard delivery.replacement else {
            let row = apply(delivery.ticket, delivery.result)
            if let row, delivery.revalidating, case .success = delivery.result { replaceableRows[delivery.ticket] = row }
            return row
        }
        guard let row = replaceableRows.removeValue(forKey: delivery.ticket), case .loaded = phases[row],
            case .success(let image) = delivery.result
        else { return nil }
        set(row, .loaded(image))
        return row
    }

    /// Applies one finished load. Returns the row it changed, or nil when the answer is stale.
    func apply(_ ticket: ImagePipeline.Ticket, _ result: Result<DecodedImage, ImagePipeline.Error>) -> Int? {
        guard let row = ticketRows.removeValue(forKey: ticket) else { return nil }
        switch result {
        case .success(let image):
            set(row, .loaded(image))
            loadedRows.insert(row)
        case .failure(let error): set(row, .failed(error))
        }
        return row
    }

    /// Withdraws every load in flight (at exit).
    func cancelAll() {
        for (ticket, row) in ticketRows {
            loader.cancel(ticket)
            set(row, .idle)
        }
        ticketRows.removeAll()
    }

    /// Lower starts sooner: the row's distance from the top of the viewport; rows outside it
    /// come after all visible rows.
    func priority(of row: Int) -> Int {
        if visible.contains(row) { return row - visible.lowerBound }
        let distance = row < visible.lowerBound ? visible.lowerBound - row : row - visible.upperBound + 1
        return rowsPerPage + distance
    }

    private func start(_ row: Int, pixelBox: (width: Int, height: Int), reload: Bool) {
        guard let url = items[row].thumbnailURL else {
            set(row, .noImage)
            return
        }
        let request = ImageRequest(url: url, maxPixelWidth: pixelBox.width, maxPixelHeight: pixelBox.height, reload: reload)
        switch loader.load(request, priority: priority(of: row)) {
        case .cached(let image):
            set(row, .loaded(image))
            loadedRows.insert(row)
        case .started(let ticket):
            set(row, .loading(ticket))
            ticketRows[ticket] = row
        }
    }
}
