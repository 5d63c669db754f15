/// Guesses about URLs and text that several readers share.
enum ImageHeuristics {
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "bmp", "tif", "tiff", "svg", "jxl",
    ]

    /// True when the path of `string` ends in a picture extension ("…/x.JPG?w=1" counts), or
    /// it is an `data:image/` URL.
    static func looksLikeImage(_ string: String) -> Bool {
        if string.hasPrefix("data:image/") { return true }
        var path = Substring(string)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return imageExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// Plain text from an HTML fragment (Mastodon `content`): tags dropped, `<br>` and `</p>`
    /// become spaces, entities unescaped.
    static func plainText(fromHTML html: String) -> String {
        var out = ""
        var inTag = false
        var tag = ""
        for ch in html {
            if inTag {
                if ch == ">" {
                    inTag = false
                    let name = tag.lowercased()
                    if name.hasPrefix("br") || name.hasPrefix("/p") { out += " " }
                } else {
                    tag.append(ch)
                }
            } else if ch == "<" {
                inTag = true
                tag = ""
            } else {
                out.append(ch)
            }
        }
        return HTMLEntities.unescape(out)
    }
}
