import Foundation
import Gallery
import ImagePipeline

/// Fetches a gallery's further pages (DeviantArt `next_offset`, Reddit `after`, JSON Feed
/// `next_url`, Flickr `page`, MediaWiki `continue`, `--next`, or a `Link: rel="next"` header)
/// with the same fetcher and mapping as the first page, off the main thread.
@MainActor
final class PageLoader {
    /// A fetched and read page, or why not.
    struct Outcome: Sendable {
        var url: URL
        var result: Result<GallerySource.Page, Failure>
    }

    enum State: Equatable {
        /// More pages exist; none is loading.
        case ready(URL)
        /// This page is being fetched.
        case loading(URL)
        /// This page failed (`r` retries it).
        case failed(URL, String)
        /// No further page.
        case done
    }

    private(set) var state: State
    private let fetcher: any GalleryFetching
    private let reading: GalleryReadOptions
    private let send: @Sendable (Outcome) -> Void
    /// Pages fetched so far, the first included: a next URL seen before ends paging (a loop).
    private var trail: PageTrail
    /// Pages loaded so far, the first included.
    private(set) var pagesLoaded = 1

    /// - Parameters:
    ///   - first: the first page, already read, with its next page's URL.
    ///   - send: where outcomes go (the main loop's inbox); called on a background thread.
    init(
        first: GallerySource.Page, fetcher: any GalleryFetching, reading: GalleryReadOptions,
        send: @escaping @Sendable (Outcome) -> Void
    ) {
        self.fetcher = fetcher
        self.reading = reading
        self.send = send
        trail = PageTrail(first: first.gallery.source)
        state = trail.unvisited(first.next).map(State.ready) ?? .done
    }

    /// True when a row for "loading more" (or its failure) belongs at the end of the table.
    var hasMore: Bool { state != .done }

    /// Starts fetching the next page, if one is ready (or failed and is retried).
    func loadNext() {
        let url: URL
        switch state {
        case .ready(let next), .failed(let next, _): url = next
        case .loading, .done: return
        }
        state = .loading(url)
        let (send, fetcher, reading) = (self.send, self.fetcher, self.reading)
        DispatchQueue.global(qos: .userInitiated).async {
            do throws(Failure) {
                send(Outcome(url: url, result: .success(try GallerySource.page(at: url, fetcher: fetcher, reading: reading, progress: false))))
            } catch {
                send(Outcome(url: url, result: .failure(error)))
            }
        }
    }

    /// Applies an outcome; returns the new items, or nil when the page failed or is stale.
    func apply(_ outcome: Outcome) -> [GalleryItem]? {
        guard case .loading(let url) = state, url == outcome.url else { return nil }
        switch outcome.result {
        case .success(let page):
            pagesLoaded += 1
            trail.visited(url)
            state = trail.unvisited(page.next).map(State.ready) ?? .done
            return page.gallery.items
        case .failure(let failure):
            // The row names the page already: keep the reason, not the URL before it.
            let prefix = url.absoluteString + ": "
            let reason = failure.message.hasPrefix(prefix) ? String(failure.message.dropFirst(prefix.count)) : failure.message
            state = .failed(url, reason)
            return nil
        }
    }
}
