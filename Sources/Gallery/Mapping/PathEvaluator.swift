/// A value a ``PathExpression`` yields: a place in the parsed gallery, or text a template made.
enum PathValue: Equatable {
    case node(Cursor)
    /// Made by a string template, evaluated at `path` (for messages and URL errors).
    case text(String, at: KeyPath)

    /// jq's truthiness: everything but null and false.
    var isTruthy: Bool {
        guard case .node(let c) = self else { return true }
        return c.node != .null && c.node != .bool(false)
    }

    var path: KeyPath {
        switch self {
        case .node(let c): c.path
        case .text(_, let path): path
        }
    }
}

extension Cursor: Equatable {
    static func == (a: Cursor, b: Cursor) -> Bool { a.path == b.path && a.node == b.node }
}

/// What an evaluation gives: the values, and when there are none, why.
struct PathResult {
    var values: [PathValue]
    /// Which step matched nothing and what was there instead:
    /// ".data matched nothing (keys at top level: results, count)". Nil when `values` is not
    /// empty.
    var miss: String?

    var first: PathValue? { values.first }
}

/// Evaluates ``PathExpression``s over a parsed gallery.
enum PathEvaluator {
    /// The values `expression` yields at `cursor`.
    /// - Throws: a shape error when a template is asked to interpolate an object or an array.
    static func evaluate(_ expression: PathExpression, at cursor: Cursor) throws(MappingError) -> PathResult {
        try evaluate(expression.term, at: cursor)
    }

    static func evaluate(_ term: PathExpression.Term, at cursor: Cursor) throws(MappingError) -> PathResult {
        switch term {
        case .path(let steps):
            return follow(steps, from: cursor)
        case .template(let parts):
            return try template(parts, at: cursor)
        case .alternatives(let terms):
            var misses: [String] = []
            for term in terms {
                let result = try evaluate(term, at: cursor)
                let truthy = result.values.filter(\.isTruthy)
                if !truthy.isEmpty { return PathResult(values: truthy) }
                misses.append(result.miss ?? "\(describe(term)) is null or false")
            }
            return PathResult(values: [], miss: misses.joined(separator: "; "))
        }
    }

    /// Applies the steps in turn to every value so far. The first step that leaves nothing is
    /// named in `miss`, with what its first input held.
    static func follow(_ steps: [PathExpression.Step], from start: Cursor) -> PathResult {
        var current = [start]
        for (n, step) in steps.enumerated() {
            var next: [Cursor] = []
            for cursor in current { apply(step, to: cursor, into: &next) }
            if next.isEmpty {
                let prefix = PathExpression.describe(steps[...n])
                return PathResult(values: [], miss: "\(prefix) matched nothing (\(reason(step, at: current[0])))")
            }
            current = next
        }
        return PathResult(values: current.map(PathValue.node))
    }

    private static func apply(_ step: PathExpression.Step, to cursor: Cursor, into out: inout [Cursor]) {
        switch (step, cursor.node) {
        case (.key(let key), .object):
            if let member = cursor.member(key) { out.append(member) }
        case (.index(let i), .array(let elements)):
            let index = i < 0 ? elements.count + i : i
            if elements.indices.contains(index), elements[index] != .null {
                out.append(Cursor(elements[index], path: cursor.path.appending(index)))
            }
        case (.iterate, .array(let elements)):
            out.reserveCapacity(out.count + elements.count)
            for (index, element) in elements.enumerated() where element != .null {
                out.append(Cursor(element, path: cursor.path.appending(index)))
            }
        case (.iterate, .object(let members)):
            for key in sortedKeys(members) {
                if let member = cursor.member(key) { out.append(member) }
            }
        default:
            break
        }
    }

    /// Object keys in a stable order: numeric keys by value first (MediaWiki page ids), then
    /// the rest by code point.
    static func sortedKeys(_ members: NodeObject) -> [String] {
        members.keys.sorted { (Int($0) ?? .max, $0) < (Int($1) ?? .max, $1) }
    }

    /// Why `step` found nothing in `cursor`, for messages.
    static func reason(_ step: PathExpression.Step, at cursor: Cursor) -> String {
        let place = cursor.path.components.isEmpty ? "top level" : cursor.path.description
        switch (step, cursor.node) {
        case (.key, .object(let members)) where members.isEmpty:
            return "\(place) is an empty object"
        case (.key(let key), .object(let members)):
            if members[key] == .null { return "\(place).\(key) is null" }
            return "keys at \(place): " + keyList(members)
        case (.key, .array(let a)):
            return "found an array of \(a.count) at \(place); use [] or [0]"
        case (.index, .array(let a)) where a.isEmpty:
            return "\(place) is an empty array"
        case (.index(let i), .array(let a)):
            let index = i < 0 ? a.count + i : i
            if a.indices.contains(index) { return "\(place)[\(i)] is null" }
            return "\(place) has \(a.count) element\(a.count == 1 ? "" : "s")"
        case (.iterate, .array), (.iterate, .object):
            return "\(place) is empty or holds only nulls"
        case (_, let node):
            return "found \(node.kindDescription) at \(place)"
        }
    }

    /// "a, b, c" (sorted, sanitized, at most 8 and an ellipsis).
    static func keyList(_ members: NodeObject) -> String {
        let keys = members.keys.sorted().prefix(8).map { DisplayText.sanitize($0) }
        return keys.joined(separator: ", ") + (members.count > 8 ? ", …" : "")
    }

    /// A template's text; nothing when an interpolation yields nothing.
    private static func template(_ parts: [PathExpression.Part], at cursor: Cursor) throws(MappingError) -> PathResult {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let s):
                out += s
            case .interpolation(let inner):
                let result = try evaluate(inner, at: cursor)
                guard let value = result.values.first(where: \.isTruthy) else {
                    let why = result.miss ?? "\(inner.text) is null or false"
                    return PathResult(values: [], miss: "\\(\(inner.text)): \(why)")
                }
                out += try text(of: value)
            }
        }
        return PathResult(values: [.text(out, at: cursor.path)])
    }

    /// Text to put in a string: strings as they are, numbers without a needless ".0",
    /// booleans as `true`. - Throws: for objects, arrays and binary values.
    static func text(of value: PathValue) throws(MappingError) -> String {
        switch value {
        case .text(let s, _):
            return s
        case .node(let c):
            switch c.node {
            case .string(let s): return s
            case .number: return Cursor.text(of: c.node) ?? ""
            case .bool(let b): return b ? "true" : "false"
            default: throw c.typeError("a string, number or boolean to put in a string")
            }
        }
    }

    private static func describe(_ term: PathExpression.Term) -> String {
        switch term {
        case .path(let steps): PathExpression.describe(steps)
        case .template: "the string"
        case .alternatives: "the alternatives"
        }
    }
}
