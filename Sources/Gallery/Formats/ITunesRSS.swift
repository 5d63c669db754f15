import Foundation

/// The iTunes / Apple RSS feed in JSON (`itunes.apple.com/{country}/rss/topalbums/limit=25/json`):
/// `{"feed": {"title": {"label"}, "entry": [entry]}}` (`entry` is a lone object when the
/// feed has one entry).
///
/// An entry's `im:image` is an array of `{"label": url, "attributes": {"height": "55"}}`: the
/// thumbnail is the smallest height, the image the largest. The title is `im:name.label`,
/// else `title.label`. `feed.title.label` names the gallery.
enum ITunesRSS: FormatReader {
    static let format = GalleryFormat.iTunesRSS

    static func matches(_ root: Node) -> Bool {
        guard let entry = root.object?["feed"]?.object?["entry"] else { return false }
        let first = entry.array?.first ?? entry
        return first.object?["im:image"] != nil || first.object?["im:name"] != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        guard let feed = try root.object("feed"), let entryNode = feed.member("entry") else { throw .empty }
        let entries = entryNode.elements.map(Array.init) ?? [entryNode]
        var builders: [(ItemBuilder, KeyPath)] = []
        for entry in entries {
            builders.build(entry) { entry throws(MappingError) -> ItemBuilder? in
                guard entry.node.object != nil else { throw entry.typeError("an object") }
                var item = ItemBuilder(title: try entry.member("im:name").map(text))
                if item.title == nil { item.title = try entry.member("title").map(text) }
                for image in try imageList(entry) {
                    guard let url = context.resolver.resolve(image.member("label")) else { continue }
                    let height = try image.member("attributes")?.number("height")
                    let r = Rendition(url: url, width: height, height: height)
                    item.thumbnails.append(r)
                    item.images.append(r)
                }
                return item
            }
        }
        let title = try feed.member("title").map(text)
        return try MappedGallery(title: title, builders: builders, expected: "im:image[].label")
    }

    /// `im:image` as an array, or a lone object.
    private static func imageList(_ entry: Cursor) throws(MappingError) -> [Cursor] {
        guard let images = entry.member("im:image") else { return [] }
        if let list = images.elements { return Array(list) }
        guard images.node.object != nil else { throw images.typeError("an array") }
        return [images]
    }

    /// `{"label": "…"}` or a plain string.
    private static func text(_ c: Cursor) throws(MappingError) -> String {
        guard let s = Cursor.text(of: c.node) else { throw c.typeError("text") }
        return s
    }
}
