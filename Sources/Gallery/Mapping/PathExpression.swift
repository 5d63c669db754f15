/// A small jq-like expression that picks values out of a gallery: what `--items`, `--title`,
/// `--thumb`, `--image` and `--next` take.
///
/// The syntax is a subset of jq's, so an expression can be tried with `jq` first:
///
/// | form | meaning |
/// |---|---|
/// | `.` | the value itself (the whole gallery, or the item) |
/// | `.a.b` | member `b` of member `a` (identifiers: letters, digits, `_`, not starting with a digit) |
/// | `.["key with:colon"]`, `."key"` | a member whose name is not an identifier |
/// | `[0]`, `[-1]` | an element of an array, counted from the end when negative (`.a[0]`, `.[0]`) |
/// | `[]` | every element of an array, or every member of an object (in key order, numeric keys by value) |
/// | `A // B` | the values of `A` that are not null or false; if there are none, those of `B` |
/// | `"https://host/\(.id).jpg"` | a string; `\(EXPR)` puts the first value of `EXPR` in it |
///
/// Differences from jq, all on the lenient side: a missing member, an index out of range or a
/// step into the wrong type yields nothing instead of null or an error, and a template with an
/// interpolation that yields nothing yields nothing (jq would write `null` into the string),
/// so `"\(.a).jpg" // .b` falls back to `.b`.
public struct PathExpression: Sendable, Equatable, CustomStringConvertible {
    /// One step of a path.
    enum Step: Sendable, Equatable {
        /// `.name`, `.["name"]`
        case key(String)
        /// `[n]`; negative counts from the end.
        case index(Int)
        /// `[]`
        case iterate
    }

    /// One piece of a string template.
    enum Part: Sendable, Equatable {
        case literal(String)
        case interpolation(PathExpression)
    }

    /// The parsed shape.
    indirect enum Term: Sendable, Equatable {
        /// `.a.b[0][]`; no steps is `.`.
        case path([Step])
        /// `"…\(…)…"`
        case template([Part])
        /// `A // B // C`, at least two.
        case alternatives([Term])
    }

    /// The text the expression was parsed from, as the user wrote it.
    public let text: String
    let term: Term

    init(text: String, term: Term) {
        self.text = text
        self.term = term
    }

    /// Parses `text`.
    /// - Throws: ``PathSyntaxError`` with the 1-based column of the fault.
    public init(_ text: String) throws(PathSyntaxError) {
        var parser = PathParser(text)
        self.init(text: text, term: try parser.parseWhole())
    }

    public var description: String { text }

    /// True for a plain path that ends in `[]` (it yields a stream of values).
    var iterates: Bool {
        if case .path(let steps) = term { return steps.last == .iterate }
        return false
    }

    /// A path's steps written back jq-style: `.data.images[0]`, `.["im:name"]`, `.` for none.
    static func describe(_ steps: some Collection<Step>) -> String {
        var out = ""
        for step in steps {
            switch step {
            case .key(let k) where isIdentifier(k):
                out += "." + k
            case .key(let k):
                let escaped = k.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                out += (out.isEmpty ? "." : "") + "[\"\(DisplayText.sanitize(escaped))\"]"
            case .index(let i):
                out += (out.isEmpty ? "." : "") + "[\(i)]"
            case .iterate:
                out += (out.isEmpty ? "." : "") + "[]"
            }
        }
        return out.isEmpty ? "." : out
    }

    /// jq's identifier: ASCII letters, digits and `_`, not starting with a digit.
    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return s.unicodeScalars.allSatisfy(isIdentifierScalar)
    }

    static func isIdentifierScalar(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_"
    }
}

/// Why an expression could not be parsed, and where.
///
/// `description` is "column 7: expected a key name after '.'"; ``pointer`` draws the expression
/// with a caret under the column, for a second line of a message.
public struct PathSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The whole expression.
    public var expression: String
    /// 1-based, in characters.
    public var column: Int
    public var message: String

    public var description: String { "column \(column): \(message)" }

    /// Two lines: the expression (sanitized) and a caret under ``column``.
    public var pointer: String {
        let shown = DisplayText.sanitize(expression)
        return shown + "\n" + String(repeating: " ", count: max(0, column - 1)) + "^"
    }
}
