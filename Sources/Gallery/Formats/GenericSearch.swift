/// The last resort for JSON (and plists) no reader knows: search the whole tree for the array
/// whose elements look most like pictures, and read it with ``GenericItem``'s field names.
///
/// Breadth-first to depth 8 over objects and arrays; the array with the highest total
/// ``GenericItem/score(_:)`` wins, a shallower one on a tie, then the first in key order.
/// When nothing scores, the top level is judged as ``PlainArray`` would (so the error says
/// "empty" or "not a gallery" about what is really there).
enum GenericSearch: FormatReader {
    static let format = GalleryFormat.generic
    static let maxDepth = 8

    static func matches(_ root: Node) -> Bool { true }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        guard let list = bestArray(in: root) else {
            _ = try ItemListFinder.find(in: root)
            throw .unrecognized(found: ItemListFinder.describe(root.node))
        }
        return try MappedGallery(
            title: ItemListFinder.title(of: root), elements: list.elements ?? [],
            expected: "a url, image or thumbnail field"
        ) { element throws(MappingError) in try GenericItem.builder(element, context: context) }
    }

    /// The best-scoring array in the tree, or nil when none scores.
    static func bestArray(in root: Cursor) -> Cursor? {
        var level = [root]
        var best: (cursor: Cursor, score: Int)?
        for _ in 0...maxDepth where !level.isEmpty {
            var next: [Cursor] = []
            for cursor in level {
                switch cursor.node {
                case .array(let elements):
                    let score = elements.reduce(0) { $0 + (($1.object != nil) ? GenericItem.score($1) : 0) }
                    if score > (best?.score ?? 0) { best = (cursor, score) }
                    next += cursor.elements?.filter { $0.node.object != nil || $0.node.array != nil } ?? []
                case .object(let members):
                    next += members.keys.sorted().compactMap { cursor.member($0) }
                        .filter { $0.node.object != nil || $0.node.array != nil }
                default:
                    break
                }
            }
            level = next
        }
        return best?.cursor
    }
}
