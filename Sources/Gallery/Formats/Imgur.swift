import Foundation

/// An Imgur API v3 album: `{"data": {"title": …, "images": [image]}, "success": true}`, the
/// album images endpoint's `{"data": [image]}`, or a gallery list `{"data": [post]}` whose
/// posts are images or albums (`is_album: true` with `images`): an album shows its images.
///
/// An image is `{id, title, description, link, type, width, height}`. The image is `link`;
/// the thumbnail is Imgur's "t" size (160 px, aspect kept) of the same id: `abc.jpg` →
/// `abct.jpg`. Videos and GIFV (`.mp4`, `.gifv`) are shown by their "h" (1024 px) JPEG still.
/// The title is `title`, else `description`. `data.title` names the gallery.
enum Imgur: FormatReader {
    static let format = GalleryFormat.imgur

    static func matches(_ root: Node) -> Bool {
        guard root["success"] != nil || root["status"] != nil else { return false }
        let images = root["data.images"]?.array ?? root["data"]?.array
        guard let first = images?.first?.object else { return false }
        return first["link"] != nil || first["images"]?.array?.first?.object?["link"] != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        // `data` is the album (an object) or a list: of images, or of a gallery's posts, some
        // of which are albums themselves (`is_album`, `images`).
        let data = root.member("data")
        let album = data?.node.object != nil ? data : nil
        let entries: CursorElements?
        if let album { entries = try album.array("images") } else { entries = try root.array("data") }
        var builders: [(ItemBuilder, KeyPath)] = []
        for entry in entries ?? [] {
            if let post = entry.node.object, post["images"]?.array != nil,
               post["is_album"] == .bool(true) || post["link"] == nil {
                // An album in a list shows its images, titled by the album when they have none.
                let albumTitle = Cursor.text(of: post["title"] ?? .null)
                for image in (try? entry.array("images")) ?? [] {
                    builders.build(image) { image throws(MappingError) -> ItemBuilder? in
                        try item(image, albumTitle: albumTitle, context: context)
                    }
                }
                continue
            }
            builders.build(entry) { image throws(MappingError) -> ItemBuilder? in
                try item(image, albumTitle: nil, context: context)
            }
        }
        return try MappedGallery(title: try album?.text("title"), builders: builders, expected: "a link")
    }

    /// One image: `link` as the image, its "t" size as the thumbnail.
    private static func item(_ image: Cursor, albumTitle: String?, context: MappingContext) throws(MappingError) -> ItemBuilder {
        guard image.node.object != nil else { throw image.typeError("an object") }
        var item = ItemBuilder(title: try image.text(anyOf: ["title", "description"]) ?? albumTitle)
        switch context.resolver.resolve(image.member("link")) {
        case let resolved? where resolved.string != nil:
            let string = resolved.string!
            guard let link = URL(string: string) else { break }
            let isVideo = ["mp4", "gifv", "webm"].contains(link.pathExtension.lowercased())
            item.thumbnail = .url(sized(link, suffix: "t").absoluteString)
            item.image = .url(isVideo ? sized(link, suffix: "h").absoluteString : string)
        case let problem?:
            item.image = problem
        case nil:
            break
        }
        return item
    }

    /// `https://i.imgur.com/abc.png` with suffix "t" → `https://i.imgur.com/abct.png`
    /// (a JPEG for anything that is not JPEG or PNG).
    static func sized(_ link: URL, suffix: String) -> URL {
        let ext = link.pathExtension.lowercased()
        let stem = link.deletingPathExtension().lastPathComponent
        guard !stem.isEmpty else { return link }
        let keep = ext == "jpg" || ext == "jpeg" || ext == "png"
        return link.deletingLastPathComponent().appendingPathComponent(stem + suffix + "." + (keep ? ext : "jpg"))
    }
}
