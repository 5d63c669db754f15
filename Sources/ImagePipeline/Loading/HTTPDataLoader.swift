import Foundation
import HTTPClient

/// Downloads http(s) URLs with `HTTPClient` (libcurl's multi interface on one network thread)
/// and turns its answers into the pipeline's: a 2xx body, a 304 to a conditional request, or
/// a typed `ImagePipeline.Error`.
///
/// - Important: the pipeline hands this loader at most its per-host limit at once, so the
///   idle and total timeouts (milliseconds, from `HTTPClient`) start when a request is sent,
///   never while it waits for a slot. `--header` values (`headers`) go to their host only:
///   the client drops them on a redirect to another scheme, host or port.
final class HTTPDataLoader: Sendable {
    private let client: HTTPClient
    private let maxResponseBytes: Int
    private let idleTimeout: TimeInterval
    private let totalTimeout: TimeInterval
    private let headers: [String: [String: String]]

    /// - Parameters:
    ///   - maxResponseBytes: bodies larger than this many decoded bytes fail with `.responseTooLarge`.
    ///   - idleTimeout: seconds without a byte before `.timedOut` (also the connect timeout).
    ///   - totalTimeout: seconds for the whole transfer before `.tooSlow` (not retried).
    ///   - headers: extra request headers per host name (lower-cased), for galleries behind a token.
    ///   - userAgent: the `User-Agent` sent.
    ///   - maxConnectionsPerHost: libcurl's own per-host connection cap, a backstop behind the
    ///     pipeline's queue for requests that bypass it (galleries, background revalidations).
    init(
        maxResponseBytes: Int, idleTimeout: TimeInterval, totalTimeout: TimeInterval,
        headers: [String: [String: String]] = [:], userAgent: String = "vitrine", maxConnectionsPerHost: Int = 6
    ) {
        self.maxResponseBytes = maxResponseBytes
        // Finite and at least a millisecond.
        self.idleTimeout = min(max(idleTimeout, 0.001), 1e7)
        self.totalTimeout = min(max(totalTimeout, 0.001), 1e7)
        self.headers = headers
        var configuration = HTTPClient.Configuration()
        configuration.userAgent = userAgent
        configuration.maxConnectionsPerHost = maxConnectionsPerHost
        self.client = HTTPClient(configuration: configuration)
    }

    /// Ends the client; loads in flight fail with `.cancelled`, and so do later ones.
    func invalidate() { client.shutdown() }

    /// New connections opened so far.
    var connectionsOpened: Int { client.statistics.connectionsOpened }

    func loadData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        loadResponse(for: url, validators: nil) { completion($0.map(\.data)) }
    }

    /// Downloads `url`; with `validators`, as a conditional GET (`If-None-Match`,
    /// `If-Modified-Since`) whose 304 answer completes as `notModified` with an empty body.
    func loadResponse(
        for url: URL, validators: CacheValidators?,
        completion: @escaping @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        var fields = (headers[url.host?.lowercased() ?? ""] ?? [:]).map { HTTPHeader($0.key, $0.value) }
        if let etag = validators?.etag { fields.append(HTTPHeader("If-None-Match", etag)) }
        if let date = validators?.lastModified { fields.append(HTTPHeader("If-Modified-Since", date)) }
        let conditional = validators?.etag != nil || validators?.lastModified != nil
        let request = HTTPRequest(
            url: url.absoluteString, originHeaders: fields, connectTimeoutMs: Self.milliseconds(idleTimeout),
            idleTimeoutMs: Self.milliseconds(idleTimeout), totalTimeoutMs: Self.milliseconds(totalTimeout),
            maxBodyBytes: maxResponseBytes)
        let (limit, total) = (maxResponseBytes, totalTimeout)
        let id = client.submit(request) { result in
            switch result {
            case .success(let response):
                guard Self.accepts(response.status, conditional: conditional) else {
                    return completion(.failure(Self.statusError(response)))
                }
                let notModified = response.status == 304
                completion(
                    .success(
                        LoadedResponse(
                            data: notModified ? Data() : response.body, notModified: notModified,
                            headers: response.headers)))
            case .failure(let error):
                completion(.failure(Self.map(error, limit: limit, totalTimeout: total)))
            }
        }
        return TransferHandle(client: client, id: id)
    }

    static func milliseconds(_ seconds: TimeInterval) -> Int { max(1, Int((seconds * 1000).rounded())) }

    /// Cancels one client transfer: a locked append and a wake-up, safe on the UI thread.
    private struct TransferHandle: Cancellable {
        let client: HTTPClient
        let id: HTTPTransferID
        func cancel() { client.cancel(id) }
    }

    /// 2xx, or 304 when the request was conditional.
    static func accepts(_ status: Int, conditional: Bool) -> Bool {
        (200..<300).contains(status) || (conditional && status == 304)
    }

    /// The error for a non-2xx response: 429 and 503 carry their `Retry-After` delay.
    static func statusError(_ response: HTTPResponse) -> ImagePipeline.Error {
        let code = response.status
        guard code == 429 || code == 503 else { return .httpStatus(code) }
        return .serverBusy(status: code, retryAfter: RetryAfter.seconds(response.headers["retry-after"]))
    }

    static func map(_ error: HTTPClientError, limit: Int, totalTimeout: TimeInterval) -> ImagePipeline.Error {
        switch error {
        case .cancelled, .shutDown: return .cancelled
        case .timedOut: return .timedOut
        case .tooSlow: return .tooSlow(seconds: totalTimeout)
        case .tooLarge: return .responseTooLarge(limit: limit)
        case .tooManyRedirects: return .network("too many redirects")
        case .unsupportedRedirect(let location): return .unsupportedURL("redirect to \(location)")
        case .badURL(let url): return .unsupportedURL(url)
        case .network(let reason): return .network(reason)
        }
    }
}
