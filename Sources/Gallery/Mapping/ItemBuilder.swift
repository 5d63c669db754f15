import Foundation

/// One size of one picture, as a format lists it.
struct Rendition: Equatable {
    var url: ResolvedURL
    var width: Double?
    var height: Double?

    /// Pixel area; with one side known, that side squared; nil with neither.
    var area: Double? {
        if let w = width, let h = height { return w * h }
        return (width ?? height).map { $0 * $0 }
    }

    /// The smallest rendition by area; renditions of unknown size lose to any known one, and
    /// among unknowns the first wins.
    static func smallest(_ all: [Rendition]) -> Rendition? {
        all.filter { $0.area != nil }.min { $0.area! < $1.area! } ?? all.first
    }

    /// The largest rendition by area; among unknowns the first wins.
    static func largest(_ all: [Rendition]) -> Rendition? {
        all.filter { $0.area != nil }.max { $0.area! < $1.area! } ?? all.first
    }
}

/// Collects what a format says about one item and makes the ``GalleryItem``.
struct ItemBuilder {
    /// Raw title text (sanitized by `GalleryItem`); HTML-unescaped first when `htmlEscaped`.
    var title: String?
    var htmlEscaped = false
    /// An explicit thumbnail, preferred over `thumbnails`.
    var thumbnail: ResolvedURL?
    /// An explicit full image, preferred over `images`.
    var image: ResolvedURL?
    /// Candidates for the thumbnail: the smallest wins.
    var thumbnails: [Rendition] = []
    /// Candidates for the full image: the largest wins.
    var images: [Rendition] = []

    /// True when the item names a picture and every URL it gives is usable.
    var hasURL: Bool {
        (thumbnail != nil || image != nil || !thumbnails.isEmpty || !images.isEmpty) && problem == nil
    }

    /// The first unusable URL among the item's, with where it was found: the item is kept,
    /// without URLs, and its row fails with the message. `namesField` is set for a value that
    /// is not a URL string at all, whose row message starts with the field's key path.
    var problem: (path: KeyPath, message: String, namesField: Bool)? {
        if let found = Self.problem(thumbnail) { return found }
        if let found = Self.problem(image) { return found }
        for rendition in thumbnails { if let found = Self.problem(rendition.url) { return found } }
        for rendition in images { if let found = Self.problem(rendition.url) { return found } }
        return nil
    }

    private static func problem(_ url: ResolvedURL?) -> (path: KeyPath, message: String, namesField: Bool)? {
        switch url {
        case .problem(let path, let message)?: (path, message, false)
        case .wrongType(let path, let message)?: (path, message, true)
        default: nil
        }
    }

    /// The item; its title falls back to the file name, then to "Item <index + 1>". An item
    /// with a ``problem`` has no URLs and carries the message instead; for a value of the
    /// wrong type the message names the field by its key path from the item at `itemPath`
    /// ("url: not a URL string (found a number)", "content.src: …").
    func build(index: Int, at itemPath: @autoclosure () -> KeyPath) -> GalleryItem {
        let raw = title.map { htmlEscaped ? HTMLEntities.unescape($0) : $0 } ?? ""
        var item: GalleryItem
        if let problem {
            let path = problem.path.relative(to: itemPath())
            let message = problem.namesField && !path.components.isEmpty && problem.path != itemPath()
                ? "\(path): \(problem.message)" : problem.message
            item = GalleryItem(title: raw, thumbnail: nil, image: nil, problem: message)
        } else {
            let thumb = thumbnail ?? Rendition.smallest(thumbnails)?.url ?? Rendition.smallest(images)?.url
            let full = image ?? Rendition.largest(images)?.url ?? Rendition.largest(thumbnails)?.url
            item = GalleryItem(title: raw, resolvedThumbnail: thumb, resolvedImage: full)
        }
        if item.title.isEmpty { item.title = "Item \(index + 1)" }
        return item
    }
}

extension ItemBuilder {
    /// An item that failed as a whole (a field of the wrong type, an entry that is not an
    /// object): kept without URLs, its row showing the error with the field's path. Its title
    /// is the entry's `title`, `name` or `label` when that is text, so the row can be told.
    static func failed(_ error: MappingError, at entry: Cursor) -> ItemBuilder {
        var item = ItemBuilder()
        for key in ["title", "name", "label"] {
            if let node = entry.node.object?[key], let text = Cursor.text(of: node) {
                item.title = text
                break
            }
        }
        let path = entry.path
        switch error {
        case .shape(let at, let message): item.image = .wrongType(at, message)
        case .mapping(let expression, let message): item.image = .wrongType(path, "\(expression): \(message)")
        case .empty: item.image = .wrongType(path, "no gallery items found")
        case .unrecognized(let found): item.image = .wrongType(path, "not an item: found \(found)")
        }
        return item
    }
}

extension Array where Element == (ItemBuilder, KeyPath) {
    /// Appends the item `body` builds from `entry` (nothing for nil); a ``MappingError`` it
    /// throws fails that item alone (``ItemBuilder/failed(_:at:)``): a field fails its item,
    /// and only a gallery with no usable item fails as a whole (``MappedGallery``).
    mutating func build(_ entry: Cursor, _ body: (Cursor) throws(MappingError) -> ItemBuilder?) {
        do throws(MappingError) {
            if let item = try body(entry) { append((item, entry.path)) }
        } catch {
            append((ItemBuilder.failed(error, at: entry), entry.path))
        }
    }
}

/// What a format reader hands back to ``GalleryReader``.
struct MappedGallery {
    var title: String?
    var items: [GalleryItem]
    var nextPage: NextPage?
    /// Set by a reader that covers several formats (IIIF v2/v3); else the reader's own.
    var format: GalleryFormat?

    /// Builds the items and applies the common rules.
    ///
    /// - Throws: ``MappingError/empty`` for no items; when not one item has a usable picture,
    ///   a shape error: the first unusable URL's problem at its path, else "no image URL" at the
    ///   first item's path. Picture-less items, and items with an unusable URL, among usable
    ///   ones are kept: the UI shows "no image" or the problem on their rows.
    init(
        title: String?, builders: [(ItemBuilder, KeyPath)], expected: String, nextPage: NextPage? = nil
    ) throws(MappingError) {
        guard let first = builders.first else { throw .empty }
        guard builders.contains(where: { $0.0.hasURL }) else {
            if let problem = builders.lazy.compactMap({ $0.0.problem }).first {
                throw .shape(problem.path, problem.message)
            }
            throw .shape(first.1, "no image URL (expected \(expected))")
        }
        self.title = title
        self.items = builders.enumerated().map { $0.element.0.build(index: $0.offset, at: $0.element.1) }
        self.nextPage = nextPage
    }

    /// Builds one item per element as it goes, with the same rules as
    /// ``init(title:builders:expected:nextPage:)``, without holding every element's builder
    /// and cursor at once (the path of big galleries: plain arrays, the generic search,
    /// explicit mappings).
    init(
        title: String?, elements: some Collection<Cursor>, expected: String, nextPage: NextPage? = nil,
        builder: (Cursor) throws(MappingError) -> ItemBuilder
    ) throws(MappingError) {
        guard let first = elements.first else { throw .empty }
        var items: [GalleryItem] = []
        items.reserveCapacity(elements.count)
        var usable = false
        var firstProblem: (path: KeyPath, message: String, namesField: Bool)?
        for element in elements {
            let item: ItemBuilder
            do throws(MappingError) {
                item = try builder(element)
            } catch {
                item = ItemBuilder.failed(error, at: element)
            }
            if item.hasURL {
                usable = true
            } else if firstProblem == nil, let problem = item.problem {
                firstProblem = problem
            }
            items.append(item.build(index: items.count, at: element.path))
        }
        guard usable else {
            if let firstProblem { throw .shape(firstProblem.path, firstProblem.message) }
            throw .shape(first.path, "no image URL (expected \(expected))")
        }
        self.title = title
        self.items = items
        self.nextPage = nextPage
    }
}

/// What a format reader needs besides the parsed tree.
struct MappingContext {
    let resolver: URLResolver
    /// Shared by the items of one reading (``GenericItem``).
    let fieldNames = FieldNameCache()
}

/// A reader for one gallery format.
protocol FormatReader {
    static var format: GalleryFormat { get }
    /// Cheap check of the format's signature (its keys), without throwing.
    static func matches(_ root: Node) -> Bool
    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery
}
