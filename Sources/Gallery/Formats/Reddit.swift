import Foundation

/// A Reddit listing: `{"kind": "Listing", "data": {"after": …, "children": [{"kind": "t3",
/// "data": post}]}}`, or the array of listings a post page returns (the first is the post).
///
/// Per post: the thumbnail is the smallest of `preview.images[0].resolutions[]`, else the
/// `thumbnail` field when it is a URL (it may be "self", "nsfw", "default"…); the image is
/// `preview.images[0].source`, else `url` when it points at a picture. A gallery post
/// (`is_gallery`) gives one item per `gallery_data.items[]` entry, from `media_metadata`
/// (`p[]` renditions, `s` source), titled "post title (2/5)" or by its caption. Reddit
/// HTML-escapes titles and URLs (`&amp;`): both are unescaped. Non-post children (comments,
/// "more") are skipped. `data.after` gives ``NextPage/redditAfter(_:)``.
enum Reddit: FormatReader {
    static let format = GalleryFormat.reddit

    static func matches(_ root: Node) -> Bool {
        let listing = root.array?.first ?? root
        return listing["kind"] == .string("Listing") && listing["data.children"]?.array != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        let listing = root.elements?.first ?? root
        guard let data = try listing.object("data") else { throw listing.shape("no data") }
        var builders: [(ItemBuilder, KeyPath)] = []
        for child in try data.array("children") ?? [] {
            guard try child.string("kind") == "t3", let post = try child.object("data") else { continue }
            builders += try items(of: post, context: context)
        }
        let after = try data.string("after").flatMap { $0.isEmpty ? nil : NextPage.redditAfter($0) }
        return try MappedGallery(
            title: nil, builders: builders, expected: "preview.images[0].source.url or an image url", nextPage: after
        )
    }

    private static func items(of post: Cursor, context: MappingContext) throws(MappingError) -> [(ItemBuilder, KeyPath)] {
        let title = try post.text("title")
        if post.bool("is_gallery") == true, let gallery = try galleryItems(of: post, title: title, context: context),
           !gallery.isEmpty {
            return gallery
        }
        var item = ItemBuilder(title: title, htmlEscaped: true)
        if let image = try post.array("preview.images")?.first {
            if let source = try rendition(image.object("source"), urlKey: "url", context: context) {
                item.images.append(source)
            }
            for r in try image.array("resolutions") ?? [] {
                if let r = try rendition(r, urlKey: "url", context: context) { item.thumbnails.append(r) }
            }
        }
        if item.thumbnails.isEmpty, let thumb = URLResolver.urlText("thumbnail", of: post) {
            switch thumb {
            case .success(let found) where found.text.hasPrefix("http"):
                item.thumbnail = url(found.text, at: found.path, context: context)
            case .success: break
            case .failure(let wrong): item.thumbnail = wrong.url
            }
        }
        if item.images.isEmpty, let link = URLResolver.urlText("url", of: post) {
            switch link {
            case .success(let found) where ImageHeuristics.looksLikeImage(found.text):
                item.image = url(found.text, at: found.path, context: context)
            case .success: break
            case .failure(let wrong): item.image = wrong.url
            }
        }
        return [(item, post.path)]
    }

    private static func galleryItems(
        of post: Cursor, title: String?, context: MappingContext
    ) throws(MappingError) -> [(ItemBuilder, KeyPath)]? {
        guard let entries = try post.array("gallery_data.items"), let metadata = try post.object("media_metadata") else {
            return nil
        }
        var out: [(ItemBuilder, KeyPath)] = []
        for (n, entry) in entries.enumerated() {
            guard let id = try entry.string("media_id"), let media = try metadata.object(id) else { continue }
            if let status = try media.string("status"), status != "valid" { continue }
            let caption = try entry.text("caption")
            let numbered = title.map { "\($0) (\(n + 1)/\(entries.count))" }
            var item = ItemBuilder(title: caption ?? numbered, htmlEscaped: true)
            for r in try media.array("p") ?? [] {
                if let r = try rendition(r, urlKey: "u", context: context) { item.thumbnails.append(r) }
            }
            let source = try media.object("s")
            if let s = try rendition(source, urlKey: "u", context: context) {
                item.images.append(s)
            } else if let gif = try rendition(source, urlKey: "gif", context: context) {
                item.images.append(gif)
            }
            out.append((item, entry.path))
        }
        return out
    }

    /// `{url|u, width|x, height|y}` with the URL unescaped; a URL of the wrong type is a
    /// rendition whose URL is the problem.
    private static func rendition(_ c: Cursor?, urlKey: String, context: MappingContext) throws(MappingError) -> Rendition? {
        guard let c, let field = URLResolver.urlText(urlKey, of: c) else { return nil }
        let u: ResolvedURL
        switch field {
        case .success(let found):
            guard let resolved = url(found.text, at: found.path, context: context) else { return nil }
            u = resolved
        case .failure(let wrong):
            u = wrong.url
        }
        let width = try c.number(anyOf: ["width", "x"])
        let height = try c.number(anyOf: ["height", "y"])
        return Rendition(url: u, width: width, height: height)
    }

    private static func url(_ raw: String, at path: KeyPath, context: MappingContext) -> ResolvedURL? {
        context.resolver.resolve(HTMLEntities.unescape(raw), at: path)
    }
}
