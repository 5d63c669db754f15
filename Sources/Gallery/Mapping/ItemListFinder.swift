/// Finds the array of items in a gallery whose layout is not known in advance.
///
/// - A top-level array is the list.
/// - In a top-level object, the member array whose elements look most like items (see
///   ``GenericItem/score(_:)``) wins; ties go to the usual names (`items`, `countries`,
///   `images`, ...) and then to the alphabetically first key, so the choice never depends on
///   the parser's key order. When no member scores, a lone array member is still taken, so the
///   error can say what is missing in it.
enum ItemListFinder {
    static let preferredKeys = [
        "items", "countries", "images", "photos", "pictures", "results", "data", "entries", "gallery",
    ]

    /// - Throws: `.empty` for an empty list, `.unrecognized` when there is no list.
    static func find(in root: Cursor) throws(MappingError) -> CursorElements {
        if let elements = root.elements {
            guard !elements.isEmpty else { throw .empty }
            guard elements.contains(where: { GenericItem.score($0.node) > 0 || $0.node.object != nil }) else {
                throw .unrecognized(found: describe(root.node))
            }
            return elements
        }
        guard let object = root.node.object else { throw .unrecognized(found: describe(root.node)) }
        let arrays = object.keys.sorted().compactMap { key -> (key: String, score: Int, count: Int)? in
            guard let a = object[key]?.array else { return nil }
            return (key, a.reduce(0) { $0 + GenericItem.score($1) }, a.count)
        }
        let best = arrays.filter { $0.score > 0 }.max { lhs, rhs in
            if lhs.score != rhs.score { return lhs.score < rhs.score }
            return rank(lhs.key) > rank(rhs.key)
        }
        if let best, let elements = root.member(best.key)?.elements { return elements }
        if arrays.count == 1, let only = root.member(arrays[0].key)?.elements,
           only.isEmpty || only.allSatisfy({ $0.node.object != nil }) {
            guard !only.isEmpty else { throw .empty }
            return only
        }
        throw .unrecognized(found: describe(root.node))
    }

    /// True when ``find(in:)`` would pick a list, or report an empty one, at the top level.
    static func hasTopLevelList(_ root: Node) -> Bool {
        do {
            _ = try find(in: Cursor(root))
            return true
        } catch {
            return error != .unrecognized(found: describe(root))
        }
    }

    /// The gallery's own title, when the top-level object has one.
    static func title(of root: Cursor) -> String? {
        guard root.node.object != nil else { return nil }
        for key in ["title", "name"] {
            if let s = root.member(key)?.node.string { return s }
        }
        return nil
    }

    /// Lower is preferred; unknown keys come after the known ones, in sorted order.
    private static func rank(_ key: String) -> Int {
        preferredKeys.firstIndex(of: key) ?? preferredKeys.count
    }

    /// "an object with keys a, b, c", "an array of 3 numbers", "a string", for messages.
    static func describe(_ node: Node) -> String {
        switch node {
        case .object(let o) where o.isEmpty:
            return "an empty object"
        case .object(let o):
            let keys = o.keys.sorted().prefix(6).map { DisplayText.sanitize($0) }
            return "an object with keys " + keys.joined(separator: ", ") + (o.count > 6 ? ", …" : "")
        case .array(let a):
            let kinds = Set(a.map { plural($0) })
            return "an array of \(a.count) " + (kinds.count == 1 ? kinds.first! : "mixed values")
        default:
            return node.kindDescription
        }
    }

    private static func plural(_ node: Node) -> String {
        switch node {
        case .string: "strings"
        case .number: "numbers"
        case .bool: "booleans"
        case .null: "nulls"
        case .array: "arrays"
        case .object: "objects"
        case .data: "data values"
        case .date: "dates"
        }
    }
}
