import Gallery

/// The ordered, filtered list of items a view shows: the catalog's items in the chosen sort,
/// less those the filter hides, with a position for every shown item.
///
/// - Filter: only items whose title or file name contains the query (smart case, as search).
/// - Sort: gallery order, title or file name (natural order: `img2` before `img10`), or image
///   size (pixel area, where known; unknown sizes last); any of them reversed. Ties keep
///   gallery order. A size sort uses the sizes known when it is chosen and is not redone as
///   more images load (the list would shift under the user); choosing it again re-sorts.
/// - Items appended by paging land in place: at the end in gallery order, sorted in otherwise.
///
/// Costs for 100,000 items: a filter key press is one `SearchIndex` scan plus one pass over
/// the order; a sort builds each item's natural-order key once and then compares bytes.
@MainActor
public final class ItemList {
    /// What the list is sorted by.
    public enum SortKey: String, CaseIterable, Sendable {
        case gallery, title, fileName = "file name", size

        /// The next key in the cycle (`s`).
        public var next: SortKey {
            let all = Self.allCases
            return all[(all.firstIndex(of: self)! + 1) % all.count]
        }
    }

    /// Item ids in the order shown.
    public private(set) var order: [ItemID] = []
    /// Catalog size (every item, shown or not).
    public private(set) var total = 0
    public private(set) var sortKey: SortKey = .gallery
    public private(set) var reversed = false
    /// The filter's query (nil: no filter).
    public private(set) var filter: String?
    private var filterMatches: ItemBits?
    /// Position of item i in `order`, or -1 when it is filtered out.
    private var positions: [Int32] = []
    private(set) var index = SearchIndex()
    private var titleKeys: [[UInt8]] = []
    private var fileNameKeys: [[UInt8]] = []
    private var titles: [String] = []
    private var fileNames: [String] = []
    /// Pixel area per item at the last size sort (0: unknown).
    private var areas: [Int] = []
    /// The known pixel size of an item (nil: not loaded yet), for the size sort.
    private let area: @MainActor (ItemID) -> Int?

    /// - Parameter area: an item's pixel area (width × height) when known.
    public init(area: @escaping @MainActor (ItemID) -> Int? = { _ in nil }) {
        self.area = area
    }

    /// Number of items shown.
    public var count: Int { order.count }

    /// Adds catalog items (a further page) and places the shown ones.
    public func append(_ items: [GalleryItem]) {
        let first = total
        for item in items {
            let name = item.fileName
            index.append(title: item.title, fileName: name)
            titles.append(item.title)
            fileNames.append(name)
        }
        total += items.count
        positions += Array(repeating: -1, count: items.count)
        if !titleKeys.isEmpty { titleKeys += items.map { NaturalOrder.key($0.title) } }
        if !fileNameKeys.isEmpty { fileNameKeys += (first..<total).map { NaturalOrder.key(fileNames[$0]) } }
        if let query = filter { filterMatches = index.matches(query) }
        if sortKey == .gallery && !reversed {
            for i in first..<total where shows(ItemID(i)) {
                positions[i] = Int32(order.count)
                order.append(ItemID(i))
            }
        } else {
            rebuild()
        }
    }

    /// Title and file name of an item.
    public func title(of id: ItemID) -> String { titles[id.index] }
    public func fileName(of id: ItemID) -> String { fileNames[id.index] }

    /// The item at `position` in the shown order.
    public subscript(position: Int) -> ItemID { order[position] }

    /// Where `id` is shown, or nil when the filter hides it.
    public func position(of id: ItemID) -> Int? {
        guard id.index >= 0, id.index < positions.count else { return nil }
        let p = positions[id.index]
        return p < 0 ? nil : Int(p)
    }

    /// Shows only items matching `query` (smart case); nil or "" shows everything.
    public func setFilter(_ query: String?) {
        let q = (query?.isEmpty ?? true) ? nil : query
        guard q != filter else { return }
        filter = q
        filterMatches = q.map { index.matches($0) }
        rebuild()
    }

    /// Sorts by `key`, reversed or not.
    public func sort(by key: SortKey, reversed: Bool) {
        sortKey = key
        self.reversed = reversed
        if key == .size { areas = (0..<total).map { area(ItemID($0)) ?? 0 } }
        rebuild()
    }

    /// The items matching `query` (for search highlighting and `n` / `N`).
    public func matches(_ query: String) -> ItemBits { index.matches(query) }

    private func shows(_ id: ItemID) -> Bool { filterMatches?[id] ?? true }

    private func rebuild() {
        var ids: [ItemID] = []
        ids.reserveCapacity(filterMatches == nil ? total : 64)
        for i in 0..<total where shows(ItemID(i)) { ids.append(ItemID(i)) }
        switch sortKey {
        case .gallery:
            break
        case .title:
            if titleKeys.count != total { titleKeys = titles.map(NaturalOrder.key) }
            let keys = titleKeys
            ids.sort { a, b in
                let (ka, kb) = (keys[a.index], keys[b.index])
                return ka == kb ? a < b : NaturalOrder.precedes(ka, kb)
            }
        case .fileName:
            if fileNameKeys.count != total { fileNameKeys = fileNames.map(NaturalOrder.key) }
            let keys = fileNameKeys
            ids.sort { a, b in
                let (ka, kb) = (keys[a.index], keys[b.index])
                return ka == kb ? a < b : NaturalOrder.precedes(ka, kb)
            }
        case .size:
            if areas.count < total { areas += (areas.count..<total).map { area(ItemID($0)) ?? 0 } }
            let areas = self.areas
            // Known sizes by area, unknown (0) last in both directions.
            ids.sort { a, b in
                let (x, y) = (areas[a.index], areas[b.index])
                if (x == 0) != (y == 0) { return y == 0 }
                return x == y ? a < b : (reversed ? x > y : x < y)
            }
        }
        if reversed && sortKey != .size { ids.reverse() }
        for i in 0..<positions.count { positions[i] = -1 }
        for (p, id) in ids.enumerated() { positions[id.index] = Int32(p) }
        order = ids
    }
}
