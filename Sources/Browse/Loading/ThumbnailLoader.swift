import Foundation
import Gallery
import HalfBlock
import ImagePipeline

/// What the thumbnail loader needs from the image pipeline: the seam tests replace with a mock.
@MainActor
public protocol ImageLoading: AnyObject {
    func load(_ request: ImageRequest, priority: Int) -> ImagePipeline.LoadStart
    func cancel(_ ticket: ImagePipeline.Ticket)
    func setPriority(_ ticket: ImagePipeline.Ticket, _ priority: Int)
}

extension ImagePipeline: ImageLoading {}

/// What a view wants loaded now: computed from its layout after every batch of keys.
public struct Interest {
    /// Items on screen, nearest first (screen order).
    public var visible: [ItemID]
    /// Items just beyond the screen's edges, requested after every visible one.
    public var lookahead: [ItemID]
    /// Items close enough to keep: loads of any other item are cancelled and their bitmaps
    /// let go.
    public var keep: Set<ItemID>
    /// Lower starts sooner.
    public var priority: (ItemID) -> Int

    public init(visible: [ItemID], lookahead: [ItemID], keep: Set<ItemID>, priority: @escaping (ItemID) -> Int) {
        self.visible = visible
        self.lookahead = lookahead
        self.keep = keep
        self.priority = priority
    }
}

/// The lazy-loading policy, keyed by item: which thumbnails load, in what order, at which
/// pixel box, which are cancelled, and which answers still matter. The same in the list and
/// the grid (the views only say what is on screen, `Interest`).
///
/// - Items on screen, then the look-ahead, are requested; nothing else is.
/// - Items outside `keep` (more than a page of the viewport away) are cancelled and go back
///   to idle; their bitmaps are let go (`.evicted`), so memory stays bounded however far one
///   scrolls (the pipeline's memory cache may still hold them: coming back is then instant).
/// - A loaded item whose box changed (`+` / `-`) is requested again at the new box; it keeps
///   showing the old bitmap until the new one arrives (the memory cache holds one entry per
///   box, so a step already loaded is answered at once).
/// - A ticket is an item's generation token: an answer whose ticket the item no longer holds
///   (cancelled, or superseded by a retry or a new box) is dropped.
@MainActor
public final class ThumbnailLoader {
    /// One item's thumbnail.
    public enum Phase {
        case idle
        case loading(ImagePipeline.Ticket)
        case loaded(DecodedImage)
        /// Was loaded; its bitmap was let go when the item went far away. Counts as loaded.
        case evicted(sourceWidth: Int, sourceHeight: Int)
        case failed(ImagePipeline.Error)
        /// Nothing to load: the item has no URL, or one that cannot be used (``problem(of:)``).
        case noImage
    }

    /// Item i's phase, by `ItemID.index`. Written only through `set(_:_:)`, which keeps the
    /// status-line counts.
    public private(set) var phases: [Phase]
    private var loadedCount = 0
    private var failedCount = 0
    /// Loads in flight, by ticket and by item (a loaded item may have one: a new box).
    private var ticketItems: [ImagePipeline.Ticket: Int] = [:]
    private var inFlight: [Int: ImagePipeline.Ticket] = [:]
    /// Box each loaded bitmap was decoded for.
    private var loadedBoxes: [Int: PixelSize] = [:]
    /// Items holding a bitmap (`.loaded`), to let go of those that go far away.
    private var loadedItems = Set<Int>()
    /// The items: a thumbnail URL is kept as a string until it is requested (a `URL` per item
    /// would cost about 440 bytes each on a big gallery).
    public let catalog: Catalog
    private var items: [GalleryItem] { catalog.items }
    private let loader: any ImageLoading

    /// Loads the thumbnails of `catalog`'s items (shared with the list and the model); items
    /// without a usable URL are `.noImage`.
    public init(catalog: Catalog, loader: any ImageLoading) {
        self.catalog = catalog
        self.phases = []
        self.loader = loader
        sync()
    }

    /// `items[i]` is item i (`ItemID(i)`), in a catalog of their own.
    public convenience init(items: [GalleryItem], loader: any ImageLoading) {
        self.init(catalog: Catalog(items), loader: loader)
    }

    /// `urls[i]` is item i's thumbnail URL (nil: nothing to load).
    public convenience init(urls: [URL?], loader: any ImageLoading) {
        self.init(items: urls.map { GalleryItem(title: "", thumbnailURL: $0) }, loader: loader)
    }

    /// Adds items to the catalog (a further gallery page arrived).
    public func append(_ more: [GalleryItem]) {
        catalog.append(more)
        sync()
    }

    /// Takes in the items the catalog gained since the last call.
    public func sync() {
        let first = phases.count
        guard catalog.count > first else { return }
        let items = catalog.items
        phases += items[first...].map { $0.hasURL ? .idle : .noImage }
        for i in first..<items.count { failedCount += tally(phases[i], i).failed }
    }

    /// The phase of `id`.
    public func phase(_ id: ItemID) -> Phase { phases[id.index] }

    /// Why item `id` has nothing to load when the gallery gave a URL that cannot be used.
    public func problem(of id: ItemID) -> String? { items[id.index].problem }
    public func problem(of index: Int) -> String? { items[index].problem }

    /// True while a load for `id` is in flight (also for a loaded item at a new box).
    public func isLoading(_ id: ItemID) -> Bool { inFlight[id.index] != nil }

    /// The source pixel area of `id` when known (for the size sort).
    public func area(of id: ItemID) -> Int? {
        switch phases[id.index] {
        case .loaded(let image): return image.sourceWidth * image.sourceHeight
        case .evicted(let w, let h): return w * h
        default: return nil
        }
    }

    /// Number of loads in flight.
    public var loadingCount: Int { ticketItems.count }

    /// (loaded, loading, failed) counts for the status line; an item whose URL cannot be used
    /// counts as failed.
    public var counts: (loaded: Int, loading: Int, failed: Int) {
        (loadedCount, ticketItems.count, failedCount)
    }

    private func tally(_ phase: Phase, _ i: Int) -> (loaded: Int, failed: Int) {
        switch phase {
        case .loaded, .evicted: return (1, 0)
        case .failed: return (0, 1)
        case .noImage where items[i].problem != nil: return (0, 1)
        default: return (0, 0)
        }
    }

    private func set(_ i: Int, _ phase: Phase) {
        let old = tally(phases[i], i), new = tally(phase, i)
        loadedCount += new.loaded - old.loaded
        failedCount += new.failed - old.failed
        phases[i] = phase
    }

    /// Applies a view's interest: cancels what went far away, requests what came into view
    /// (visible first, then the look-ahead), and re-prioritises the rest.
    /// - Parameter pixelBox: the decoded size to ask for.
    /// - Returns: items whose phase changed (to redraw).
    @discardableResult
    public func update(_ interest: Interest, pixelBox: PixelSize) -> Set<ItemID> {
        var changed = Set<ItemID>()
        for (ticket, i) in ticketItems where !interest.keep.contains(ItemID(i)) {
            loader.cancel(ticket)
            ticketItems[ticket] = nil
            requestedBoxes[ticket] = nil
            inFlight[i] = nil
            if case .loading = phases[i] {
                set(i, .idle)
                changed.insert(ItemID(i))
            }
        }
        for i in loadedItems where !interest.keep.contains(ItemID(i)) {
            if case .loaded(let image) = phases[i] {
                set(i, .evicted(sourceWidth: image.sourceWidth, sourceHeight: image.sourceHeight))
            }
            loadedItems.remove(i)
            loadedBoxes[i] = nil
            changed.insert(ItemID(i))
        }
        for id in interest.visible + interest.lookahead where id.index < phases.count {
            let i = id.index
            // A load in flight for another box (the size changed) is replaced.
            if let ticket = inFlight[i], requestedBoxes[ticket] != pixelBox {
                loader.cancel(ticket)
                ticketItems[ticket] = nil
                requestedBoxes[ticket] = nil
                inFlight[i] = nil
                if case .loading = phases[i] { set(i, .idle) }
            }
            switch phases[i] {
            case .idle, .evicted:
                start(i, pixelBox: pixelBox, reload: false, priority: interest.priority(id))
                changed.insert(id)
            case .loaded where loadedBoxes[i] != pixelBox && inFlight[i] == nil:
                start(i, pixelBox: pixelBox, reload: false, priority: interest.priority(id))
                changed.insert(id)
            default:
                break
            }
        }
        for (ticket, i) in ticketItems {
            let priority = interest.priority(ItemID(i))
            if sentPriorities[ticket] != priority {
                loader.setPriority(ticket, priority)
                sentPriorities[ticket] = priority
            }
        }
        if sentPriorities.count > ticketItems.count * 2 + 64 {
            sentPriorities = sentPriorities.filter { ticketItems[$0.key] != nil }
        }
        return changed
    }

    /// The list's policy over positions that equal item ids (no filter, gallery order): rows
    /// `visible` on screen, one row of look-ahead beyond each edge, kept within a page.
    @discardableResult
    public func update(visible: Range<Int>, rowsPerPage: Int, pixelBox: (width: Int, height: Int)) -> Set<ItemID> {
        let perPage = max(1, rowsPerPage)
        let count = phases.count
        let lookahead = [visible.lowerBound - 1, visible.upperBound].filter { $0 >= 0 && $0 < count }
        let keep = max(0, visible.lowerBound - perPage)..<min(count, visible.upperBound + perPage)
        let interest = Interest(
            visible: visible.clamped(to: 0..<count).map(ItemID.init), lookahead: lookahead.map(ItemID.init),
            keep: Set(keep.map(ItemID.init)),
            priority: { id in
                if visible.contains(id.index) { return id.index - visible.lowerBound }
                let d = id.index < visible.lowerBound ? visible.lowerBound - id.index : id.index - visible.upperBound + 1
                return perPage + d
            })
        return update(interest, pixelBox: PixelSize(width: pixelBox.width, height: pixelBox.height))
    }

    /// Loads `id` again with a fresh download (`r`), dropping any load in flight for it.
    public func retry(_ id: ItemID, pixelBox: PixelSize) {
        let i = id.index
        if let ticket = inFlight[i] {
            loader.cancel(ticket)
            ticketItems[ticket] = nil
            requestedBoxes[ticket] = nil
            inFlight[i] = nil
        }
        start(i, pixelBox: pixelBox, reload: true, priority: 0)
    }

    public func retry(_ index: Int, pixelBox: (width: Int, height: Int)) {
        retry(ItemID(index), pixelBox: PixelSize(width: pixelBox.width, height: pixelBox.height))
    }

    /// Applies one finished load. Returns the item it changed, or nil when the answer is stale.
    ///
    /// - Parameters:
    ///   - revalidating: the image came from a stale disk-cache entry that the pipeline is
    ///     revalidating in the background: a newer image may follow for the same ticket.
    ///   - replacement: this is that newer image; it is applied only while the item still shows
    ///     the image it replaces.
    public func apply(
        _ ticket: ImagePipeline.Ticket, _ result: Result<DecodedImage, ImagePipeline.Error>,
        revalidating: Bool = false, replacement: Bool = false
    ) -> ItemID? {
        if replacement {
            guard let i = replaceableItems.removeValue(forKey: ticket), case .loaded = phases[i],
                case .success(let image) = result
            else { return nil }
            set(i, .loaded(image))
            return ItemID(i)
        }
        guard let i = ticketItems.removeValue(forKey: ticket) else { return nil }
        if revalidating, case .success = result { replaceableItems[ticket] = i }
        let box = requestedBoxes.removeValue(forKey: ticket)
        inFlight[i] = nil
        switch result {
        case .success(let image):
            set(i, .loaded(image))
            loadedItems.insert(i)
            loadedBoxes[i] = box
        case .failure(let error):
            // A failed re-request at a new box keeps the bitmap it has.
            if case .loaded = phases[i] { return ItemID(i) }
            set(i, .failed(error))
        }
        return ItemID(i)
    }

    private var requestedBoxes: [ImagePipeline.Ticket: PixelSize] = [:]
    /// Items drawn from a stale disk-cache entry being revalidated, by ticket: a newer image
    /// may still come for them (`apply(_:_:revalidating:replacement:)`).
    private var replaceableItems: [ImagePipeline.Ticket: Int] = [:]
    /// The priority each load in flight was last given (unchanged ones are not sent again).
    private var sentPriorities: [ImagePipeline.Ticket: Int] = [:]

    /// Withdraws every load in flight (at exit).
    public func cancelAll() {
        for (ticket, i) in ticketItems {
            loader.cancel(ticket)
            if case .loading = phases[i] { set(i, .idle) }
        }
        ticketItems.removeAll()
        inFlight.removeAll()
        requestedBoxes.removeAll()
    }

    private func start(_ i: Int, pixelBox: PixelSize, reload: Bool, priority: Int) {
        guard let url = items[i].thumbnailURL else {
            set(i, .noImage)
            return
        }
        let request = ImageRequest(url: url, maxPixelWidth: pixelBox.width, maxPixelHeight: pixelBox.height, reload: reload)
        switch loader.load(request, priority: priority) {
        case .cached(let image):
            set(i, .loaded(image))
            loadedItems.insert(i)
            loadedBoxes[i] = pixelBox
        case .started(let ticket):
            sentPriorities[ticket] = priority
            if case .loaded = phases[i] {} else { set(i, .loading(ticket)) }
            ticketItems[ticket] = i
            inFlight[i] = ticket
            requestedBoxes[ticket] = pixelBox
        }
    }
}
