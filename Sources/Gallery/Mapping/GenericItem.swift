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
    ///
    /// A URL field holding something other than a URL string (a number, say) makes a
    /// problem that fails the item's row, not the gallery.
    /// - Throws: a shape error for an element that is neither an object nor a string.
    static func builder(_ cursor: Cursor, context: MappingContext) throws(MappingError) -> ItemBuilder {
        var item = ItemBuilder()
        if cursor.node.string != nil {
            item.image = context.resolver.resolve(cursor)
            return item
        }
        // Members are read straight from the object; a cursor (and its key path) is made only
        // for an error.
        guard let object = cursor.node.object else { throw cursor.typeError("an object or a URL string") }
        let keys = context.fieldNames.fields(of: object)
        // A guessed title that is not text (true, null) is no title: the row shows the file
        // name, as for an item without one (an explicit --title still insists on text).
        if let key = keys.title, let value = object[key], let text = Cursor.text(of: value) {
            item.title = text
        }
        if let key = keys.image { item.image = context.resolver.resolve(member: key, of: cursor) }
        if let key = keys.thumbnail { item.thumbnail = context.resolver.resolve(member: key, of: cursor) }
        if !item.hasURL, item.problem?.namesField != true,
            let key = pictureMember(of: cursor.node, besides: keys.title)
        {
            item.image = context.resolver.resolve(member: key, of: cursor)
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
    ///
    /// The title's member (`besides`) is tried last: a caption like "Sunset.png" looks like a
    /// file name too.
    static func pictureMember(of node: Node, besides titleKey: String? = nil) -> String? {
        guard let object = node.object else { return nil }
        func isPicture(_ value: Node?) -> Bool {
            value?.string.map(ImageHeuristics.looksLikeImage) ?? false
        }
        return object.keys.sorted { ($0 == titleKey ? 1 : 0, $0) < ($1 == titleKey ? 1 : 0, $1) }.first { key in
            guard let value = object[key] else { return false }
            if isPicture(value) { return true }
            guard let inner = value.object else { return false }
            return isPicture(inner["url"]) || isPicture(inner["src"]) || isPicture(inner["href"])
        }
    }

    /// For the title, image and thumbnail lists: the key of each list that comes first in it
    /// among the item's members that are present and not null.
    ///
    /// Walks the item's own members (usually two or three) once and ranks them with one table
    /// lookup each, rather than trying ~30 candidate names per item: a 100,000-item gallery
    /// spent a seventh of its mapping time on those lookups.
    static func firstPresent(in object: NodeObject) -> (title: String?, image: String?, thumbnail: String?) {
        var title: (rank: Int, key: String)?
        var image: (rank: Int, key: String)?
        var thumbnail: (rank: Int, key: String)?
        func consider(_ rank: Int, _ key: String, _ best: inout (rank: Int, key: String)?) {
            guard rank >= 0 else { return }
            if best.map({ rank < $0.rank }) ?? true { best = (rank, key) }
        }
        for (key, value) in object where !value.isNull {
            guard let rankings = ranks[key] else { continue }
            consider(rankings.title, key, &title)
            consider(rankings.image, key, &image)
            consider(rankings.thumbnail, key, &thumbnail)
        }
        return (title?.key, image?.key, thumbnail?.key)
    }

    /// For every known field name, its position in ``titleKeys``, ``imageKeys`` and
    /// ``thumbnailKeys`` (-1 when absent from that list).
    private static let ranks: [String: (title: Int, image: Int, thumbnail: Int)] = {
        var table: [String: (title: Int, image: Int, thumbnail: Int)] = [:]
        for (rank, key) in titleKeys.enumerated() { table[key, default: (-1, -1, -1)].title = rank }
        for (rank, key) in imageKeys.enumerated() { table[key, default: (-1, -1, -1)].image = rank }
        for (rank, key) in thumbnailKeys.enumerated() { table[key, default: (-1, -1, -1)].thumbnail = rank }
        return table
    }()
}

/// Remembers the last item's member names and what ``GenericItem/firstPresent(in:)`` made of
/// them: the items of a big gallery nearly always have the same members in the same order,
/// and ranking them costs a hash-table lookup per member. One per reading of a gallery.
final class FieldNameCache {
    private var keys: [String] = []
    private var fields: (title: String?, image: String?, thumbnail: String?) = (nil, nil, nil)

    /// ``GenericItem/firstPresent(in:)`` of `object`, from the cache when its non-null member
    /// names are those of the previous object, in the same order.
    func fields(of object: NodeObject) -> (title: String?, image: String?, thumbnail: String?) {
        var n = 0
        var same = true
        for (key, value) in object where !value.isNull {
            guard n < keys.count, keys[n] == key else { same = false; break }
            n += 1
        }
        if same, n == keys.count { return fields }
        fields = GenericItem.firstPresent(in: object)
        keys = object.filter { !$0.value.isNull }.map(\.key)
        return fields
    }
}
