import Foundation

/// How to ask for the page after this one, for formats that page. Fetching it is the caller's.
///
/// Formats that page by a `Link` HTTP header (Unsplash lists, Mastodon) cannot say it from the
/// body; for them `nextPage` is nil and the caller reads the header.
public enum NextPage: Sendable, Hashable {
    /// A ready URL to fetch (JSON Feed `next_url`).
    case url(URL)
    /// DeviantArt: repeat the request with `offset=<value>` (from `next_offset` when `has_more`).
    case deviantArtOffset(Int)
    /// Reddit: repeat the request with `after=<value>` (from `data.after`).
    case redditAfter(String)
    /// Flickr, Unsplash search: repeat the request with `page=<value>`.
    case page(Int)
    /// MediaWiki: repeat the request with every member of the `continue` object set.
    case mediaWikiContinue([String: String])
    /// A next-page link the gallery gave that cannot be followed (`file:` in a gallery read
    /// over http, not a URL string, ...), with the reason naming its field: the page after
    /// this one fails, this one does not.
    case unusable(String)

    /// The request for the next page, made from the request that returned this one by setting
    /// or replacing its query items (`offset`, `after`, `page`, or the `continue` members).
    /// A `.url` is returned as it is.
    public func url(after request: URL) -> URL? {
        let items: [String: String]
        switch self {
        case .url(let url): return url
        case .deviantArtOffset(let offset): items = ["offset": String(offset)]
        case .redditAfter(let after): items = ["after": after]
        case .page(let page): items = ["page": String(page)]
        case .mediaWikiContinue(let members): items = members
        case .unusable: return nil
        }
        guard var components = URLComponents(url: request, resolvingAgainstBaseURL: true) else { return nil }
        var query = (components.queryItems ?? []).filter { items[$0.name] == nil }
        query += items.keys.sorted().map { URLQueryItem(name: $0, value: items[$0]) }
        components.queryItems = query
        return components.url
    }
}
