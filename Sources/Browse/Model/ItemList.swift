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
    public private(set) var order: [ItemID] = [] {
        didSet { generation &+= 1 }
    }
    /// Changes whenever `order` does (a cheap "has the list changed" check).
    public private(set) var generation = 0
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
    /// Natural-order keys, built when a sort first needs them.
    private var titleKeys = KeyStore()
    private var fileNameKeys = KeyStore()
    /// The items (shared with the model and the thumbnail loader).
    public let catalog: Catalog
    /// Pixel area per item at the last size sort (0: unknown).
    private var areas: [Int] = []
    /// The known pixel size of an item (nil: not loaded yet), for the size sort.
    private let area: @MainActor (ItemID) -> Int?

    /// - Parameters:
    ///   - catalog: the items; those already in it are indexed now.
    ///   - area: an item's pixel area (width × height) when known.
    public init(catalog: Catalog = Catalog(), area: @escaping @MainActor (ItemID) -> Int? = { _ in nil }) {
        self.catalog = catalog
        self.area = area
        sync()
    }

    /// Number of items shown.
    public var count: Int { order.count }

    /// Adds items to the catalog (a further page) and places the shown ones.
    public func append(_ items: [GalleryItem]) {
        catalog.append(items)
        sync()
    }

    /// Indexes the items the catalog gained since the last call and places the shown ones:
    /// at the end in gallery order, in their place in a sort.
    public func sync() {
        let first = total
        guard catalog.count > first else { return }
        total = catalog.count
        positions += Array(repeating: -1, count: total - first)
        if let query = filter { filterMatches = matches(query) }
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
    public func title(of id: ItemID) -> String { catalog.items[id.index].title }
    public func fileName(of id: ItemID) -> String { catalog.items[id.index].fileName }

    /// The item at `position` in the shown order.
    public subscript(position: Int) -> ItemID { order[position] }

    /// Where `id` is shown, or nil when the filter hides it.
    public func position(of id: ItemID) -> Int? {
        guard id.index >= 0, id.index < positions.count else { return nil }
        let p = positions[id.index]
        return p < 0 ? nil : Int(p)
    }

    /// The shown item nearest to `id` in the unfiltered order (the current sort over every
    /// item, as if there were no filter): `id` itself when shown; else the closer of the
    /// nearest shown items before and after it, the one after on a tie (as a file manager's
    /// cursor after a deletion); nil when nothing is shown. This is where the selection goes
    /// when a filter hides its item.
    ///
    /// Cost: a walk outward from `id` in gallery order; in another sort, the unfiltered order
    /// is built once (one sort of every item) and kept until the sort or the items change.
    public func nearestShown(to id: ItemID) -> ItemID? {
        if position(of: id) != nil { return id }
        guard !order.isEmpty else { return nil }
        guard id.index >= 0, id.index < total else { return order.last }
        let all = unfilteredOrder()
        let at = all?.positions[id.index] ?? Int32(reversed ? total - 1 - id.index : id.index)
        func item(_ p: Int) -> ItemID {
            if let all { return all.order[p] }
            return ItemID(reversed ? total - 1 - p : p)
        }
        let p = Int(at)
        for d in 1..<max(2, total) {
            if p + d < total, shows(item(p + d)) { return item(p + d) }
            if p - d >= 0, shows(item(p - d)) { return item(p - d) }
            if p + d >= total && p - d < 0 { break }
        }
        return nil
    }

    /// Every item in the current sort, no filter applied, with each item's place in it; nil in
    /// gallery order (an item's place is its index there, or the mirror of it reversed).
    private func unfilteredOrder() -> (order: [ItemID], positions: [Int32])? {
        guard sortKey != .gallery else { return nil }
        if let cached = unfiltered, cached.order.count == total { return cached }
        let ids = sorted((0..<total).map { ItemID($0) })
        var positions = [Int32](repeating: 0, count: total)
        for (p, id) in ids.enumerated() { positions[id.index] = Int32(p) }
        unfiltered = (ids, positions)
        return unfiltered
    }
    /// The last ``unfilteredOrder()``: dropped when the sort changes.
    private var unfiltered: (order: [ItemID], positions: [Int32])?

    /// Shows only items matching `query` (smart case); nil or "" shows everything.
    public func setFilter(_ query: String?) {
        let q = (query?.isEmpty ?? true) ? nil : query
        guard q != filter else { return }
        filter = q
        filterMatches = q.map { matches($0) }
        rebuild()
    }

    /// Sorts by `key`, reversed or not.
    public func sort(by key: SortKey, reversed: Bool) {
        sortKey = key
        self.reversed = reversed
        if key == .size { areas = (0..<total).map { area(ItemID($0)) ?? 0 } }
        unfiltered = nil
        rebuild()
    }

    /// The items matching `query` (for search highlighting, `n` / `N` and the filter). A query
    /// that extends the last one asked for, in the same case mode and over the same items,
    /// narrows its result instead of scanning every item.
    public func matches(_ query: String) -> ItemBits {
        indexNewItems()
        if let last = lastMatches, last.bits.count == total, query.hasPrefix(last.query),
            SearchIndex.isCaseSensitive(query) == SearchIndex.isCaseSensitive(last.query)
        {
            if query == last.query { return last.bits }
            let bits = index.matches(query, within: last.bits)
            lastMatches = (query, bits)
            return bits
        }
        let bits = index.matches(query)
        lastMatches = query.isEmpty ? nil : (query, bits)
        return bits
    }

    /// The matches of `query` from a scan of every item (no reuse of the last result).
    public func scan(_ query: String) -> ItemBits {
        indexNewItems()
        return index.matches(query)
    }

    /// True while items are not yet in the search index (the loop then calls
    /// ``indexSome(limit:)`` when it has nothing else to do).
    public var needsIndexing: Bool { index.count < total }

    /// Adds up to `limit` more items to the search index, so that it is built in slices while
    /// the loop is idle (5,000 items: 2-5 ms) rather than all at once under the first search
    /// key (100,000 items: 40-100 ms). - Returns: true while items remain.
    @discardableResult
    public func indexSome(limit: Int = 5_000) -> Bool {
        var n = 0
        while index.count < total && n < limit {
            let item = catalog.items[index.count]
            index.append(title: item.title, fileName: Self.quickFileName(item))
            n += 1
        }
        return needsIndexing
    }

    /// Adds the items not yet in the search index: built in idle slices after the gallery
    /// opens (``indexSome(limit:)``), or here at once when a search or filter comes first, so
    /// opening a gallery costs nothing for it (100,000 items: 40-100 ms, most of it finding
    /// each file name in its URL).
    private func indexNewItems() {
        while index.count < total {
            let item = catalog.items[index.count]
            index.append(title: item.title, fileName: Self.quickFileName(item))
        }
    }

    /// `item.fileName` without making a `URL` when the URL is plain (printable ASCII, no `%`,
    /// not ending in `/`, not `data:`): the text after the path's last `/`. Anything else goes
    /// through `fileName` itself, so both always agree.
    static func quickFileName(_ item: GalleryItem) -> String {
        guard let string = item.imageURLString ?? item.thumbnailURLString else { return "" }
        var string2 = string
        return string2.withUTF8 { bytes -> String? in
            let slash = UInt8(ascii: "/"), colon = UInt8(ascii: ":")
            guard let last = bytes.last, last != slash else { return nil }
            // "scheme://": a letter, then letters, up to the colon and two slashes
            var i = 0
            while i < bytes.count && bytes[i] != colon {
                let b = bytes[i] | 0x20
                guard (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (i > 0 && (bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") || bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "."))) else { return nil }
                i += 1
            }
            guard i > 0, i + 2 < bytes.count, bytes[i + 1] == slash, bytes[i + 2] == slash else { return nil }
            let scheme = i
            if scheme == 4, bytes[0] | 0x20 == UInt8(ascii: "d") { return nil }  // data:
            var end = bytes.count, lastSlash = -1, firstSlash = -1
            var j = scheme + 3
            while j < bytes.count {
                let b = bytes[j]
                guard b > 0x20 && b < 0x7F && b != UInt8(ascii: "%") && b != UInt8(ascii: "\\") else { return nil }
                if b == UInt8(ascii: "?") || b == UInt8(ascii: "#") {
                    end = j
                    break
                }
                if b == slash {
                    if firstSlash < 0 { firstSlash = j }
                    lastSlash = j
                }
                j += 1
            }
            guard end == bytes.count || bytes[end - 1] != slash else { return nil }
            guard firstSlash >= 0 else { return "" }
            let name = UnsafeBufferPointer(rebasing: bytes[(lastSlash + 1)..<end])
            if name.isEmpty || (name.count <= 2 && name.allSatisfy { $0 == UInt8(ascii: ".") }) { return nil }
            return String(decoding: name, as: UTF8.self)
        } ?? item.fileName
    }

    /// The last query's matches, to narrow when the next extends it.
    private var lastMatches: (query: String, bits: ItemBits)?

    private func shows(_ id: ItemID) -> Bool { filterMatches?[id] ?? true }

    private func rebuild() {
        var ids: [ItemID] = []
        ids.reserveCapacity(filterMatches == nil ? total : 64)
        for i in 0..<total where shows(ItemID(i)) { ids.append(ItemID(i)) }
        ids = sorted(ids)
        for i in 0..<positions.count { positions[i] = -1 }
        for (p, id) in ids.enumerated() { positions[id.index] = Int32(p) }
        order = ids
    }

    /// `ids` (in gallery order) in the current sort.
    private func sorted(_ ids: [ItemID]) -> [ItemID] {
        var ids = ids
        switch sortKey {
        case .gallery:
            break
        case .title:
            while titleKeys.count < total { titleKeys.append(catalog.items[titleKeys.count].title) }
            titleKeys.sort(&ids)
        case .fileName:
            while fileNameKeys.count < total { fileNameKeys.append(catalog.items[fileNameKeys.count].fileName) }
            fileNameKeys.sort(&ids)
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
        return ids
    }
}

/// Natural-order keys of every item in one byte buffer (a `[UInt8]` per item would cost its
/// 32-byte header and a malloc rounding each).
struct KeyStore {
    private var bytes: [UInt8] = []
    private var starts: [Int32] = [0]

    var count: Int { starts.count - 1 }

    /// Appends the natural-order key of the next item's `text`.
    mutating func append(_ text: String) {
        NaturalOrder.append(text, to: &bytes)
        starts.append(Int32(bytes.count))
    }

    /// Sorts `ids` by key, ties in gallery order.
    func sort(_ ids: inout [ItemID]) {
        bytes.withUnsafeBufferPointer { b in
            starts.withUnsafeBufferPointer { s in
                guard let base = b.baseAddress ?? UnsafePointer(bitPattern: 1) else { return }
                ids.sort { x, y in
                    let (xa, xe) = (Int(s[x.index]), Int(s[x.index + 1]))
                    let (ya, ye) = (Int(s[y.index]), Int(s[y.index + 1]))
                    let (xn, yn) = (xe - xa, ye - ya)
                    let c = memcmp(base + xa, base + ya, min(xn, yn))
                    if c != 0 { return c < 0 }
                    return xn == yn ? x < y : xn < yn
                }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
