/// Where a value sits inside a parsed gallery, printed jq-style: `results[2].content.src`.
///
/// Keys that are not plain identifiers are quoted: `feed.entry[0]["im:name"].label`.
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

    /// This path extended by a dotted run of keys: `appending(path: "content.src")`.
    func appending(path: String) -> KeyPath {
        var copy = self
        for part in path.split(separator: ".") { copy.components.append(.key(String(part))) }
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

    var description: String {
        var out = ""
        for component in components {
            switch component {
            case .index(let i):
                out += "[\(i)]"
            case .key(let k) where KeyPath.isIdentifier(k):
                out += out.isEmpty ? k : "." + k
            case .key(let k):
                let escaped = k.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "\"", with: "\\\"")
                out += "[\"\(DisplayText.sanitize(escaped))\"]"
            }
        }
        return out
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return key.unicodeScalars.allSatisfy { s in
            ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || s == "_" || s == "-"
        }
    }
}
