import Foundation

/// MediaWiki Action API results with `prop=imageinfo&iiprop=url` (Wikimedia Commons and any
/// wiki): `{"continue": {…}, "query": {"pages": {"123": page} | [page]}}`.
///
/// A page is `{"title": "File:Sunset.jpg", "index"?, "imageinfo": [{"url", "width",
/// "height", "thumburl"?, "thumbwidth"?, "thumbheight"?}]}`; pages come in `index` order
/// when a generator gives one, else by page id. The thumbnail is `thumburl` (present when
/// `iiurlwidth` was asked), the image `url`; the title drops the `File:` namespace and the extension. Pages
/// without `imageinfo` (not files, or missing) are skipped. `continue` gives
/// ``NextPage/mediaWikiContinue(_:)``.
enum MediaWiki: FormatReader {
    static let format = GalleryFormat.mediaWiki

    static func matches(_ root: Node) -> Bool {
        guard let pages = root["query.pages"] else { return false }
        let list = pages.array ?? pages.object.map { Array($0.values) } ?? []
        return list.contains { $0["imageinfo"] != nil }
    }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        guard let pagesNode = root.member(path: "query.pages") else { throw .empty }
        var pages: [Cursor]
        if let list = pagesNode.elements {
            pages = Array(list)
        } else if let object = pagesNode.node.object {
            pages = object.keys.sorted { (Int($0) ?? .max, $0) < (Int($1) ?? .max, $1) }
                .compactMap { pagesNode.member($0) }
        } else {
            throw pagesNode.typeError("an object or an array")
        }
        if pages.allSatisfy({ $0.node["index"]?.number != nil }) {
            pages.sort { ($0.node["index"]?.number ?? 0) < ($1.node["index"]?.number ?? 0) }
        }
        var builders: [(ItemBuilder, KeyPath)] = []
        for page in pages {
            builders.build(page) { page throws(MappingError) -> ItemBuilder? in
                guard let info = try page.array("imageinfo")?.first else { return nil }
                var title = try page.text("title")
                if let t = title, let colon = t.firstIndex(of: ":"), t[..<colon] == "File" || t[..<colon] == "Image" {
                    title = displayTitle(fileName: String(t[t.index(after: colon)...]))
                }
                var item = ItemBuilder(title: title)
                if let url = context.resolver.resolve(info.member("url")) {
                    item.images.append(Rendition(url: url, width: try info.number("width"), height: try info.number("height")))
                }
                if let thumb = context.resolver.resolve(info.member("thumburl")) {
                    item.thumbnails.append(Rendition(
                        url: thumb, width: try info.number("thumbwidth"), height: try info.number("thumbheight")
                    ))
                }
                return item
            }
        }
        var next: NextPage?
        if let members = try root.object("continue")?.node.object {
            var strings: [String: String] = [:]
            for (key, value) in members { strings[key] = Cursor.text(of: value) }
            if !strings.isEmpty { next = .mediaWikiContinue(strings) }
        }
        return try MappedGallery(
            title: nil, builders: builders, expected: "imageinfo[0].url or imageinfo[0].thumburl", nextPage: next
        )
    }

    /// A file page's name without its extension ("Sunset over Lyon.jpg" → "Sunset over Lyon"),
    /// as the other formats' titles read; a name that is only an extension stays whole.
    static func displayTitle(fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot > fileName.startIndex else { return fileName }
        let ext = fileName[fileName.index(after: dot)...]
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isLetter || $0.isNumber }) else { return fileName }
        return String(fileName[..<dot])
    }
}
