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
    /// The base's directory ("http://host/api/" for "http://host/api/g.json?x=1"), for the
    /// fast path of plain relative paths; nil when the base has no usable form.
    private let directory: URLDirectory?

    /// The base's scheme, lowercased ("" when it has none).
    private let baseScheme: String
    /// Whether the base is http(s): its items may not point at local files.
    private let isRemote: Bool
    /// Whether relative references can resolve against the base: an http(s) or file URL (a
    /// `data:` gallery, say, has nothing to resolve against).
    private let isHierarchical: Bool

    init(base: URL) {
        self.base = base
        self.directory = URLResolver.directory(of: base).map(URLDirectory.init(prefix:))
        self.baseScheme = base.scheme?.lowercased() ?? ""
        self.isRemote = baseScheme == "http" || baseScheme == "https"
        self.isHierarchical = isRemote || base.isFileURL
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

    /// Whether `relative` is a plain relative path ("pictures/1.jpg", "a/b.png?w=1") whose
    /// absolute form is the directory's string followed by it: what
    /// `URL(string:relativeTo:).absoluteString` gives, without parsing twice or making a `URL`
    /// (about 440 bytes each on Linux). Anything else (dot segments, "/" or "//" prefixes,
    /// non-ASCII, characters that need escaping) is false and takes the general path.
    private func isPlainRelative(_ relative: String) -> Bool {
        guard directory != nil else { return false }
        var relative = relative
        return relative.withUTF8(Self.isPlainRelative)
    }

    private static func isPlainRelative(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        plainBytes.withUnsafeBufferPointer { plain in isPlainRelative(bytes, plain: plain) }
    }

    private static func isPlainRelative(_ bytes: UnsafeBufferPointer<UInt8>, plain plainBytes: UnsafeBufferPointer<Bool>) -> Bool {
        guard let first = bytes.first, plainBytes[Int(first)], first != UInt8(ascii: "."),
              first != UInt8(ascii: "/") else { return false }
        var previous: UInt8 = 0
        var inQuery = false
        var escape = 0  // hex digits still expected after a "%"
        for c in bytes {
            if escape > 0 {
                guard hexDigit(c) else { return false }
                escape -= 1
                continue
            }
            if c == UInt8(ascii: "%") { escape = 2 }
            if c == UInt8(ascii: "?") || c == UInt8(ascii: "#") { inQuery = true }
            guard plainBytes[Int(c)] || (inQuery && (c == UInt8(ascii: "?") || c == UInt8(ascii: "#"))) else { return false }
            // No dot segments in the path ("a/./b", "a/../b", "a/..").
            if !inQuery, c == UInt8(ascii: "."), previous == UInt8(ascii: "/") || previous == UInt8(ascii: ".") { return false }
            previous = c
        }
        return escape == 0
    }

    /// ``plainByte(_:)`` for every byte value, looked up once per byte of every URL.
    private static let plainBytes: [Bool] = (0...255).map { plainByte(UInt8($0)) }

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

    /// The URL a gallery string stands for, or why it cannot be used; nil when it is missing
    /// (empty or only whitespace).
    ///
    /// Problems, which make the item's row fail rather than the whole gallery: "not a valid
    /// URL: '…'", "unsupported URL scheme 'javascript'", "file: URL in a gallery read over
    /// http", "relative URL '…' in a gallery without a base (data:)", "protocol-relative URL
    /// '…' in a local gallery".
    func resolve(_ string: String, at path: KeyPath) -> ResolvedURL? {
        check(string)?.at(path)
    }

    /// What ``resolve(_:at:)`` says, before a problem is given its path (which is only made
    /// for a problem).
    private enum Checked {
        case url(ResolvedURL)
        case problem(String)

        func at(_ path: @autoclosure () -> KeyPath) -> ResolvedURL {
            switch self {
            case .url(let url): url
            case .problem(let message): .problem(path(), message)
            }
        }
    }

    private func check(_ string: String) -> Checked? {
        let trimmed = Self.mayNeedTrimming(string) ? string.trimmingCharacters(in: .whitespacesAndNewlines) : string
        guard !trimmed.isEmpty else { return nil }
        var invalid: Checked { .problem("not a valid URL: '\(Self.quote(trimmed))'") }
        let url: URL
        if Self.hasScheme(trimmed) {
            guard let absolute = URL(string: trimmed) else { return invalid }
            url = absolute
        } else {
            guard isHierarchical else {
                let scheme = baseScheme.isEmpty ? "its address" : baseScheme + ":"
                return .problem("relative URL '\(Self.quote(trimmed))' in a gallery without a base (\(scheme))")
            }
            if trimmed.hasPrefix("//"), !isRemote {
                return .problem("protocol-relative URL '\(Self.quote(trimmed))' in a local gallery")
            }
            if let directory, isPlainRelative(trimmed) { return .url(.joined(directory, trimmed)) }
            guard let relative = URL(string: trimmed, relativeTo: base)?.absoluteURL else { return invalid }
            url = relative
        }
        switch url.scheme?.lowercased() {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { return invalid }
        case "data":
            break
        case "file":
            if isRemote { return .problem("file: URL in a gallery read over \(baseScheme)") }
            if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
                return .problem("file: URL on another host '\(Self.quote(host))'")
            }
        case let scheme?:
            return .problem("unsupported URL scheme '\(Self.quote(scheme))'")
        case nil:
            return invalid
        }
        return .url(.url(url.absoluteString))
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
    ///
    /// A value of another type (a number, a boolean, an array, an object without such a
    /// string) is a ``ResolvedURL/wrongType(_:_:)`` problem at the cursor's path, "not a URL
    /// string (found a number)": its item's row fails, naming the field, and the rest of the
    /// gallery opens.
    func resolve(_ cursor: Cursor?) -> ResolvedURL? {
        guard let cursor else { return nil }
        return resolve(cursor.node, at: cursor.path)
    }

    /// The text at `key` where a URL string is expected, for formats that look at the text
    /// before resolving it (HTML-escaped, or filtered by extension): nil when absent or null,
    /// else the string and its path, or a ``ResolvedURL/wrongType(_:_:)`` problem for a value
    /// of another type (its item's row fails; the gallery opens).
    static func urlText(_ key: String, of cursor: Cursor) -> Result<(text: String, path: KeyPath), WrongType>? {
        guard let member = cursor.member(key) else { return nil }
        guard let text = member.node.string else {
            return .failure(WrongType(url: .wrongType(member.path, "not a URL string (found \(member.node.kindDescription))")))
        }
        return .success((text, member.path))
    }

    /// A ``ResolvedURL/wrongType(_:_:)`` as the failure of ``urlText(_:of:)``.
    struct WrongType: Error {
        let url: ResolvedURL
    }

    /// ``resolve(_:)-(Cursor?)`` for the member `key` of the object at `cursor`, without making
    /// a cursor for it (the path is made only for a problem). Nil when absent or null.
    func resolve(member key: String, of cursor: Cursor) -> ResolvedURL? {
        guard let value = cursor.node.object?[key], value != .null else { return nil }
        if case .string(let s) = value { return check(s)?.at(cursor.path.appending(key)) }
        return resolve(value, at: cursor.path.appending(key))
    }

    private func resolve(_ node: Node, at path: KeyPath) -> ResolvedURL? {
        if case .string(let s) = node { return resolve(s, at: path) }
        if let object = node.object {
            for key in ["url", "src", "href", "@id", "id"] {
                if case .string(let s)? = object[key] { return resolve(s, at: path.appending(key)) }
            }
        }
        return .wrongType(path, "not a URL string (found \(node.kindDescription))")
    }

    /// The first of `cursors` that holds a URL (see ``resolve(_:)-(Cursor?)``).
    func resolve(anyOf cursors: [Cursor?]) -> ResolvedURL? {
        for cursor in cursors { if let url = resolve(cursor) { return url } }
        return nil
    }

    /// A next page's link: as ``resolve(_:)-(Cursor?)``; a link that cannot be used is
    /// ``NextPage/unusable(_:)`` with its reason (".next_url: file: URL in a gallery read over
    /// http"), which fails the next page, not this one.
    func nextPage(_ cursor: Cursor?) -> NextPage? {
        Self.nextPage(resolve(cursor))
    }

    /// ``nextPage(_:)-(Cursor?)`` for a string at `path`.
    func nextPage(_ string: String, at path: KeyPath) -> NextPage? {
        Self.nextPage(resolve(string, at: path))
    }

    private static func nextPage(_ resolved: ResolvedURL?) -> NextPage? {
        switch resolved {
        case nil: return nil
        case .url?, .joined?:
            let s = resolved!.string!
            guard let url = URL(string: s) else { return .unusable("not a valid URL: '\(quote(s))'") }
            return .url(url)
        case .problem(let path, let message)?, .wrongType(let path, let message)?:
            return .unusable(path.components.isEmpty ? message : "\(path): \(message)")
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
    /// An absolute URL string.
    case url(String)
    /// A plain relative path and the directory it is relative to, joined only when asked
    /// (``string``; ``GalleryItem`` keeps both).
    case joined(URLDirectory, String)
    /// A string that is no usable URL ("not a valid URL: '…'").
    case problem(KeyPath, String)
    /// A value that is not a URL string at all ("not a URL string (found a number)"); the
    /// row's message names the field.
    case wrongType(KeyPath, String)

    /// The absolute URL string; nil for a problem.
    var string: String? {
        switch self {
        case .url(let s): s
        case .joined(let directory, let path): directory.prefix + path
        case .problem, .wrongType: nil
        }
    }
}

/// A gallery's directory as an absolute URL string ending in "/", shared by the items whose
/// URLs are plain paths relative to it.
final class URLDirectory: Sendable, Equatable {
    let prefix: String

    init(prefix: String) { self.prefix = prefix }

    static func == (lhs: URLDirectory, rhs: URLDirectory) -> Bool { lhs.prefix == rhs.prefix }
}
