/// A node together with its key path, with typed accessors that throw shape errors.
///
/// The rule every reader follows: a field that is absent or `null` is simply missing (nil);
/// a field that is present with the wrong type is a ``MappingError/shape(_:_:)`` naming its
/// key path, so a broken gallery says exactly where it is broken.
struct Cursor {
    let node: Node
    /// The path of the parent, when ``last`` is set; else the whole path.
    private let base: KeyPath
    /// The last step, kept apart so that a cursor that never reports an error never builds
    /// its path (an array copy per element and per member of a big gallery).
    private let last: KeyPath.Component?

    init(_ node: Node, path: KeyPath = .root) {
        self.node = node
        self.base = path
        self.last = nil
    }

    /// A cursor at `last` below `parent`.
    private init(_ node: Node, parent: KeyPath, last: KeyPath.Component) {
        self.node = node
        self.base = parent
        self.last = last
    }

    /// Where this value sits in the gallery.
    var path: KeyPath {
        guard let last else { return base }
        return base.appending(last)
    }

    /// The element at `index` of an array whose path is `parent`.
    static func element(_ node: Node, at index: Int, of parent: KeyPath) -> Cursor {
        Cursor(node, parent: parent, last: .index(index))
    }

    /// The member `key` of an object, nil when absent, null, or when this is not an object.
    func member(_ key: String) -> Cursor? {
        guard let child = node.object?[key], child != .null else { return nil }
        return Cursor(child, parent: path, last: .key(key))
    }

    /// Follows dotted keys: `member(path: "content.src")`.
    func member(path dotted: String) -> Cursor? {
        if !dotted.utf8.contains(UInt8(ascii: ".")) { return member(dotted) }
        var cursor = self
        for key in dotted.split(separator: ".") {
            guard let next = cursor.member(String(key)) else { return nil }
            cursor = next
        }
        return cursor
    }

    /// The elements of this array, each with its index in the path; nil if not an array.
    /// Lazy: a cursor is made when an element is visited, not for all of them up front (a
    /// 100,000-item gallery would hold 100,000 cursors and key paths at once).
    var elements: CursorElements? {
        node.array.map { CursorElements(nodes: $0, path: path) }
    }

    func shape(_ message: String) -> MappingError { .shape(path, message) }

    func typeError(_ expected: String) -> MappingError {
        .shape(path, "not \(expected) (found \(node.kindDescription))")
    }

    /// The string at `key`. - Throws: a shape error if present but not a string.
    func string(_ key: String) throws(MappingError) -> String? {
        guard let c = member(path: key) else { return nil }
        guard let s = c.node.string else { throw c.typeError("a string") }
        return s
    }

    /// The number at `key` (a numeric string counts). - Throws: if present but not a number.
    func number(_ key: String) throws(MappingError) -> Double? {
        guard let c = member(path: key) else { return nil }
        guard let n = c.node.number else { throw c.typeError("a number") }
        return n
    }

    /// The object at `key`. - Throws: if present but not an object.
    func object(_ key: String) throws(MappingError) -> Cursor? {
        guard let c = member(path: key) else { return nil }
        guard c.node.object != nil else { throw c.typeError("an object") }
        return c
    }

    /// The elements of the array at `key`. - Throws: if present but not an array.
    func array(_ key: String) throws(MappingError) -> CursorElements? {
        guard let c = member(path: key) else { return nil }
        guard let elements = c.elements else { throw c.typeError("an array") }
        return elements
    }

    /// A boolean at `key`, leniently: nil unless it is a real boolean.
    func bool(_ key: String) -> Bool? {
        if case .bool(let b)? = member(path: key)?.node { return b }
        return nil
    }

    /// Display text at `key`: a string, a number, or a IIIF-style language map
    /// (`{"en": ["Title"]}`: "en", then "none", then the first language by name).
    /// - Throws: a shape error for booleans and other values that hold no text.
    func text(_ key: String) throws(MappingError) -> String? {
        guard let c = member(path: key) else { return nil }
        guard let text = Cursor.text(of: c.node) else { throw c.typeError("text") }
        return text
    }

    // `a ?? b` with `try` loses the typed error (its autoclosure rethrows `any Error`), so
    // fallbacks between keys go through these.

    /// ``text(_:)`` of the first of `keys` that is present.
    func text(anyOf keys: [String]) throws(MappingError) -> String? {
        for key in keys { if let t = try text(key) { return t } }
        return nil
    }

    /// ``number(_:)`` of the first of `keys` that is present.
    func number(anyOf keys: [String]) throws(MappingError) -> Double? {
        for key in keys { if let n = try number(key) { return n } }
        return nil
    }

    /// ``object(_:)`` of the first of `keys` that is present.
    func object(anyOf keys: [String]) throws(MappingError) -> Cursor? {
        for key in keys { if let o = try object(key) { return o } }
        return nil
    }

    static func text(of node: Node) -> String? {
        switch node {
        case .string(let s): return s
        case .number(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .array(let a): return a.lazy.compactMap { text(of: $0) }.first
        case .object(let o):
            if let v = o["@value"] ?? o["value"] ?? o["label"] ?? o["_content"] { return text(of: v) }
            let key = o["en"] != nil ? "en" : o["none"] != nil ? "none" : o.keys.sorted().first
            return key.flatMap { o[$0] }.flatMap { text(of: $0) }
        default: return nil
        }
    }
}

/// The elements of an array node as cursors, made on access (see ``Cursor/elements``).
struct CursorElements: RandomAccessCollection, ExpressibleByArrayLiteral {
    let nodes: [Node]
    /// The array's own path; element `i` is at `path[i]`.
    let path: KeyPath

    init(nodes: [Node], path: KeyPath) {
        self.nodes = nodes
        self.path = path
    }

    /// `[]`: no elements (for `elements ?? []`).
    init(arrayLiteral: Never...) {
        self.init(nodes: [], path: .root)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { nodes.count }

    subscript(index: Int) -> Cursor {
        Cursor.element(nodes[index], at: index, of: path)
    }
}
