import Foundation

/// A Mastodon timeline: the array of statuses from `/api/v1/timelines/…`,
/// `/api/v1/accounts/{id}/statuses` (with `only_media=true` for a gallery).
///
/// Each `media_attachments[]` entry of a status (or of the status it boosts, `reblog`) is an
/// item: thumbnail `preview_url` (size `meta.small`), image `url`, else `remote_url` (size
/// `meta.original`). Video, GIFV and audio attachments are shown by their preview still, so
/// their image is the preview too. The title is the attachment's `description` (alt text),
/// else the status text with HTML removed. Statuses without media add nothing. Pages by the
/// `Link` header, which the caller has.
enum Mastodon: FormatReader {
    static let format = GalleryFormat.mastodon

    static func matches(_ root: Node) -> Bool {
        guard let first = root.array?.first?.object else { return false }
        return first["media_attachments"] != nil && first["content"] != nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        var builders: [(ItemBuilder, KeyPath)] = []
        for status in root.elements ?? [] {
            // A status that cannot be read is one failed item; a bad attachment fails alone.
            let text: String?
            let attachments: CursorElements
            do throws(MappingError) {
                guard status.node.object != nil else { throw status.typeError("an object") }
                let post = try status.object("reblog") ?? status
                text = try post.string("content").map(ImageHeuristics.plainText(fromHTML:))
                attachments = try post.array("media_attachments") ?? []
            } catch {
                builders.build(status) { _ throws(MappingError) -> ItemBuilder? in throw error }
                continue
            }
            for media in attachments {
                builders.build(media) { media throws(MappingError) -> ItemBuilder? in
                    var item = ItemBuilder(title: try media.text("description") ?? text)
                    let preview = context.resolver.resolve(media.member("preview_url"))
                    if let preview {
                        item.thumbnails.append(try rendition(preview, size: media.object("meta.small")))
                    }
                    let type = try media.string("type") ?? "image"
                    if type == "image" || preview == nil,
                       let full = context.resolver.resolve(anyOf: [media.member("url"), media.member("remote_url")]) {
                        item.images.append(try rendition(full, size: media.object("meta.original")))
                    }
                    return item
                }
            }
        }
        return try MappedGallery(title: nil, builders: builders, expected: "preview_url or url")
    }

    private static func rendition(_ url: ResolvedURL, size: Cursor?) throws(MappingError) -> Rendition {
        Rendition(url: url, width: try size?.number("width"), height: try size?.number("height"))
    }
}
