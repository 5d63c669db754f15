/// Where a value sits inside a parsed gallery, printed as a jq path: `.results[2].content.src`.
///
/// Keys that are not jq identifiers are quoted: `.feed.entry[0]["im:name"].label`.
struct KeyPath: Sendable, Equatable, CustomStringConvertible {
    enum Component: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    private(set) var components: [Component] = []

    static let root = KeyPath()

    /// This path extended by one object key (taken literally, dots included).
    func appending(_ key: String) -> KeyPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    /// This path extended by one component.
    func appending(_ component: Component) -> KeyPath {
        var copy = self
        copy.components.append(component)
        return copy
    }

    /// This path extended by an array index.
    func appending(_ index: Int) -> KeyPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    /// This path as seen from `ancestor` ("content.src" for `results[2].content.src` from
    /// `results[2]`); the whole path when `ancestor` is not a prefix of it or is all of it.
    func relative(to ancestor: KeyPath) -> KeyPath {
        let n = ancestor.components.count
        guard n < components.count, Array(components[..<n]) == ancestor.components else { return self }
        return KeyPath(components: Array(components[n...]))
    }

    /// The path as jq writes it, so it can be pasted into `jq`: `.results[2].content.src`,
    /// `.results[2]["content-src"]`, `.feed.entry[0]["im:name"].label`, `.` for the root.
    /// One printer with ``PathExpression`` (``PathExpression/describe(_:)``): keys that are not
    /// jq identifiers (ASCII letters, digits, `_`) are quoted, their text sanitized.
    var description: String {
        PathExpression.describe(components.map { component -> PathExpression.Step in
            switch component {
            case .key(let k): .key(k)
            case .index(let i): .index(i)
            }
        })
    }
}
