import Foundation

extension Gallery {
    /// The URL of the page after this one, or nil when this is the last page.
    ///
    /// The gallery's own word comes first (``NextPage``: `next_url`, `has_more`/`next_offset`,
    /// `after`, `page`/`pages`, `continue`, or a `--next` mapping); else the response's `Link`
    /// header with `rel="next"`.
    ///
    /// - Parameters:
    ///   - request: the URL this page was fetched from (query items are set on it; relative
    ///     URLs resolve against it).
    ///   - linkHeader: the response's `Link` header, when the fetcher can give it.
    /// - Important: A next URL equal to `request` is refused (nil), so a server that keeps
    ///   answering "next: here" cannot make a caller loop. Callers fetching many pages should
    ///   also remember every URL they fetched.
    public func nextPageURL(after request: URL, linkHeader: String? = nil) -> URL? {
        nextPageLink(after: request, linkHeader: linkHeader).url
    }

    /// ``nextPageURL(after:linkHeader:)``, and when there is a next-page link that cannot be
    /// followed, why (`problem`, sanitized): a `file:` link from a gallery read over http(s),
    /// or a ``NextPage/unusable(_:)`` link. The page after this one fails with that reason;
    /// this page's items stand.
    public func nextPageLink(after request: URL, linkHeader: String? = nil) -> (url: URL?, problem: String?) {
        var problem: String?
        if case .unusable(let reason)? = nextPage { problem = DisplayText.sanitize(reason) }
        let next = nextPage?.url(after: request)
            ?? linkHeader.flatMap { LinkHeader.next(from: $0, relativeTo: request) }
        guard let next, next.absoluteURL != request.absoluteURL else { return (nil, problem) }
        if request.isFileURL == false, next.isFileURL {
            return (nil, "next page: file: URL in a gallery read over \(request.scheme ?? "http")")
        }
        return (next, nil)
    }

    /// Adds the items of `page` (the page after this one) and takes its next-page info.
    /// The name, source and format stay those of the first page; ask ``nextPageURL(after:linkHeader:)``
    /// with the URL `page` came from.
    public mutating func append(page: Gallery) {
        items += page.items
        nextPage = page.nextPage
    }
}
