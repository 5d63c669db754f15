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
            ? URL(string: trimmed) : URL(string: trimmed, relativeTo: base)?.absoluteURL
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
