import Foundation

/// An Imgur API v3 album: `{"data": {"title": …, "images": [image]}, "success": true}`, or the
/// album images endpoint's `{"data": [image]}`.
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
        return images?.first?.object?["link"] != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        let album = try root.object("data")
        var images = try album?.array("images")
        if images == nil { images = try root.array("data") }
        var builders: [(ItemBuilder, KeyPath)] = []
        for image in images ?? [] {
            builders.build(image) { image throws(MappingError) -> ItemBuilder? in
                guard image.node.object != nil else { throw image.typeError("an object") }
                var item = ItemBuilder(title: try image.text(anyOf: ["title", "description"]))
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
        }
        return try MappedGallery(title: try album?.text("title"), builders: builders, expected: "a link")
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
