import Gallery
import HalfBlock
import ImagePipeline
import TerminalUI

/// The state every view shares: the catalog (every item in gallery order), the list the
/// views show (`ItemList`), the thumbnails (`ThumbnailLoader` and the half-block art made from
/// them), the search, and where paging stands.
@MainActor
public final class BrowseModel {
    /// Where a gallery's further pages stand; the gallery view shows a "loading more" slot
    /// after the last item while there are more pages.
    public enum Paging: Equatable, Sendable {
        /// No further page.
        case done
        /// Page `page` (counting the first as 1) exists and is not loading.
        case ready(page: Int)
        case loading(page: Int)
        /// Page `page` failed (`r` on its slot retries).
        case failed(page: Int, reason: String)

        /// True when a slot for the next page belongs after the last item.
        public var hasMore: Bool { self != .done }
    }

    /// The gallery's name (the status line).
    public let name: String
    /// Every item, in gallery order: `items[id.index]`.
    public let catalog: Catalog
    public var items: [GalleryItem] { catalog.items }
    public let list: ItemList
    public let thumbnails: ThumbnailLoader
    /// The pipeline (the full view loads through it).
    public let loader: any ImageLoading
    public var paging: Paging
    /// Asks for the next page (the wiring's `PageLoader`).
    public var loadMore: () -> Void = {}
    /// Colour mode the art is rendered in.
    public let colorMode: ColorMode
    /// What transparency in the art shows: the terminal's background, its colour when the
    /// terminal told it (OSC 11, from `TerminalCapabilities`).
    public var background: Background = .terminalDefault
    /// Why the full view's pixel protocol will likely show nothing (`--pixels` forced inside
    /// tmux without passthrough: `TerminalCapabilities.pixelsHint`); the full view's status line
    /// says it before the title. Nil: nothing to say.
    public var pixelsHint: String?
    public private(set) var spinner: Spinner
    /// The search query (`/`) and its matches; nil: no search.
    public private(set) var search: String?
    public private(set) var searchMatches: ItemBits?
    /// The marked items (`m`): by identity, so marks follow items through filters and sorts
    /// and survive an item being filtered out of sight.
    public private(set) var marks = Set<ItemID>()
    /// Half-block art per item, with the cell box it was fitted to.
    private var art: [ItemID: (columns: Int, rows: Int, grid: CellGrid)] = [:]

    public init(
        name: String, items: [GalleryItem], loader: any ImageLoading, paging: Paging, colorMode: ColorMode,
        unicode: Bool = true
    ) {
        self.name = name
        self.loader = loader
        self.paging = paging
        self.colorMode = colorMode
        self.spinner = Spinner(unicode: unicode)
        let catalog = Catalog(items)
        self.catalog = catalog
        let thumbnails = ThumbnailLoader(catalog: catalog, loader: loader)
        self.thumbnails = thumbnails
        // The size sort asks the loader for the sizes it knows.
        list = ItemList(catalog: catalog, area: { thumbnails.area(of: $0) })
    }

    /// Adds a further page's items under the others.
    public func append(_ more: [GalleryItem]) {
        catalog.append(more)
        thumbnails.sync()
        list.sync()
        if let search { searchMatches = list.matches(search) }
    }

    /// Sets the search query ("" or nil: none) and finds its matches.
    public func setSearch(_ query: String?) {
        search = (query?.isEmpty ?? true) ? nil : query
        searchMatches = search.map { list.matches($0) }
    }

    /// True when `id` matches the search.
    public func isMatch(_ id: ItemID) -> Bool { searchMatches?[id] ?? false }

    func tickSpinner() { spinner.tick() }

    // MARK: Marks

    /// True when `id` is marked.
    public func isMarked(_ id: ItemID) -> Bool { marks.contains(id) }

    /// Marks `id`, or unmarks it when it was marked.
    public func toggleMark(_ id: ItemID) {
        if marks.remove(id) == nil { marks.insert(id) }
    }

    /// Replaces the marks (a remembered place); ids beyond the catalog are dropped.
    public func setMarks(_ ids: some Sequence<ItemID>) {
        marks = Set(ids.filter { $0.index >= 0 && $0.index < items.count })
    }

    /// Marks every item the list shows (the filter's matches when one is on); marks on hidden
    /// items stay.
    public func markAllShown() {
        for p in 0..<list.count { marks.insert(list[p]) }
    }

    /// Inverts the marks of the items the list shows; marks on hidden items stay.
    public func invertShownMarks() {
        for p in 0..<list.count { toggleMark(list[p]) }
    }

    /// Unmarks everything, shown or hidden.
    public func clearMarks() { marks.removeAll() }

    /// The marked items in gallery order (what actions and the picker use).
    public var markedInGalleryOrder: [ItemID] { marks.sorted() }

    /// Number of marked items the filter hides.
    public var hiddenMarks: Int { marks.count { list.position(of: $0) == nil } }

    /// Forgets the art of items whose thumbnail changed.
    func invalidate(_ ids: Set<ItemID>) {
        for id in ids { art[id] = nil }
    }

    /// Drops art of items not in `keep` (they went far away).
    func pruneArt(keeping keep: Set<ItemID>) {
        if art.count > keep.count * 2 + 64 {
            art = art.filter { keep.contains($0.key) }
        }
    }

    /// `image` as half-block art fitted inside a box of `columns` x `rows` cells (aspect kept),
    /// cached per item until the box or the image changes.
    func art(for id: ItemID, image: DecodedImage, columns: Int, rows: Int) -> CellGrid {
        if let cached = art[id], cached.columns == columns, cached.rows == rows { return cached.grid }
        let size = HalfBlockRenderer.fittedSize(
            imageWidth: image.bitmap.width, imageHeight: image.bitmap.height, maxColumns: columns, maxRows: rows)
        let grid = HalfBlockRenderer.render(
            image.bitmap, columns: size.columns, rows: size.rows, options: RenderOptions(colorMode: colorMode, background: background))
        art[id] = (columns, rows, grid)
        return grid
    }
}
