import Gallery

/// Every item of the gallery in gallery order, shared by the model, the list and the
/// thumbnail loader (one array, not a copy each: 80 bytes an item at 100,000 items is 8 MB a
/// copy). `items[id.index]` is item `id`; items are only ever appended.
@MainActor
public final class Catalog {
    public private(set) var items: [GalleryItem]

    public init(_ items: [GalleryItem] = []) { self.items = items }

    public var count: Int { items.count }

    /// Adds a further page's items at the end.
    public func append(_ more: [GalleryItem]) { items += more }

    public subscript(id: ItemID) -> GalleryItem { items[id.index] }
}
