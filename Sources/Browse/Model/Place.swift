import Gallery

/// Where a gallery was left: the selected item, the view, the thumbnail sizes, the sort, the
/// filter and the marks. The executable stores one per gallery (`PlaceStore`) and `App`
/// returns to it (``App/restore(_:)``).
///
/// Items are named by their key (``App/placeKey(of:)``: the image URL, else the thumbnail
/// URL, else the title), not by position, so a gallery that gained or lost items since still
/// finds the ones that remain.
public struct Place: Codable, Sendable, Equatable {
    /// The selected item's key.
    public var item: String?
    /// "list" or "grid".
    public var view: String
    /// Thumbnail heights in cells, in the list and in the grid.
    public var listRows: Int
    public var gridRows: Int
    /// `ItemList.SortKey` raw value, and whether it is reversed.
    public var sort: String
    public var reversed: Bool
    /// The filter's query (nil: none).
    public var filter: String?
    /// Keys of the marked items, in gallery order.
    public var marks: [String]

    public init(
        item: String?, view: String, listRows: Int, gridRows: Int, sort: String, reversed: Bool, filter: String?,
        marks: [String]
    ) {
        self.item = item
        self.view = view
        self.listRows = listRows
        self.gridRows = gridRows
        self.sort = sort
        self.reversed = reversed
        self.filter = filter
        self.marks = marks
    }
}

extension App {
    /// The key an item is remembered by: its image URL, else its thumbnail URL, else its title.
    public func placeKey(of id: ItemID) -> String {
        let item = model.items[id.index]
        return item.imageURLString ?? item.thumbnailURLString ?? "title:" + item.title
    }

    /// Where the gallery is now.
    public var place: Place {
        let list = model.list
        return Place(
            item: gallery.selectedItem.map(placeKey(of:)), view: gallery.layout.mode.rawValue,
            listRows: gallery.rows(for: .list), gridRows: gallery.rows(for: .grid), sort: list.sortKey.rawValue,
            reversed: list.reversed, filter: list.filter, marks: model.markedInGalleryOrder.map(placeKey(of:)))
    }

    /// Returns to `place`: sizes, view, sort, filter, marks, then the selected item (when the
    /// items loaded so far hold it, and the filter shows it). Unknown values are ignored.
    /// - Returns: how many of the remembered marks and selection were not found.
    @discardableResult
    public func restore(_ place: Place) -> Int {
        var ids: [String: ItemID] = [:]
        for i in model.items.indices.reversed() { ids[placeKey(of: ItemID(i))] = ItemID(i) }
        gallery.setRows(place.listRows, for: .list)
        gallery.setRows(place.gridRows, for: .grid)
        if let mode = GalleryLayout.Mode(rawValue: place.view) { gallery.setMode(mode) }
        let key = ItemList.SortKey(rawValue: place.sort) ?? .gallery
        if key != .gallery || place.reversed { model.list.sort(by: key, reversed: place.reversed) }
        model.list.setFilter(place.filter)
        let marks = place.marks.compactMap { ids[$0] }
        model.setMarks(marks)
        var missing = place.marks.count - marks.count
        if let item = place.item {
            if let id = ids[item], model.list.position(of: id) != nil {
                gallery.select(id: id)
            } else {
                missing += 1
                gallery.reanchor()
            }
        } else {
            gallery.reanchor()
        }
        layout(lines: screenLines, columns: screenColumns)
        return missing
    }
}
