import Foundation

/// Turns URL strings found in a gallery into absolute URLs.
///
/// - Relative references ("flags/fr.png", "/img/a.png", "//cdn.example.com/a.png") resolve
///   against the gallery's own URL, as a browser would: a file gallery's directory, or the
///   http URL it was fetched from.
/// - Absolute `http`, `https`, `data` URLs are kept as they are; `file` URLs too, except in a
///   gallery read over http(s): a remote gallery must not make Vitrine read local files.
/// - Surrounding whitespace is trimmed; an empty string counts as missing (nil).
/// - A URL that cannot be used is a ``ResolvedURL/problem(_:_:)``: its item is kept and its row
///   fails with the reason; only a gallery where no item is usable fails as a whole.
/// - Results are strings: a `URL` is made only when a row is loaded.
struct URLResolver {
    let base: URL
    /// The base's directory as a string ("http://host/api/" for "http://host/api/g.json?x=1"),
    /// for the fast path of plain relative paths; nil when the base has no usable form.
    private let directory: String?

    init(base: URL) {
        self.base = base
        self.directory = URLResolver.directory(of: base)
    }

    private static func directory(of base: URL) -> String? {
        guard var components = URLComponents(url: base.absoluteURL, resolvingAgainstBaseURL: false),
              components.scheme != nil else { return nil }
        components.query = nil
        components.fragment = nil
        let path = components.percentEncodedPath
        guard let slash = path.lastIndex(of: "/") else {
            guard path.isEmpty, components.host != nil else { return nil }
            components.percentEncodedPath = "/"
            return components.string
        }
        components.percentEncodedPath = String(path[...slash])
        return components.string
    }

    /// The absolute URL string for a plain relative path ("pictures/1.jpg", "a/b.png?w=1") by
    /// joining strings: what `URL(string:relativeTo:).absoluteString` gives, at a fraction of
    /// the cost (it parses twice), and without making a `URL` (about 440 bytes each on Linux). Anything else (dot segments, "/" or "//" prefixes, non-ASCII,
    /// characters that need escaping) returns nil and takes the general path.
    private func joined(_ relative: String) -> String? {
        guard let directory, let first = relative.utf8.first, Self.plainByte(first), first != UInt8(ascii: "."),
              first != UInt8(ascii: "/") else { return nil }
        var previous: UInt8 = 0
        var inQuery = false
        var escape = 0  // hex digits still expected after a "%"
        for c in relative.utf8 {
            if escape > 0 {
                guard Self.hexDigit(c) else { return nil }
                escape -= 1
                continue
            }
            if c == UInt8(ascii: "%") { escape = 2 }
            if c == UInt8(ascii: "?") || c == UInt8(ascii: "#") { inQuery = true }
            guard Self.plainByte(c) || (inQuery && (c == UInt8(ascii: "?") || c == UInt8(ascii: "#"))) else { return nil }
            // No dot segments in the path ("a/./b", "a/../b", "a/..").
            if !inQuery, c == UInt8(ascii: "."), previous == UInt8(ascii: "/") || previous == UInt8(ascii: ".") { return nil }
            previous = c
        }
        guard escape == 0 else { return nil }
        return directory + relative
    }

    private static func hexDigit(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    /// Unreserved and sub-delimiter ASCII, `/`, `:`, `@`, `%` (an existing escape).
    private static func plainByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    private var isRemote: Bool {
        let scheme = base.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }

    /// Whether relative references can resolve against the base: an http(s) or file URL (a
    /// `data:` gallery, say, has nothing to resolve against).
    private var isHierarchical: Bool {
        isRemote || base.isFileURL
    }

    /// The URL a gallery string stands for, or why it cannot be used; nil when it is missing
    /// (empty or only whitespace).
    ///
    /// Problems, which make the item's row fail rather than the whole gallery: "not a valid
    /// URL: '…'", "unsupported URL scheme 'javascript'", "file: URL in a gallery read over
    /// http", "relative URL '…' in a gallery without a base (data:)", "protocol-relative URL
    /// '…' in a local gallery".
    func resolve(_ string: String, at path: KeyPath) -> ResolvedURL? {
        let trimmed = Self.mayNeedTrimming(string) ? string.trimmingCharacters(in: .whitespacesAndNewlines) : string
        guard !trimmed.isEmpty else { return nil }
        var invalid: ResolvedURL { .problem(path, "not a valid URL: '\(Self.quote(trimmed))'") }
        let url: URL
        if Self.hasScheme(trimmed) {
            guard let absolute = URL(string: trimmed) else { return invalid }
            url = absolute
        } else {
            guard isHierarchical else {
                let scheme = base.scheme.map { $0.lowercased() + ":" } ?? "its address"
                return .problem(path, "relative URL '\(Self.quote(trimmed))' in a gallery without a base (\(scheme))")
            }
            if trimmed.hasPrefix("//"), !isRemote {
                return .problem(path, "protocol-relative URL '\(Self.quote(trimmed))' in a local gallery")
            }
            if let joined = joined(trimmed) { return .url(joined) }
            guard let relative = URL(string: trimmed, relativeTo: base)?.absoluteURL else { return invalid }
            url = relative
        }
        switch url.scheme?.lowercased() {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { return invalid }
        case "data":
            break
        case "file":
            if isRemote { return .problem(path, "file: URL in a gallery read over \(base.scheme!.lowercased())") }
            if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
                return .problem(path, "file: URL on another host '\(Self.quote(host))'")
            }
        case let scheme?:
            return .problem(path, "unsupported URL scheme '\(Self.quote(scheme))'")
        case nil:
            return invalid
        }
        return .url(url.absoluteString)
    }

    /// False when `s` neither starts nor ends with whitespace, decided on the bytes when they
    /// are printable ASCII (the usual case); true for "" and anything else to look at.
    private static func mayNeedTrimming(_ s: String) -> Bool {
        guard let first = s.utf8.first, let last = s.utf8.last else { return true }
        return !(0x21...0x7E).contains(first) || !(0x21...0x7E).contains(last)
    }

    /// True when `s` starts with a URI scheme and its colon (RFC 3986: a letter, then letters,
    /// digits, `+`, `-`, `.`): "https:", "data:", "javascript:"; not "//host:8080/a.png",
    /// "a/b:c.png" or "2020:01.jpg", which are relative references.
    static func hasScheme(_ s: String) -> Bool {
        var first = true
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                break
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if first { return false }
            case UInt8(ascii: ":"):
                return !first
            default:
                return false
            }
            first = false
        }
        return false
    }

    /// The URL held by a cursor: a string, or an object with `url`, `src`, `href`, `@id` or
    /// `id` (IIIF and some APIs nest the URL one level down). Nil when absent.
    /// - Throws: a shape error when it is neither.
    func resolve(_ cursor: Cursor?) throws(MappingError) -> ResolvedURL? {
        guard let cursor else { return nil }
        if let s = cursor.node.string { return resolve(s, at: cursor.path) }
        if cursor.node.object != nil {
            for key in ["url", "src", "href", "@id", "id"] {
                if let inner = cursor.member(key), inner.node.string != nil { return try resolve(inner) }
            }
        }
        throw cursor.typeError("a URL string")
    }

    /// The first of `cursors` that holds a URL (see ``resolve(_:)-(Cursor?)``).
    func resolve(anyOf cursors: [Cursor?]) throws(MappingError) -> ResolvedURL? {
        for cursor in cursors { if let url = try resolve(cursor) { return url } }
        return nil
    }

    /// A next page's URL: as ``resolve(_:)-(Cursor?)``, but a problem is a shape error (a page
    /// link is not an item that can fail on its own row).
    func pageURL(_ cursor: Cursor?) throws(MappingError) -> URL? {
        try Self.pageURL(resolve(cursor))
    }

    /// ``pageURL(_:)-(Cursor?)`` for a string at `path`.
    func pageURL(_ string: String, at path: KeyPath) throws(MappingError) -> URL? {
        try Self.pageURL(resolve(string, at: path))
    }

    private static func pageURL(_ resolved: ResolvedURL?) throws(MappingError) -> URL? {
        switch resolved {
        case nil: return nil
        case .url(let s)?:
            guard let url = URL(string: s) else { throw .shape(.root, "not a valid URL: '\(quote(s))'") }
            return url
        case .problem(let path, let message)?: throw .shape(path, message)
        }
    }

    /// Sanitized and cut to 80 characters, for messages.
    static func quote(_ s: String) -> String {
        let clean = DisplayText.sanitize(s)
        return clean.count > 80 ? clean.prefix(79) + "…" : clean
    }
}

/// A URL string from a gallery after ``URLResolver``: absolute and checked, or the reason it
/// cannot be used, with where it was found.
enum ResolvedURL: Equatable {
    case url(String)
    case problem(KeyPath, String)

    var string: String? {
        if case .url(let s) = self { return s }
        return nil
    }
}
