import Foundation
import HalfBlock
import Gallery
import ImagePipeline
import Testing

@testable import Browse

/// Records what the row loader asks of the pipeline and answers with fresh tickets.
@MainActor
final class RecordingLoader: ImageLoading {
    var requested: [(url: String, priority: Int, reload: Bool, width: Int, height: Int)] = []
    var cancelled: [ImagePipeline.Ticket] = []
    var priorities: [ImagePipeline.Ticket: Int] = [:]
    var cached: Set<String> = []
    var tickets: [String: ImagePipeline.Ticket] = [:]
    /// Names of the requests that asked for every frame (`ImageRequest.animated`).
    var animatedRequests: [String] = []
    private var nextID = 1

    func load(_ request: ImageRequest, priority: Int) -> ImagePipeline.LoadStart {
        let name = request.url.lastPathComponent
        let box = "\(name)@\(request.maxPixelWidth)x\(request.maxPixelHeight)"
        if cached.contains(name) || cached.contains(box) { return .cached(ThumbnailLoaderTests.image) }
        requested.append((name, priority, request.reload, request.maxPixelWidth, request.maxPixelHeight))
        if request.animated { animatedRequests.append(name) }
        let ticket = ImagePipeline.Ticket(id: nextID)
        nextID += 1
        tickets[name] = ticket
        return .started(ticket)
    }

    func cancel(_ ticket: ImagePipeline.Ticket) { cancelled.append(ticket) }
    func setPriority(_ ticket: ImagePipeline.Ticket, _ priority: Int) { priorities[ticket] = priority }

    var requestedRows: [Int] { requested.map { Int($0.url.dropLast(4).split(separator: "-").last!)! } }
}

@Suite("ThumbnailLoader: lazy loading and item redraws")
@MainActor
struct ThumbnailLoaderTests {
    static let image = DecodedImage(bitmap: RGBAImage(width: 1, height: 1, pixels: [1, 2, 3, 255]), sourceWidth: 640, sourceHeight: 480)
    let box = (width: 32, height: 16)

    func makeRows(_ count: Int) -> (ThumbnailLoader, RecordingLoader) {
        let loader = RecordingLoader()
        let urls = (0..<count).map { URL(string: "http://127.0.0.1:9/\($0).png") }
        return (ThumbnailLoader(urls: urls, loader: loader), loader)
    }

    @Test("only rows on screen plus one look-ahead row are requested, nearest first")
    func requestsVisibleRows() {
        // Given 1,000 rows with rows 0-4 on screen
        let (rows, loader) = makeRows(1000)
        // When the table lays out
        let changed = rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: box)
        // Then rows 0-5 were requested, in priority order, and redrawn
        #expect(loader.requestedRows == [0, 1, 2, 3, 4, 5])
        #expect(loader.requested.map(\.priority) == [0, 1, 2, 3, 4, 6])
        #expect(changed == Set((0...5).map(ItemID.init)))
        #expect(rows.loadingCount == 6)
    }

    @Test("a row drawn from a stale cache entry takes the revalidated image; others ignore replacements")
    func staleRowIsReplaced() {
        // Given rows 0 and 1 loading
        let (rows, loader) = makeRows(10)
        _ = rows.update(visible: 0..<2, rowsPerPage: 2, pixelBox: box)
        let stale = loader.tickets["0.png"]!, plain = loader.tickets["1.png"]!
        // When row 0 gets a stale image (revalidating) and row 1 a plain one
        #expect(rows.apply(stale, .success(Self.image), revalidating: true) == ItemID(0))
        #expect(rows.apply(plain, .success(Self.image)) == ItemID(1))
        // Then a replacement for row 0 redraws it with the new image, once
        let newer = DecodedImage(bitmap: RGBAImage(width: 1, height: 1, pixels: [9, 9, 9, 255]), sourceWidth: 640, sourceHeight: 480)
        #expect(rows.apply(stale, .success(newer), replacement: true) == ItemID(0))
        guard case .loaded(let shown) = rows.phases[0] else {
            Issue.record("row 0 is \(rows.phases[0])")
            return
        }
        #expect(shown == newer)
        #expect(rows.apply(stale, .success(Self.image), replacement: true) == nil)
        // And a replacement for a ticket that was not revalidating changes nothing
        #expect(rows.apply(plain, .success(newer), replacement: true) == nil)
        #expect(rows.counts.loaded == 2)
    }

    @Test("paging far away cancels loads that left the keep zone; skipped rows are never asked for")
    func pagingCancels() {
        let (rows, loader) = makeRows(1000)
        _ = rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: box)
        // When the user jumps to rows 500-504 (keys drained before layout)
        _ = rows.update(visible: 500..<505, rowsPerPage: 5, pixelBox: box)
        // Then the first six loads were cancelled and only 499-505 were added, visible first
        #expect(loader.cancelled.count == 6)
        #expect(loader.requestedRows == [0, 1, 2, 3, 4, 5, 500, 501, 502, 503, 504, 499, 505])
        #expect(rows.loadingCount == 7)
        if case .idle = rows.phases[3] {} else { Issue.record("a cancelled row must go back to idle") }
    }

    @Test("a small scroll keeps nearby loads and re-prioritises them")
    func smallScrollKeeps() {
        let (rows, loader) = makeRows(100)
        _ = rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: box)
        _ = rows.update(visible: 2..<7, rowsPerPage: 5, pixelBox: box)
        #expect(loader.cancelled.isEmpty)
        #expect(loader.requestedRows == [0, 1, 2, 3, 4, 5, 6, 7])
        // Row 0 is now above the viewport: after every visible row
        #expect(loader.priorities[loader.tickets["0.png"]!] == 5 + 2)
        #expect(loader.priorities[loader.tickets["2.png"]!] == 0)
    }

    @Test("a completion notification changes exactly its row; stale answers are dropped")
    func deliveries() {
        let (rows, loader) = makeRows(20)
        _ = rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: box)
        let ticket3 = loader.tickets["3.png"]!
        // When row 3's image arrives
        #expect(rows.apply(ticket3, .success(Self.image)) == ItemID(3))
        if case .loaded(let image) = rows.phases[3] {
            #expect(image.sourceWidth == 640)
        } else {
            Issue.record("row 3 should be loaded")
        }
        // And the same ticket answers again (a race with cancellation): nothing changes
        #expect(rows.apply(ticket3, .failure(.timedOut)) == nil)
        // A failure marks its row with the reason
        #expect(rows.apply(loader.tickets["4.png"]!, .failure(.httpStatus(404))) == ItemID(4))
        if case .failed(let error) = rows.phases[4] { #expect(error.shortReason == "HTTP 404") }
        #expect(rows.counts.loaded == 1 && rows.counts.failed == 1 && rows.counts.loading == 4)
    }

    @Test("the status-line counts, kept as phases change, always equal a recount of every row")
    func countsMatchARecount() {
        // Given 300 rows, some of them without a usable URL
        let loader = RecordingLoader()
        var items = (0..<300).map { GalleryItem(title: "\($0)", thumbnailURL: URL(string: "http://127.0.0.1:9/\($0).png")) }
        for row in stride(from: 7, to: 300, by: 29) {
            items[row] = GalleryItem(title: "bad", thumbnail: nil, image: nil, problem: "unsupported URL scheme 'x'")
        }
        let rows = ThumbnailLoader(items: items, loader: loader)
        func recount() -> (Int, Int) {
            var loaded = 0, failed = 0
            for (row, phase) in rows.phases.enumerated() {
                switch phase {
                case .loaded, .evicted: loaded += 1
                case .failed: failed += 1
                case .noImage where rows.problem(of: row) != nil: failed += 1
                default: break
                }
            }
            return (loaded, failed)
        }
        // When the viewport wanders, answers arrive (some failing), rows are retried, evicted
        // and come back from the cache, and a page is appended
        var generator = SystemRandomNumberGenerator()
        for step in 0..<400 {
            let top = Int.random(in: 0..<290, using: &generator)
            _ = rows.update(visible: top..<(top + 5), rowsPerPage: 5, pixelBox: box)
            for (name, ticket) in loader.tickets where Bool.random(using: &generator) {
                _ = rows.apply(ticket, Bool.random(using: &generator) ? .success(Self.image) : .failure(.httpStatus(500)))
                if Int.random(in: 0..<4, using: &generator) == 0 { loader.cached.insert(name) }
            }
            if step % 50 == 0 { rows.retry(top, pixelBox: box) }
            if step == 200 {
                rows.append([GalleryItem(title: "late", thumbnail: nil, image: nil, problem: "no host")])
            }
            // Then the kept counts equal a recount
            let (loaded, failed) = recount()
            #expect(rows.counts.loaded == loaded && rows.counts.failed == failed, "step \(step)")
            if rows.counts.loaded != loaded || rows.counts.failed != failed { return }
        }
    }

    @Test("retry cancels the load in flight and asks for a fresh download; the old answer is ignored")
    func retry() {
        let (rows, loader) = makeRows(5)
        _ = rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: box)
        let old = loader.tickets["2.png"]!
        rows.retry(2, pixelBox: box)
        #expect(loader.cancelled == [old])
        #expect(loader.requested.last?.url == "2.png" && loader.requested.last?.reload == true)
        #expect(rows.apply(old, .success(Self.image)) == nil)
        #expect(rows.apply(loader.tickets["2.png"]!, .success(Self.image)) == ItemID(2))
    }

    @Test("memory-cache hits are drawn at once, without a ticket; rows without a URL never load")
    func cacheHitsAndMissingURLs() {
        let loader = RecordingLoader()
        loader.cached = ["0.png"]
        let rows = ThumbnailLoader(urls: [URL(string: "http://127.0.0.1:9/0.png"), nil], loader: loader)
        _ = rows.update(visible: 0..<2, rowsPerPage: 2, pixelBox: box)
        if case .loaded = rows.phases[0] {} else { Issue.record("row 0 should come from the cache") }
        if case .noImage = rows.phases[1] {} else { Issue.record("row 1 has no URL") }
        #expect(loader.requested.isEmpty)
        #expect(rows.loadingCount == 0)
    }

    @Test("a row whose URL cannot be used never loads, keeps its reason and counts as failed")
    func problemRows() {
        // Given a gallery whose middle item pointed at a local file from an http gallery
        let loader = RecordingLoader()
        let items = [
            GalleryItem(title: "a", thumbnailURL: URL(string: "http://127.0.0.1:9/0.png")),
            GalleryItem(title: "b", thumbnail: nil, image: nil, problem: "file: URL in a gallery read over http"),
            GalleryItem(title: "c", thumbnailURL: nil),
        ]
        let rows = ThumbnailLoader(items: items, loader: loader)
        // When all three are on screen
        _ = rows.update(visible: 0..<3, rowsPerPage: 3, pixelBox: box)
        // Then only row 0 is requested; row 1 has its reason, row 2 simply has no image
        #expect(loader.requestedRows == [0])
        if case .noImage = rows.phases[1] {} else { Issue.record("row 1 must not load") }
        #expect(rows.problem(of: 1) == "file: URL in a gallery read over http")
        #expect(rows.problem(of: 2) == nil)
        #expect(rows.counts.failed == 1 && rows.counts.loading == 1)
        // And a retry does not load it either
        rows.retry(1, pixelBox: box)
        #expect(loader.requestedRows == [0])
    }

    @Test("appended rows (a further page) load by their items' URLs, made only when requested")
    func appendItems() {
        let (rows, loader) = makeRows(2)
        rows.append([GalleryItem(title: "x", thumbnail: "http://127.0.0.1:9/2.png", image: nil)])
        _ = rows.update(visible: 0..<3, rowsPerPage: 3, pixelBox: box)
        #expect(loader.requestedRows == [0, 1, 2])
    }
}

@Suite("ThumbnailLoader: memory stays bounded")
@MainActor
struct ThumbnailLoaderEvictionTests {
    @Test("rows more than a page away let go of their bitmaps but still count as loaded")
    func evictsFarRows() {
        // Given rows 0-5 loaded
        let loader = RecordingLoader()
        let rows = ThumbnailLoader(urls: (0..<100).map { URL(string: "http://127.0.0.1:9/\($0).png") }, loader: loader)
        _ = rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: (32, 16))
        for row in 0...5 { _ = rows.apply(loader.tickets["\(row).png"]!, .success(ThumbnailLoaderTests.image)) }
        #expect(rows.counts.loaded == 6)
        // When the viewport moves far away
        let changed = rows.update(visible: 50..<55, rowsPerPage: 5, pixelBox: (32, 16))
        // Then those rows hold no bitmap any more, are redrawn, and still count as loaded
        for row in 0...5 {
            guard case .evicted(let width, let height) = rows.phases[row] else {
                Issue.record("row \(row) kept its bitmap: \(rows.phases[row])")
                continue
            }
            #expect(width == 640 && height == 480)
        }
        #expect(changed.isSuperset(of: Set((0...5).map(ItemID.init))))
        #expect(rows.counts.loaded == 6)
        // And coming back asks the pipeline again (a memory-cache hit when it still has them)
        loader.cached = ["0.png", "1.png", "2.png", "3.png", "4.png", "5.png"]
        _ = rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: (32, 16))
        if case .loaded = rows.phases[2] {} else { Issue.record("row 2 should be back from the cache") }
    }
}

@Suite("ThumbnailLoader: thumbnail sizes")
@MainActor
struct ThumbnailLoaderSizeTests {
    @Test("a new box re-requests loaded items at it, keeping the old bitmap on screen until the new one arrives")
    func newBoxReRequests() {
        // Given items 0-5 loaded at 32x16
        let loader = RecordingLoader()
        let rows = ThumbnailLoader(urls: (0..<50).map { URL(string: "http://127.0.0.1:9/\($0).png") }, loader: loader)
        rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: (32, 16))
        for i in 0...5 { _ = rows.apply(loader.tickets["\(i).png"]!, .success(ThumbnailLoaderTests.image)) }
        #expect(rows.loadingCount == 0)
        // When the thumbnails grow (+) to 48x24
        rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: (48, 24))
        // Then the six are asked for again at the new box, and still show their bitmap
        #expect(loader.requested.suffix(6).map(\.width) == Array(repeating: 48, count: 6))
        #expect(rows.loadingCount == 6)
        if case .loaded = rows.phases[2] {} else { Issue.record("item 2 lost its bitmap while re-loading") }
        #expect(rows.counts.loaded == 6)
        // And going back to a box the memory cache holds is answered at once, with no request
        let asked = loader.requested.count
        for i in 0...5 { loader.cached.insert("\(i).png@32x16") }
        rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: (32, 16))
        // (the six in flight at 48x24 are not asked again while they load)
        #expect(loader.requested.count == asked)
        for i in 0...5 { _ = rows.apply(loader.tickets["\(i).png"]!, .success(ThumbnailLoaderTests.image)) }
        rows.update(visible: 0..<5, rowsPerPage: 5, pixelBox: (32, 16))
        #expect(loader.requested.count == asked)
        #expect(rows.loadingCount == 0)
    }

    @Test("a grid's interest: visible first in screen order, then the row below, then the row above")
    func gridInterestOrder() {
        // Given a grid of 4 per row, rows 10-12 on screen (items 40-51)
        let loader = RecordingLoader()
        let rows = ThumbnailLoader(urls: (0..<200).map { URL(string: "http://127.0.0.1:9/\($0).png") }, loader: loader)
        let visible = (40..<52).map(ItemID.init)
        let interest = Interest(
            visible: visible, lookahead: (52..<56).map(ItemID.init) + (36..<40).reversed().map(ItemID.init),
            keep: Set((28..<64).map(ItemID.init)), priority: { $0.index >= 40 && $0.index < 52 ? $0.index - 40 : 12 + abs($0.index - 46) })
        rows.update(interest, pixelBox: PixelSize(width: 16, height: 16))
        #expect(loader.requestedRows == Array(40..<56) + [39, 38, 37, 36])
        #expect(loader.requested.prefix(12).map(\.priority) == Array(0..<12))
        // Nothing outside the look-ahead is requested
        #expect(!loader.requestedRows.contains { $0 < 36 || $0 >= 56 })
    }
}
