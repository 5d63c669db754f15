import Foundation

/// Unsplash API photos: a search response `{"total", "total_pages", "results": [photo]}` or the
/// bare array of `/photos`, `/collections/{id}/photos`, `/users/{name}/photos`.
///
/// A photo has `urls` (`raw`, `full`, `regular`, `small`, `thumb`, from largest to
/// smallest), `width`, `height`, `description`, `alt_description`. The thumbnail is
/// `urls.thumb` (else the next smallest), the image `urls.full` (else the next largest); the
/// title is `description`, else `alt_description`. For a search, the next page is the `page`
/// query item of the request plus one, while below `total_pages`; bare arrays page by the
/// `Link` header, which the caller has.
enum Unsplash: FormatReader {
    static let format = GalleryFormat.unsplash
    static let smallToLarge = ["thumb", "small", "regular", "full", "raw"]

    static func matches(_ root: Node) -> Bool {
        let first = (root["results"]?.array ?? root.array)?.first
        guard let urls = first?["urls"]?.object else { return false }
        return urls["thumb"] != nil || urls["regular"] != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        var photos = root.elements
        if photos == nil { photos = try root.array("results") }
        var builders: [(ItemBuilder, KeyPath)] = []
        for photo in photos ?? [] {
            builders.build(photo) { photo throws(MappingError) -> ItemBuilder? in
                guard photo.node.object != nil else { throw photo.typeError("an object") }
                var item = ItemBuilder(title: try photo.text(anyOf: ["description", "alt_description"]))
                let urls = try photo.object("urls")
                var found: [ResolvedURL] = []
                for size in smallToLarge {
                    if let url = context.resolver.resolve(urls?.member(size)) { found.append(url) }
                }
                item.thumbnail = found.first
                item.image = context.resolver.resolve(urls?.member("full"))
                if item.image == nil { item.image = found.last }
                return item
            }
        }
        var next: NextPage?
        if let pages = try root.number("total_pages") {
            let current = currentPage(of: context.resolver.base)
            if Double(current) < pages { next = .page(current + 1) }
        }
        return try MappedGallery(title: nil, builders: builders, expected: "urls.thumb or urls.full", nextPage: next)
    }

    /// The `page` query item of the request, 1 when absent.
    static func currentPage(of request: URL) -> Int {
        let items = URLComponents(url: request, resolvingAgainstBaseURL: true)?.queryItems ?? []
        return items.first { $0.name == "page" }?.value.flatMap { Int($0) } ?? 1
    }
}
