/// The DeviantArt API v1 gallery response (`GET /api/v1/oauth2/gallery/{folderid}` and
/// `/gallery/all`).
///
/// ```json
/// {"has_more": true, "next_offset": 24, "results": [
///   {"deviationid": "…", "title": "Moon &amp; Sea", "url": "https://…/art/…",
///    "content": {"src": "…/full.jpg", "width": 1920, "height": 1080},
///    "preview": {"src": "…/preview.jpg", "width": 800, "height": 450},
///    "thumbs": [{"src": "…/150.jpg", "width": 150, "height": 84}, …]}]}
/// ```
/// The thumbnail is the smallest of `thumbs[]` and `preview` by pixel area; the image is
/// `content.src`, else the largest of those. `url` is the deviation's web page, not a picture,
/// and is ignored. Titles are HTML-escaped by the API and are unescaped. Items without any
/// picture (literature deviations) are kept. `has_more` with `next_offset` gives
/// ``NextPage/deviantArtOffset(_:)``.
enum DeviantArt: FormatReader {
    static let format = GalleryFormat.deviantArt

    /// `results` is an array, with `has_more`, `next_offset` or a first result that has
    /// `deviationid`.
    static func matches(_ root: Node) -> Bool {
        guard let object = root.object, let results = object["results"]?.array else { return false }
        if object["has_more"] != nil || object["next_offset"] != nil { return true }
        return results.first?.object?["deviationid"] != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        var builders: [(ItemBuilder, KeyPath)] = []
        for result in try root.array("results") ?? [] {
            builders.build(result) { result throws(MappingError) -> ItemBuilder? in
                guard result.node.object != nil else { throw result.typeError("an object") }
                var item = ItemBuilder()
                item.title = try result.text("title")
                item.htmlEscaped = true
                if let content = try rendition(result.object("content"), context: context) {
                    item.image = content.url
                }
                if let preview = try rendition(result.object("preview"), context: context) {
                    item.thumbnails.append(preview)
                    item.images.append(preview)
                }
                for thumb in try result.array("thumbs") ?? [] {
                    guard thumb.node.object != nil else { throw thumb.typeError("an object") }
                    if let r = try rendition(thumb, context: context) {
                        item.thumbnails.append(r)
                        item.images.append(r)
                    }
                }
                return item
            }
        }
        var next: NextPage?
        if root.bool("has_more") == true, let offset = try root.number("next_offset").flatMap(Int.init(exactly:)) {
            next = .deviantArtOffset(offset)
        }
        return try MappedGallery(
            title: nil, builders: builders, expected: "content.src, preview.src or thumbs[].src", nextPage: next
        )
    }

    /// `{src, width, height}`, nil when there is no `src`.
    static func rendition(_ c: Cursor?, context: MappingContext) throws(MappingError) -> Rendition? {
        guard let c, let url = context.resolver.resolve(c.member("src")) else { return nil }
        return Rendition(url: url, width: try c.number("width"), height: try c.number("height"))
    }
}
