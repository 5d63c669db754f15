/// Where a gallery's items and their fields are, for a shape no built-in reader knows: what
/// `--items`, `--title`, `--thumb`, `--image` and `--next` say.
///
/// ```
/// vitrine list gallery.json --items '.data.images[]' --title '.title // .description' \
///     --thumb '"https://i.example.com/\(.id)s.jpg"' --image .link
/// ```
/// Every field is optional:
/// - `items` is evaluated on the whole gallery and yields the items (a path ending in `[]`,
///   or a path to one array, whose elements are taken). Without it, the items are the array
///   that the generic search picks.
/// - `title`, `thumb` and `image` are evaluated on each item; the first value that is not null
///   or false counts. A field without an expression is guessed from the usual names (`title`,
///   `name`, `url`, `image`, `thumbnail`, ...), except that when only one of `thumb` and
///   `image` is given the other is that same URL, not a guess. A thumbnail falls back to the
///   image and the other way round.
/// - `next` is evaluated on the whole gallery and gives the next page's URL, absolute or
///   relative to the gallery's URL (`"?offset=\(.next_offset)"` keeps the path and replaces
///   the query). Nothing, null or an empty string: no next page.
///
/// With only `next` set, the items are read as without a mapping (by the detected format, or
/// by the preset), and only the next page comes from the expression.
public struct GalleryMapping: Sendable, Equatable {
    public var items: PathExpression?
    public var title: PathExpression?
    public var thumb: PathExpression?
    public var image: PathExpression?
    public var next: PathExpression?

    /// An empty mapping: the gallery is read by its detected format.
    public init() {}

    public init(
        items: PathExpression?, title: PathExpression?, thumb: PathExpression?, image: PathExpression?,
        next: PathExpression?
    ) {
        self.items = items
        self.title = title
        self.thumb = thumb
        self.image = image
        self.next = next
    }

    /// Parses each given expression.
    /// - Throws: the first ``PathSyntaxError``, with ``field`` naming the option it came from.
    public init(
        items: String? = nil, title: String? = nil, thumb: String? = nil, image: String? = nil, next: String? = nil
    ) throws(FieldSyntaxError) {
        func parse(_ text: String?, _ field: Field) throws(FieldSyntaxError) -> PathExpression? {
            guard let text else { return nil }
            do {
                return try PathExpression(text)
            } catch {
                throw FieldSyntaxError(field: field, error: error)
            }
        }
        self.items = try parse(items, .items)
        self.title = try parse(title, .title)
        self.thumb = try parse(thumb, .thumb)
        self.image = try parse(image, .image)
        self.next = try parse(next, .next)
    }

    /// The option names, for messages: `--items`.
    public enum Field: String, Sendable, CaseIterable {
        case items, title, thumb, image, next

        public var option: String { "--" + rawValue }
    }

    /// A syntax error in one field's expression.
    public struct FieldSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public var field: Field
        public var error: PathSyntaxError

        /// "--title '.a[': column 3: '[' is never closed".
        public var description: String { "\(field.option) '\(DisplayText.sanitize(error.expression))': \(error)" }
    }

    /// True when the mapping says where the items or any of their fields are (not only `next`).
    public var mapsItems: Bool { items != nil || title != nil || thumb != nil || image != nil }

    /// True when nothing is set.
    public var isEmpty: Bool { !mapsItems && next == nil }

    func expression(_ field: Field) -> PathExpression? {
        switch field {
        case .items: items
        case .title: title
        case .thumb: thumb
        case .image: image
        case .next: next
        }
    }
}
