import Foundation
import Gallery
import ImagePipeline

/// Fetches a gallery's further pages (DeviantArt `next_offset`, Reddit `after`, JSON Feed
/// `next_url`, Flickr `page`, MediaWiki `continue`) with the image pipeline's loader, its limits
/// and headers, and parses them off the main thread.
@MainActor
final class PageLoader {
    /// A fetched and parsed page, or why not.
    struct Outcome: Sendable {
        var url: URL
        var result: Result<Gallery, PageError>
    }

    /// Why a page failed: one line for the "loading more" row.
    struct PageError: Error, Sendable, CustomStringConvertible {
        var description: String
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
    private let pipeline: ImagePipeline
    private let send: @Sendable (Outcome) -> Void
    /// Pages loaded so far, the first included.
    private(set) var pagesLoaded = 1

    /// - Parameters:
    ///   - first: the first page, already parsed.
    ///   - send: where outcomes go (the main loop's inbox); called on a background thread.
    init(first: Gallery, pipeline: ImagePipeline, send: @escaping @Sendable (Outcome) -> Void) {
        self.pipeline = pipeline
        self.send = send
        state = Self.next(after: first, from: first.source).map(State.ready) ?? .done
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
        let send = self.send
        pipeline.fetchData(for: url) { result in
            switch result {
            case .success(let data):
                do throws(GalleryError) {
                    send(Outcome(url: url, result: .success(try GalleryReader.read(data, source: url))))
                } catch {
                    send(Outcome(url: url, result: .failure(PageError(description: error.description))))
                }
            case .failure(let error):
                send(Outcome(url: url, result: .failure(PageError(description: error.description))))
            }
        }
    }

    /// Applies an outcome; returns the new items, or nil when the page failed or is stale.
    func apply(_ outcome: Outcome) -> [GalleryItem]? {
        guard case .loading(let url) = state, url == outcome.url else { return nil }
        switch outcome.result {
        case .success(let page):
            pagesLoaded += 1
            state = Self.next(after: page, from: url).map(State.ready) ?? .done
            // A server that repeats its page would page forever.
            if case .ready(let next) = state, next == url { state = .done }
            return page.items
        case .failure(let error):
            state = .failed(url, error.description)
            return nil
        }
    }

    /// The next page of a gallery read from `url`, for galleries fetched over http(s) only.
    static func next(after gallery: Gallery, from url: URL) -> URL? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return gallery.nextPage?.url(after: url)
    }
}
