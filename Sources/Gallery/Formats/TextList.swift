import Foundation

/// A text list: one image path or URL per line, as `find ~/Pictures -name '*.png'` prints them
/// or `nsxiv -i` reads them.
///
/// - Blank lines and lines whose first non-blank character is `#` are skipped; surrounding
///   whitespace (and a Windows `\r`) is trimmed.
/// - Relative paths resolve against the list's own location (the working directory for
///   standard input), `~/` against `$HOME` in a local list; URLs go through the same
///   ``URLResolver`` as a gallery's (so a list read over http cannot name local files).
/// - Titles are the file names without their extension (`IMG_0042.jpg` shows as `IMG_0042`).
/// - A line that is no usable path or URL keeps its row, which says why; only a list with no
///   usable line at all fails.
public enum TextList {
    /// Image file extensions that make a first line look like a path (lower case).
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "jfif", "png", "apng", "gif", "webp", "tif", "tiff", "bmp", "avif", "heic", "heif",
        "jxl", "svg", "ico",
    ]

    /// Whether `data` reads as a text list rather than JSON: its first line that is not blank
    /// or a comment starts like a path (`/`, `./`, `../`, `~/`) or a URL (`http:`, `https:`,
    /// `file:`), or ends in an image extension. JSON (`{`, `[`, `"`) never does, and neither
    /// does a stray word such as `tru`, which still gets JSON's syntax error.
    static func matches(_ data: Data) -> Bool {
        guard let first = lines(of: data).first(where: { !$0.text.isEmpty })?.text else { return false }
        if let c = first.first, c == "{" || c == "[" || c == "\"" { return false }
        return looksLikeLocation(first)
    }

    /// A path or URL by its form alone (nothing is read): a path prefix or a slash anywhere
    /// (`find` prints `pics/a`), an http(s) or file URL, or an image extension.
    public static func looksLikeLocation(_ line: String) -> Bool {
        let lower = line.lowercased()
        for prefix in ["/", "./", "../", "~/", "http://", "https://", "file:"] where lower.hasPrefix(prefix) {
            return true
        }
        if lower.contains("/") { return true }
        var path = Substring(lower)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        guard let dot = path.lastIndex(of: ".") else { return false }
        return imageExtensions.contains(String(path[path.index(after: dot)...]))
    }

    /// The list's lines, numbered from 1, trimmed, comments emptied.
    static func lines(of data: Data) -> [(number: Int, text: String)] {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        let text = String(decoding: body, as: UTF8.self)
        var out: [(Int, String)] = []
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            out.append((number, trimmed.hasPrefix("#") ? "" : trimmed))
        }
        return out
    }

    /// Reads `data` as a text list whatever its first line looks like (standard input given as
    /// `-`), named after `source`.
    /// - Throws: as ``read(_:source:name:)``.
    public static func read(_ data: Data, source: URL) throws(GalleryError) -> Gallery {
        try read(data, source: source, name: Gallery.displayName(of: source))
    }

    /// Whether `data` opens like a JSON or property-list gallery (`{`, `[`, `"`, `<`, `bplist`)
    /// rather than a text list.
    public static func opensLikeGallery(_ data: Data) -> Bool {
        if data.starts(with: Array("bplist".utf8)) { return true }
        guard let first = lines(of: data).first(where: { !$0.text.isEmpty })?.text.first else { return false }
        return first == "{" || first == "[" || first == "\"" || first == "<"
    }

    /// Reads a text list into a gallery named `name`.
    /// - Throws: ``GalleryError/empty(source:)`` when no line names anything, `.shape` with the
    ///   first line's problem ("line 2: not a valid URL: '…'") when no line is usable.
    static func read(_ data: Data, source: URL, name: String) throws(GalleryError) -> Gallery {
        let resolver = URLResolver(base: source)
        let home = ProcessInfo.processInfo.environment["HOME"]
        var items: [GalleryItem] = []
        var firstProblem: (line: Int, message: String)?
        var usable = false
        for (number, line) in lines(of: data) where !line.isEmpty {
            var location = line
            if source.isFileURL, line.hasPrefix("~/"), let home {
                location = URL(fileURLWithPath: home).appendingPathComponent(String(line.dropFirst(2))).absoluteString
            } else if source.isFileURL, line.hasPrefix("/") {
                location = URL(fileURLWithPath: line).absoluteString
            }
            switch resolver.resolve(location, at: .root) {
            case .url(let string)?:
                usable = true
                items.append(GalleryItem(title: title(of: string), thumbnail: string, image: string))
            case .joined(let directory, let path)?:
                usable = true
                let item = GalleryItem(
                    title: title(of: path), resolvedThumbnail: .joined(directory, path),
                    resolvedImage: .joined(directory, path))
                items.append(item)
            case .problem(_, let message)?, .wrongType(_, let message)?:
                if firstProblem == nil { firstProblem = (number, message) }
                items.append(GalleryItem(title: line, thumbnail: nil, image: nil, problem: "line \(number): \(message)"))
            case nil:
                continue
            }
        }
        if items.isEmpty { throw .empty(source: name) }
        if !usable, let firstProblem {
            throw .shape(source: name, keyPath: "line \(firstProblem.line)", message: firstProblem.message)
        }
        return Gallery(name: name, source: source, items: items, format: .textList)
    }

    /// A file name without its extension, percent-decoded: the title of a line.
    public static func title(of location: String) -> String {
        var path = Substring(location)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        while path.hasSuffix("/") { path = path.dropLast() }
        var last = path.split(separator: "/").last.map(String.init) ?? location
        last = last.removingPercentEncoding ?? last
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { last = String(last[..<dot]) }
        return last
    }
}
