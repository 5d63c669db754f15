import Foundation

/// IIIF Presentation manifests, as museums and libraries publish them.
///
/// - 2.x: `sequences[0].canvases[]`; a canvas has `label`, `thumbnail` (a URL or
///   `{"@id": …}`) and `images[0].resource` (`@id`, `width`, `height`, `service`).
/// - 3.0: `items[]` of canvases with language-map `label`s (`{"en": ["Folio 1r"]}`),
///   `thumbnail: [{id, width, height}]` and the picture in
///   `items[0].items[0].body` (`id`, `width`, `height`, `service`; a `Choice` uses its first
///   `items[]` entry).
///
/// Without a `thumbnail`, one is asked from the picture's IIIF Image service at 200 px wide
/// (`{service}/full/200,/0/default.jpg`). The manifest's `label` names the gallery.
enum IIIF: FormatReader {
    static let format = GalleryFormat.iiifV2

    static func matches(_ root: Node) -> Bool { version(of: root) != nil }

    /// 2 or 3 from `@context` (a string or an array of strings), nil for non-IIIF.
    static func version(of root: Node) -> Int? {
        let contexts = root["@context"]?.array?.compactMap(\.string) ?? root["@context"]?.string.map { [$0] } ?? []
        for context in contexts where context.contains("iiif.io/api/presentation/") {
            return context.contains("/presentation/3") ? 3 : 2
        }
        return nil
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        let v3 = version(of: root.node) == 3
        var builders: [(ItemBuilder, KeyPath)] = []
        let canvases = v3
            ? try root.array("items") ?? []
            : try root.array("sequences")?.first?.array("canvases") ?? []
        for canvas in canvases {
            builders.build(canvas) { canvas throws(MappingError) -> ItemBuilder? in
                guard canvas.node.object != nil else { throw canvas.typeError("an object") }
                var item = ItemBuilder(title: try canvas.text("label"))
                let picture = v3 ? try body(of: canvas) : try canvas.array("images")?.first?.object("resource")
                if let picture, let url = context.resolver.resolve(picture.member("id") ?? picture.member("@id")) {
                    item.images.append(Rendition(url: url, width: try picture.number("width"), height: try picture.number("height")))
                    if let service = serviceID(of: picture),
                       let small = context.resolver.resolve(service + "/full/200,/0/default.jpg", at: picture.path) {
                        item.thumbnails.append(Rendition(url: small, width: 200, height: nil))
                    }
                }
                if let thumb = try thumbnail(of: canvas, context: context) { item.thumbnail = thumb }
                return item
            }
        }
        var mapped = try MappedGallery(
            title: try root.text("label"), builders: builders,
            expected: v3 ? "items[0].items[0].body.id" : "images[0].resource.@id"
        )
        mapped.format = v3 ? .iiifV3 : .iiifV2
        return mapped
    }

    /// The painting annotation's body (the first choice of a `Choice`).
    private static func body(of canvas: Cursor) throws(MappingError) -> Cursor? {
        guard let page = try canvas.array("items")?.first, let annotation = try page.array("items")?.first,
              var body = annotation.member("body") else { return nil }
        if let first = body.elements?.first { body = first }
        if let choice = try body.array("items")?.first { body = choice }
        return body
    }

    /// `thumbnail` as a string, an object, or an array of either.
    private static func thumbnail(of canvas: Cursor, context: MappingContext) throws(MappingError) -> ResolvedURL? {
        guard var thumb = canvas.member("thumbnail") else { return nil }
        if let first = thumb.elements?.first { thumb = first }
        return context.resolver.resolve(thumb)
    }

    /// The Image service base URL: `service` as an object or array, `id` or `@id`.
    private static func serviceID(of picture: Cursor) -> String? {
        guard var service = picture.member("service") else { return nil }
        if let first = service.elements?.first { service = first }
        let id = service.member("id")?.node.string ?? service.member("@id")?.node.string
        return id.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }
}
