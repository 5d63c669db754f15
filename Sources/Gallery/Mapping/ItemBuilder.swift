import Foundation

/// One size of one picture, as a format lists it.
struct Rendition: Equatable {
    var url: URL
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
    var thumbnail: URL?
    /// An explicit full image, preferred over `images`.
    var image: URL?
    /// Candidates for the thumbnail: the smallest wins.
    var thumbnails: [Rendition] = []
    /// Candidates for the full image: the largest wins.
    var images: [Rendition] = []

    var hasURL: Bool { thumbnail != nil || image != nil || !thumbnails.isEmpty || !images.isEmpty }

    /// The item; its title falls back to the file name, then to "Item <index + 1>".
    func build(index: Int) -> GalleryItem {
        let thumb = thumbnail ?? Rendition.smallest(thumbnails)?.url ?? Rendition.smallest(images)?.url
        let full = image ?? Rendition.largest(images)?.url ?? Rendition.largest(thumbnails)?.url
        let raw = title.map { htmlEscaped ? HTMLEntities.unescape($0) : $0 } ?? ""
        var item = GalleryItem(title: raw, thumbnailURL: thumb, imageURL: full)
        if item.title.isEmpty { item.title = "Item \(index + 1)" }
        return item
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
    /// - Throws: ``MappingError/empty`` for no items; a shape error at the first item's path
    ///   when not one item has a picture (a single picture-less item among others is kept, and
    ///   the UI shows "no image" for it).
    init(
        title: String?, builders: [(ItemBuilder, KeyPath)], expected: String, nextPage: NextPage? = nil
    ) throws(MappingError) {
        guard let first = builders.first else { throw .empty }
        guard builders.contains(where: { $0.0.hasURL }) else {
            throw .shape(first.1, "no image URL (expected \(expected))")
        }
        self.title = title
        self.items = builders.enumerated().map { $0.element.0.build(index: $0.offset) }
        self.nextPage = nextPage
    }
}

/// What a format reader needs besides the parsed tree.
struct MappingContext {
    let resolver: URLResolver
}

/// A reader for one gallery format.
protocol FormatReader {
    static var format: GalleryFormat { get }
    /// Cheap check of the format's signature (its keys), without throwing.
    static func matches(_ root: Node) -> Bool
    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery
}
