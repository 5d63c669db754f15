import Foundation

/// Reads a gallery from bytes: detects the container, parses it, and maps it with the first
/// format reader whose signature matches.
public enum GalleryReader {
    /// JSON readers, by signature, most specific first; then the hand-written shapes
    /// (``PlainArray``), then the search of the whole tree (``GenericSearch``).
    static var jsonReaders: [any FormatReader.Type] {
        [
            DeviantArt.self, Reddit.self, Imgur.self, IIIF.self, JSONFeed.self, Flickr.self,
            MediaWiki.self, ITunesRSS.self, Mastodon.self, Unsplash.self, PlainArray.self, GenericSearch.self,
        ]
    }

    /// Property-list readers.
    static var plistReaders: [any FormatReader.Type] { [CountriesPlist.self, GenericSearch.self] }

    /// Detects the format from the bytes, parses them and maps them to a ``Gallery``.
    ///
    /// Detection: `bplist` opens a binary property list; `<?xml`, `<!DOCTYPE plist` or `<plist`
    /// (after whitespace) an XML one; a first line that looks like a path or URL a text list
    /// (``TextList``, one per line); anything else is JSON (UTF-8, or UTF-16/32 with or without
    /// a BOM). An HTML page (a login or error page served instead of the gallery) is refused as
    /// such.
    ///
    /// - Parameters:
    ///   - data: the whole file or response body.
    ///   - source: where the bytes came from (file or http(s) URL). Relative URLs in the gallery
    ///     resolve against it, and its file name names the gallery in errors.
    /// - Throws: ``GalleryError``: `.syntax` for malformed bytes (JSON: line and column; XML
    ///   plist: line), `.shape` for a field of the wrong type (with its key path), or for an
    ///   unusable URL when no item has a usable one (an unusable URL, or a URL field of the
    ///   wrong type, among usable items only fails its own row: ``GalleryItem/problem``),
    ///   `.empty` for a recognised but empty list, `.unrecognized` when no list of pictures is
    ///   found.
    public static func read(_ data: Data, source: URL) throws(GalleryError) -> Gallery {
        try read(data, source: source, mapping: nil, preset: nil)
    }

    /// ``read(_:source:)`` with the user's say: an explicit mapping, or a forced format.
    ///
    /// - Parameters:
    ///   - mapping: when it maps items or fields (``GalleryMapping/mapsItems``), the gallery is
    ///     read by it alone and `preset` is ignored; its `next` expression, when set, gives the
    ///     next page in every case.
    ///   - preset: read with this format's reader whether or not its signature matches (an
    ///     XML or binary plist still parses as a plist, JSON as JSON).
    /// - Throws: as ``read(_:source:)``, and `.mapping` when an expression of `mapping`
    ///   matches nothing (the message names the step).
    public static func read(
        _ data: Data, source: URL, mapping: GalleryMapping?, preset: GalleryFormat?
    ) throws(GalleryError) -> Gallery {
        let name = Gallery.displayName(of: source)
        let lead = TextEncoding.leadingText(data)
        let root: Node
        let readers: [any FormatReader.Type]
        if data.starts(with: Array("bplist".utf8)) {
            root = try PlistParser.parse(data, source: name, binary: true)
            readers = plistReaders
        } else if lead.hasPrefix("<") {
            let lower = lead.lowercased()
            if lower.hasPrefix("<!doctype html") || lower.hasPrefix("<html") {
                throw .syntax(source: name, line: nil, column: nil, message: "an HTML page, not a gallery")
            }
            root = try PlistParser.parse(data, source: name, binary: false)
            readers = plistReaders
        } else if isBlank(data) {
            throw .syntax(source: name, line: nil, column: nil, message: "the file is empty")
        } else if mapping?.mapsItems != true, preset == nil, TextList.matches(data) {
            return try TextList.read(data, source: source, name: name)
        } else {
            root = try JSONParser.parse(data, source: name)
            readers = jsonReaders
        }
        let forced = preset.map { [reader(for: $0)] } ?? readers
        return try map(root, readers: forced, source: source, name: name, mapping: mapping)
    }

    /// The reader behind a format (both IIIF versions share one).
    static func reader(for format: GalleryFormat) -> any FormatReader.Type {
        if format == .iiifV3 { return IIIF.self }
        return (jsonReaders + plistReaders).first { $0.format == format } ?? GenericSearch.self
    }

    /// Maps a parsed tree with `mapping` when it maps items, else with the first reader that
    /// matches it (the last one when none does).
    static func map(
        _ root: Node, readers: [any FormatReader.Type], source: URL, name: String, mapping: GalleryMapping? = nil
    ) throws(GalleryError) -> Gallery {
        let context = MappingContext(resolver: URLResolver(base: source))
        var format = GalleryFormat.mapped
        do throws(MappingError) {
            var mapped: MappedGallery
            if let mapping, mapping.mapsItems {
                mapped = try ExplicitMapping.map(Cursor(root), mapping: mapping, context: context)
            } else {
                let reader = readers.first { $0.matches(root) } ?? readers[readers.count - 1]
                format = reader.format
                do throws(MappingError) {
                    mapped = try reader.map(Cursor(root), context: context)
                } catch {
                    // The signature matched but the shape does not (a service's other
                    // endpoint, a near miss): the generic search gets its turn, unless the
                    // format was forced or the search itself failed. Its error is kept only
                    // when the search finds nothing either.
                    guard readers.count > 1, reader != GenericSearch.self else { throw error }
                    do throws(MappingError) {
                        mapped = try GenericSearch.map(Cursor(root), context: context)
                    } catch _ {
                        throw error
                    }
                    format = GenericSearch.format
                }
                if let next = mapping?.next {
                    mapped.nextPage = try ExplicitMapping.nextPage(Cursor(root), expression: next, context: context)
                }
            }
            let title = mapped.title.map(DisplayText.sanitize) ?? ""
            return Gallery(
                name: title.isEmpty ? name : title, source: source, items: mapped.items,
                format: mapped.format ?? format, nextPage: mapped.nextPage
            )
        } catch {
            throw error.galleryError(source: name)
        }
    }

    /// Empty, or only whitespace (with or without a UTF-8 BOM).
    private static func isBlank(_ data: Data) -> Bool {
        let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        return body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }
}
