import Foundation

/// Flickr API responses (`flickr.photos.search`, `flickr.people.getPhotos`,
/// `flickr.photosets.getPhotos`, …, `format=json&nojsoncallback=1`):
/// `{"photos": {"page", "pages", "photo": [photo]}}` or `{"photoset": {…, "title"}}`.
///
/// A photo carries the sizes asked for with `extras` as `url_<size>` with `width_<size>` /
/// `height_<size>`. The thumbnail is `url_q` (150 px square), else the smallest; the image
/// is the largest except the original (`url_o`, often tens of megapixels), which is used only
/// when alone. Without any `url_*`, both are built from `server`, `id` and `secret`:
/// `https://live.staticflickr.com/{server}/{id}_{secret}_q.jpg` and `…_b.jpg` (1024 px).
/// `page` < `pages` gives ``NextPage/page(_:)``.
enum Flickr: FormatReader {
    static let format = GalleryFormat.flickr
    static let sizes = ["sq", "t", "s", "q", "m", "n", "w", "z", "c", "l", "h", "k", "o"]

    static func matches(_ root: Node) -> Bool {
        (root["photos.photo"] ?? root["photoset.photo"])?.array != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        guard let list = try root.object(anyOf: ["photos", "photoset"]) else { throw .empty }
        var builders: [(ItemBuilder, KeyPath)] = []
        for photo in try list.array("photo") ?? [] {
            builders.build(photo) { photo throws(MappingError) -> ItemBuilder? in
                guard photo.node.object != nil else { throw photo.typeError("an object") }
                var item = ItemBuilder(title: try photo.text("title"))
                var original: Rendition?
                for size in sizes {
                    guard let url = context.resolver.resolve(photo.member("url_" + size)) else { continue }
                    let r = Rendition(url: url, width: try photo.number("width_" + size), height: try photo.number("height_" + size))
                    if size == "q" { item.thumbnail = url }
                    if size == "o" { original = r } else { item.thumbnails.append(r); item.images.append(r) }
                }
                if item.images.isEmpty, let original { item.images.append(original) }
                if !item.hasURL, let server = try photo.text("server"), let id = try photo.text("id"),
                   let secret = try photo.text("secret") {
                    let base = "https://live.staticflickr.com/\(server)/\(id)_\(secret)"
                    item.thumbnail = context.resolver.resolve(base + "_q.jpg", at: photo.path)
                    item.image = context.resolver.resolve(base + "_b.jpg", at: photo.path)
                }
                return item
            }
        }
        var next: NextPage?
        if let page = try list.number("page").flatMap(Int.init(exactly:)), let pages = try list.number("pages"),
           Double(page) < pages {
            next = .page(page + 1)
        }
        return try MappedGallery(
            title: try list.text("title"), builders: builders,
            expected: "url_q, url_m or server, id and secret", nextPage: next
        )
    }
}
