/// Reads an item whose field names are guessed rather than known: the plain arrays people write
/// by hand, the Countries plist, and the fallback for unknown APIs.
///
/// An item is an object with a title field and an image and/or thumbnail field (the first key
/// present in each list below wins), or a bare URL string. Image fields hold a URL string or an
/// object with `url` / `src` / `href`. An object with none of the known image fields still
/// counts when one of its members (the first by key) holds a URL ending in a picture
/// extension, directly or one object down (`"cover": "…/c.webp"`, `"media": {"url": "…/h.jpg"}`).
enum GenericItem {
    static let titleKeys = [
        "title", "name", "caption", "label", "alt", "alt_text", "description", "filename", "file_name",
    ]
    static let imageKeys = [
        "image", "image_url", "imageUrl", "imageURL", "full", "original", "large", "src", "url",
        "file", "path", "photo", "picture", "img",
    ]
    static let thumbnailKeys = [
        "thumbnail", "thumbnail_url", "thumbnailUrl", "thumbnailURL", "thumb", "thumb_url", "thumbUrl",
        "preview", "small",
    ]

    /// The item at `cursor`.
    /// - Throws: shape errors for a present field of the wrong type, or an element that is
    ///   neither an object nor a string.
    static func builder(_ cursor: Cursor, context: MappingContext) throws(MappingError) -> ItemBuilder {
        var item = ItemBuilder()
        if cursor.node.string != nil {
            item.image = try context.resolver.resolve(cursor)
            return item
        }
        guard cursor.node.object != nil else { throw cursor.typeError("an object or a URL string") }
        if let key = firstPresent(titleKeys, in: cursor) { item.title = try cursor.text(key) }
        if let key = firstPresent(imageKeys, in: cursor) { item.image = try context.resolver.resolve(cursor.member(key)) }
        if let key = firstPresent(thumbnailKeys, in: cursor) {
            item.thumbnail = try context.resolver.resolve(cursor.member(key))
        }
        if !item.hasURL, let key = pictureMember(of: cursor.node) {
            item.image = try context.resolver.resolve(cursor.member(key))
        }
        return item
    }

    /// How much `node` looks like an item: 2 with an image field holding a string or object,
    /// 1 with only a title, 0 otherwise. A bare string that looks like a URL or path scores 2.
    static func score(_ node: Node) -> Int {
        if let s = node.string { return s.contains("/") || s.contains(".") ? 2 : 0 }
        guard let object = node.object else { return 0 }
        for key in imageKeys + thumbnailKeys {
            switch object[key] {
            case .string?, .object?: return 2
            default: continue
            }
        }
        if pictureMember(of: node) != nil { return 2 }
        return titleKeys.contains { object[$0] != nil } ? 1 : 0
    }

    /// The first key (sorted) whose value looks like a picture URL: a string, or an object
    /// with such a `url` / `src` / `href` (`"media": {"url": "…/h.jpg"}`).
    static func pictureMember(of node: Node) -> String? {
        guard let object = node.object else { return nil }
        func isPicture(_ value: Node?) -> Bool {
            value?.string.map(ImageHeuristics.looksLikeImage) ?? false
        }
        return object.keys.sorted().first { key in
            guard let value = object[key] else { return false }
            if isPicture(value) { return true }
            guard let inner = value.object else { return false }
            return isPicture(inner["url"]) || isPicture(inner["src"]) || isPicture(inner["href"])
        }
    }

    private static func firstPresent(_ keys: [String], in cursor: Cursor) -> String? {
        keys.first { cursor.member($0) != nil }
    }
}
