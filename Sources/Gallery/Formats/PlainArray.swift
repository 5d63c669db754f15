/// Hand-written JSON galleries: a top-level array of items, or an object holding one.
///
/// ```json
/// [{"title": "Sunset", "url": "photos/sunset.jpg", "thumbnail": "thumbs/sunset.jpg"}]
/// {"title": "Holiday", "items": [{"name": "Beach", "image": "https://example.com/b.jpg"}]}
/// ["a.png", "b.png"]
/// ```
/// Field names are those of ``GenericItem``; the array is chosen by ``ItemListFinder``. A
/// top-level `title` or `name` string names the gallery. It is tried after the known APIs, before ``GenericSearch``.
enum PlainArray: FormatReader {
    static let format = GalleryFormat.plainArray

    /// A list at the top level (else ``GenericSearch`` looks deeper).
    static func matches(_ root: Node) -> Bool { ItemListFinder.hasTopLevelList(root) }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        try MappedGallery(
            title: ItemListFinder.title(of: root), elements: try ItemListFinder.find(in: root),
            expected: "a url, image or thumbnail field"
        ) { element throws(MappingError) in try GenericItem.builder(element, context: context) }
    }
}
