import Foundation

/// Turns URL strings found in a gallery into absolute URLs.
///
/// - Relative references ("flags/fr.png", "/img/a.png", "//cdn.example.com/a.png") resolve
///   against the gallery's own URL, as a browser would: a file gallery's directory, or the
///   http URL it was fetched from.
/// - Absolute `http`, `https`, `data` URLs are kept as they are; `file` URLs too, except in a
///   gallery read over http(s): a remote gallery must not make Vitrine read local files.
/// - Surrounding whitespace is trimmed; an empty string counts as missing (nil).
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

    /// The absolute URL for a plain relative path ("pictures/1.jpg", "a/b.png?w=1") by joining
    /// strings: what `URL(string:relativeTo:).absoluteURL` gives, at a fraction of the cost
    /// (it parses twice). Anything else (dot segments, "/" or "//" prefixes, non-ASCII,
    /// characters that need escaping) returns nil and takes the general path.
    private func joined(_ relative: String) -> URL? {
        guard let directory, let first = relative.utf8.first, Self.plainByte(first), first != UInt8(ascii: "."),
              first != UInt8(ascii: "/") else { return nil }
        var previous: UInt8 = 0
        var inQuery = false
        for c in relative.utf8 {
            if c == UInt8(ascii: "?") || c == UInt8(ascii: "#") { inQuery = true }
            guard Self.plainByte(c) || (inQuery && (c == UInt8(ascii: "?") || c == UInt8(ascii: "#"))) else { return nil }
            // No dot segments in the path ("a/./b", "a/../b", "a/..").
            if !inQuery, c == UInt8(ascii: "."), previous == UInt8(ascii: "/") || previous == UInt8(ascii: ".") { return nil }
            previous = c
        }
        return URL(string: directory + relative)
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

    /// - Throws: a shape error at `path`: "not a valid URL: '…'", "unsupported URL scheme
    ///   'ftp'", or "file: URL in a gallery read over http".
    func resolve(_ string: String, at path: KeyPath) throws(MappingError) -> URL? {
        let edges = [string.unicodeScalars.first, string.unicodeScalars.last]
        let trimmed = edges.contains { $0?.properties.isWhitespace ?? true }
            ? string.trimmingCharacters(in: .whitespacesAndNewlines) : string
        guard !trimmed.isEmpty else { return nil }
        let absolute = trimmed.utf8.prefix(12).contains(UInt8(ascii: ":"))
            ? URL(string: trimmed) : joined(trimmed) ?? URL(string: trimmed, relativeTo: base)?.absoluteURL
        guard let url = absolute ?? URL(string: trimmed, relativeTo: base)?.absoluteURL,
              let scheme = url.scheme?.lowercased() else {
            throw .shape(path, "not a valid URL: '\(Self.quote(trimmed))'")
        }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else {
                throw .shape(path, "not a valid URL: '\(Self.quote(trimmed))'")
            }
            return url
        case "data":
            return url
        case "file":
            if isRemote { throw .shape(path, "file: URL in a gallery read over \(base.scheme!.lowercased())") }
            return url
        default:
            throw .shape(path, "unsupported URL scheme '\(Self.quote(scheme))'")
        }
    }

    /// The URL held by a cursor: a string, or an object with `url`, `src`, `href`, `@id` or
    /// `id` (IIIF and some APIs nest the URL one level down). Nil when absent.
    /// - Throws: a shape error when it is neither.
    func resolve(_ cursor: Cursor?) throws(MappingError) -> URL? {
        guard let cursor else { return nil }
        if let s = cursor.node.string { return try resolve(s, at: cursor.path) }
        if cursor.node.object != nil {
            for key in ["url", "src", "href", "@id", "id"] {
                if let inner = cursor.member(key), inner.node.string != nil { return try resolve(inner) }
            }
        }
        throw cursor.typeError("a URL string")
    }

    /// The first of `cursors` that holds a URL (see ``resolve(_:)-(Cursor?)``).
    func resolve(anyOf cursors: [Cursor?]) throws(MappingError) -> URL? {
        for cursor in cursors { if let url = try resolve(cursor) { return url } }
        return nil
    }

    /// Sanitized and cut to 80 characters, for messages.
    static func quote(_ s: String) -> String {
        let clean = DisplayText.sanitize(s)
        return clean.count > 80 ? clean.prefix(79) + "…" : clean
    }
}
