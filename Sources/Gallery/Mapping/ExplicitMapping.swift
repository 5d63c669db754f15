import Foundation

/// Reads a gallery the way a ``GalleryMapping`` says, instead of by a built-in format.
///
/// Every explicit expression must match something: `--items` in the gallery, and each of
/// `--title`, `--thumb`, `--image` in at least one item; otherwise the error names the step that
/// matched nothing and what was there (`--items .data.images[]: .data matched nothing (keys at
/// top level: results, count)`). An item where a field matches nothing just lacks that field.
enum ExplicitMapping {
    static func map(_ root: Cursor, mapping: GalleryMapping, context: MappingContext) throws(MappingError) -> MappedGallery {
        let items = try itemCursors(root, mapping: mapping)
        let fields: [(GalleryMapping.Field, PathExpression)] = [.title, .thumb, .image].compactMap { field in
            mapping.expression(field).map { (field, $0) }
        }
        let guessing = fields.count < 3
        var firstMiss: [GalleryMapping.Field: String] = [:]
        var matched: Set<GalleryMapping.Field> = []
        let expected = fields.isEmpty ? "a url, image or thumbnail field" : "--image or --thumb to give a URL"
        var read = 0
        func builder(_ item: Cursor) throws(MappingError) -> ItemBuilder {
            var builder = guessing ? (try? GenericItem.builder(item, context: context)) ?? ItemBuilder() : ItemBuilder()
            // One of the two URLs mapped: the other is that one, never a guess (a guess can pick
            // a caption that looks like a file name, "Sunset.png").
            if mapping.thumb != nil && mapping.image == nil { builder.image = nil }
            if mapping.image != nil && mapping.thumb == nil { builder.thumbnail = nil }
            for (field, expression) in fields {
                let result = try PathEvaluator.evaluate(expression, at: item)
                guard let value = result.values.first(where: \.isTruthy) else {
                    if firstMiss[field] == nil {
                        firstMiss[field] = result.miss ?? "\(expression.text) is null or false"
                    }
                    switch field {
                    case .title: builder.title = nil
                    case .thumb: builder.thumbnail = nil
                    default: builder.image = nil
                    }
                    continue
                }
                matched.insert(field)
                switch field {
                case .title: builder.title = try text(of: value)
                case .thumb: builder.thumbnail = try url(of: value, context: context)
                default: builder.image = try url(of: value, context: context)
                }
            }
            read += 1
            return builder
        }
        var built: MappedGallery?
        do {
            built = try MappedGallery(
                title: ItemListFinder.title(of: root), elements: items, expected: expected, builder: builder)
        } catch {
            // An error reading an item stands; "no image URL" after reading them all is
            // explained better by a field that matched nothing, when there is one.
            if read < items.count || fields.allSatisfy({ matched.contains($0.0) }) { throw error }
        }
        for (field, expression) in fields where !matched.contains(field) {
            let miss = firstMiss[field] ?? "matched nothing"
            let scope = items.count == 1 ? "" : " (the same in all \(items.count) items)"
            throw .mapping(label(field, expression), miss + scope)
        }
        guard var mapped = built else { throw .empty }
        mapped.format = .mapped
        if let next = mapping.next { mapped.nextPage = try nextPage(root, expression: next, context: context) }
        return mapped
    }

    /// The items: what `--items` yields (one array's elements when it yields a single array
    /// and does not end in `[]`), or the array the generic search picks.
    static func itemCursors(_ root: Cursor, mapping: GalleryMapping) throws(MappingError) -> [Cursor] {
        guard let expression = mapping.items else {
            guard let best = GenericSearch.bestArray(in: root), let elements = best.elements else {
                throw .mapping(
                    "--items", "no array of items found; say where they are (found \(ItemListFinder.describe(root.node)))")
            }
            return elements.filter { $0.node != .null }
        }
        let result = try PathEvaluator.evaluate(expression, at: root)
        let values = result.values.filter(\.isTruthy)
        guard !values.isEmpty else {
            throw .mapping(label(.items, expression), result.miss ?? "\(expression.text) is null or false")
        }
        var cursors = values.map { value -> Cursor in
            switch value {
            case .node(let c): c
            case .text(let s, let path): Cursor(.string(s), path: path)
            }
        }
        if !expression.iterates, cursors.count == 1, let elements = cursors[0].elements {
            cursors = elements.filter { $0.node != .null }
            guard !cursors.isEmpty else { throw .empty }
        }
        return cursors
    }

    /// The next page from `expression`: a URL string (absolute, or relative to the gallery).
    static func nextPage(_ root: Cursor, expression: PathExpression, context: MappingContext) throws(MappingError) -> NextPage? {
        let result = try PathEvaluator.evaluate(expression, at: root)
        guard let value = result.values.first(where: \.isTruthy) else { return nil }
        switch value {
        case .text(let s, let path): return context.resolver.nextPage(s, at: path)
        case .node(let c): return context.resolver.nextPage(c)
        }
    }

    /// "--items .data.images[]"
    static func label(_ field: GalleryMapping.Field, _ expression: PathExpression) -> String {
        "\(field.option) \(DisplayText.sanitize(expression.text))"
    }

    private static func text(of value: PathValue) throws(MappingError) -> String? {
        switch value {
        case .text(let s, _):
            return s
        case .node(let c):
            guard let text = Cursor.text(of: c.node) else { throw c.typeError("text") }
            return text
        }
    }

    private static func url(of value: PathValue, context: MappingContext) throws(MappingError) -> ResolvedURL? {
        switch value {
        case .text(let s, let path): context.resolver.resolve(s, at: path)
        case .node(let c): context.resolver.resolve(c)
        }
    }
}
