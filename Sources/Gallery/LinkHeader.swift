import Foundation

/// Reads the HTTP `Link` header (RFC 8288) that APIs such as Mastodon, GitHub and Unsplash use
/// for paging: `<https://host/api?page=2>; rel="next", <https://host/api?page=9>; rel="last"`.
public enum LinkHeader {
    /// One link: its target as written and its parameters (names lower-cased, quotes removed).
    struct Link: Equatable {
        var target: String
        var parameters: [String: String]

        /// The `rel` values, lower-cased (a `rel` may hold several, separated by spaces).
        var relations: [String] {
            (parameters["rel"] ?? "").lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        }
    }

    /// The target of the first link with `rel` `next`, resolved against `base` when relative.
    ///
    /// - Parameters:
    ///   - header: the field value; several `Link` fields may be joined with commas, as HTTP
    ///     allows.
    ///   - base: the URL of the request the header came with.
    /// - Returns: nil when there is no `next` link, or its target is not an http(s) URL (a
    ///   remote server must not page into `file:` URLs).
    public static func next(from header: String, relativeTo base: URL? = nil) -> URL? {
        guard let link = links(in: header).first(where: { $0.relations.contains("next") }) else { return nil }
        let target = link.target.trimmingCharacters(in: .whitespaces)
        guard let url = URL(string: target, relativeTo: base)?.absoluteURL,
              let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false else { return nil }
        return url
    }

    /// Every well-formed link in `header`, in order; malformed pieces are skipped.
    static func links(in header: String) -> [Link] {
        var out: [Link] = []
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let target = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            var parameters: [String: String] = [:]
            // Parameters: `; name=value` or `; name="quoted, value"`, up to the next comma
            // outside quotes.
            while true {
                rest = rest.drop { $0 == " " || $0 == "\t" }
                guard rest.first == ";" else { break }
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                let name = rest.prefix { $0 != "=" && $0 != ";" && $0 != "," }
                rest = rest.dropFirst(name.count)
                var value = ""
                if rest.first == "=" {
                    rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                    if rest.first == "\"" {
                        rest = rest.dropFirst()
                        var escaped = false
                        while let c = rest.first {
                            rest = rest.dropFirst()
                            if escaped { value.append(c); escaped = false; continue }
                            if c == "\\" { escaped = true; continue }
                            if c == "\"" { break }
                            value.append(c)
                        }
                    } else {
                        let token = rest.prefix { $0 != ";" && $0 != "," }
                        value = token.trimmingCharacters(in: .whitespaces)
                        rest = rest.dropFirst(token.count)
                    }
                }
                let key = name.trimmingCharacters(in: .whitespaces).lowercased()
                if !key.isEmpty, parameters[key] == nil { parameters[key] = value }
            }
            out.append(Link(target: target, parameters: parameters))
            // Skip to the next link (anything before the comma is junk).
            guard let comma = rest.firstIndex(of: ",") else { break }
            rest = rest[rest.index(after: comma)...]
        }
        return out
    }
}
