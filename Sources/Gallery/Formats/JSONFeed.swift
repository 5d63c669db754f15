import Foundation

/// JSON Feed 1.0 / 1.1 (jsonfeed.org): `{"version": "https://jsonfeed.org/version/1.1",
/// "title", "next_url", "items": [item]}`.
///
/// The thumbnail is the item's `image`, else `banner_image`; the image is its first
/// attachment whose `mime_type` is `image/*` (or whose URL looks like a picture), else the
/// `image` again. The title is `title`, else `summary`, else `content_text`. Items without any
/// picture are kept. `next_url` gives ``NextPage/url(_:)``; the feed's `title` names the
/// gallery.
enum JSONFeed: FormatReader {
    static let format = GalleryFormat.jsonFeed

    static func matches(_ root: Node) -> Bool {
        root["version"]?.string?.hasPrefix("https://jsonfeed.org/version/") == true
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        var builders: [(ItemBuilder, KeyPath)] = []
        for entry in try root.array("items") ?? [] {
            builders.build(entry) { entry throws(MappingError) -> ItemBuilder? in
                guard entry.node.object != nil else { throw entry.typeError("an object") }
                var item = ItemBuilder(
                    title: try entry.text(anyOf: ["title", "summary", "content_text"])
                )
                item.thumbnail = context.resolver.resolve(anyOf: [entry.member("image"), entry.member("banner_image")])
                for attachment in try entry.array("attachments") ?? [] {
                    let mime = try attachment.string("mime_type") ?? ""
                    switch URLResolver.urlText("url", of: attachment) {
                    case .success(let found)? where mime.hasPrefix("image/") || ImageHeuristics.looksLikeImage(found.text):
                        item.image = context.resolver.resolve(found.text, at: found.path)
                    case .failure(let wrong)? where mime.hasPrefix("image/"):
                        item.image = wrong.url
                    default:
                        continue
                    }
                    break
                }
                return item
            }
        }
        let next = context.resolver.nextPage(root.member("next_url"))
        return try MappedGallery(
            title: try root.text("title"), builders: builders,
            expected: "image, banner_image or an image attachment", nextPage: next
        )
    }
}
