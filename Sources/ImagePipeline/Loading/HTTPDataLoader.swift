import Foundation
import FoundationNetworking
import Synchronization

/// Downloads with `URLSession`, streaming through a delegate so a response can be refused as soon
/// as its status or size is known.
///
/// - Important: URLSession on Linux runs the request timeout while a task waits for a connection
///   slot, so the pipeline never hands this loader more than its per-host limit at once; here the
///   timeout is an idle timeout (no byte for `idleTimeout` seconds) that starts when the request
///   is sent. Priorities are the pipeline's, not `URLSessionTask.priority` (ignored on Linux).
///
///   The idle and total timeouts run on this loader's own timer, to the millisecond:
///   swift-corelibs-foundation truncates `timeoutInterval` to whole seconds (`Int(t) * 1000` ms;
///   measured here: 1.5 s timed out after 1.0 s, 0.6 s after 0.02 s). URLSession keeps a
///   looser timeout (one second more, rounded up) as a backstop.
final class HTTPDataLoader: NSObject, URLSessionDataDelegate, Sendable {
    struct Transfer {
        var data = Data()
        var completion: @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
        /// The request carried validators, so a 304 is an answer, not a failure.
        var conditional = false
        /// When the request was sent (`resume`), for the total timeout.
        var sent = ContinuousClock.now
        /// When bytes last arrived (or the request was sent), for the idle timeout.
        var lastActivity = ContinuousClock.now
        /// Fires at the earliest deadline; re-armed when arriving bytes moved it.
        var timer: TransferTimer?
    }

    /// A dispatch timer, which is thread-safe, made `Sendable` for the transfer table.
    final class TransferTimer: @unchecked Sendable {
        // @unchecked: DispatchSource's schedule, resume and cancel may be called from any thread.
        let source: any DispatchSourceTimer
        init(_ source: any DispatchSourceTimer) { self.source = source }
    }

    private let maxResponseBytes: Int
    private let idleTimeout: TimeInterval
    private let totalTimeout: TimeInterval
    private let timerQueue = DispatchQueue(label: "vitrine.http.timeouts")
    private let headers: [String: [String: String]]
    private let transfers = Mutex<[Int: Transfer]>([:])
    private let maxConnectionsPerHost: Int
    /// The session is made by the first request, not up front: a run that only reads local
    /// files (`vitrine render photo.jpg`) never pays for URLSession's set-up.
    private enum SessionState {
        case notStarted
        case live(URLSession)
        case invalidated
    }
    private let sessionBox = Mutex<SessionState>(.notStarted)
    /// Told of body bytes that arrived and were thrown away (see `dropped`).
    private let heapTrimmer: HeapTrimmer?

    /// - Parameters:
    ///   - maxResponseBytes: bodies larger than this many bytes fail with `.responseTooLarge`.
    ///   - idleTimeout: seconds without a byte before `.timedOut`.
    ///   - totalTimeout: seconds for the whole transfer before `.tooSlow` (not retried).
    ///   - maxConnectionsPerHost: URLSession's own per-host cap (kept at or above the pipeline's).
    ///   - headers: extra request headers per host name (lower-cased), for galleries behind a token.
    ///   - heapTrimmer: told of bytes thrown away, so that their memory goes back to the system.
    init(
        maxResponseBytes: Int, idleTimeout: TimeInterval, totalTimeout: TimeInterval,
        maxConnectionsPerHost: Int, headers: [String: [String: String]] = [:], heapTrimmer: HeapTrimmer? = nil
    ) {
        self.heapTrimmer = heapTrimmer
        self.maxResponseBytes = maxResponseBytes
        // Finite and at least a millisecond, so the deadlines below are representable.
        self.idleTimeout = min(max(idleTimeout, 0.001), 1e7)
        self.totalTimeout = min(max(totalTimeout, 0.001), 1e7)
        self.headers = headers
        self.maxConnectionsPerHost = maxConnectionsPerHost
        super.init()
    }

    /// The session, made on first use; nil once invalidated.
    private func session() -> URLSession? {
        sessionBox.withLock { state in
            switch state {
            case .live(let session): return session
            case .invalidated: return nil
            case .notStarted:
                let configuration = URLSessionConfiguration.ephemeral
                configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
                configuration.timeoutIntervalForRequest = Self.backstop(idleTimeout)
                configuration.timeoutIntervalForResource = Self.backstop(totalTimeout)
                configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
                configuration.urlCache = nil
                let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
                state = .live(session)
                return session
            }
        }
    }

    /// Tells the heap trimmer of body bytes that arrived and were thrown away: the bytes of a
    /// refused or cancelled transfer that keep coming (swift-corelibs-foundation goes on
    /// reading a body after `cancel()`, see `refuse`) and a refused transfer's partial body;
    /// with `transferEnded`, such a transfer is over, and with no transfer left the memory goes
    /// back to the system. (A first version kept a `@Sendable (Int, Bool) -> Void` closure in a
    /// `Mutex` for this; in the release build a thread was seen looping in that closure's
    /// reabstraction thunks, so the loader holds the trimmer itself.)
    private func dropped(_ bytes: Int, transferEnded: Bool = false) {
        guard let heapTrimmer else { return }
        if bytes > 0 { heapTrimmer.dropped(bytes: bytes) }
        if transferEnded { heapTrimmer.loadEnded(idle: transfers.withLock { $0.isEmpty }) }
    }

    /// Ends the session; loads in flight fail with `.cancelled`, and so do later ones.
    func invalidate() {
        sessionBox.withLock { state in
            if case .live(let session) = state { session.invalidateAndCancel() }
            state = .invalidated
        }
    }

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
        var request = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: Self.backstop(idleTimeout))
        request.setValue("Vitrine", forHTTPHeaderField: "User-Agent")
        for (name, value) in headers[url.host?.lowercased() ?? ""] ?? [:] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let etag = validators?.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let date = validators?.lastModified { request.setValue(date, forHTTPHeaderField: "If-Modified-Since") }
        let conditional = validators?.etag != nil || validators?.lastModified != nil
        guard let session = session() else {
            completion(.failure(.cancelled))
            return CancellationFlag()
        }
        let task = session.dataTask(with: request)
        let handle = TaskHandle(task: task)
        let timer = TransferTimer(DispatchSource.makeTimerSource(queue: timerQueue))
        timer.source.setEventHandler { [weak self] in self?.checkTimeouts(handle) }
        transfers.withLock {
            $0[task.taskIdentifier] = Transfer(completion: completion, conditional: conditional, timer: timer)
        }
        // Both clocks start now, as the request goes out: the pipeline queues, URLSession does not.
        timer.source.schedule(deadline: .now() + min(idleTimeout, totalTimeout))
        timer.source.resume()
        task.resume()
        return handle
    }

    /// URLSession's own timeout, a backstop behind ours: later, and in whole seconds.
    static func backstop(_ seconds: TimeInterval) -> TimeInterval { (seconds + 1).rounded(.up) }

    /// The timer fired: fail the transfer if it sat idle or ran too long, else re-arm the timer
    /// for the earliest deadline (arriving bytes moved the idle one).
    private func checkTimeouts(_ handle: TaskHandle) {
        let now = ContinuousClock.now
        let expired = transfers.withLock { table -> ImagePipeline.Error? in
            guard let transfer = table[handle.task.taskIdentifier] else { return nil }
            let idleEnds = transfer.lastActivity + .milliseconds(Int(idleTimeout * 1000))
            let totalEnds = transfer.sent + .milliseconds(Int(totalTimeout * 1000))
            if now >= idleEnds { return .timedOut }
            // With the idle timeout the shorter one, bytes still arrive: a trickle.
            if now >= totalEnds { return .tooSlow(seconds: totalTimeout) }
            let next = (min(idleEnds, totalEnds) - now).components
            let nanoseconds = Int(next.seconds) * 1_000_000_000 + Int(next.attoseconds / 1_000_000_000)
            transfer.timer?.source.schedule(deadline: .now() + .nanoseconds(nanoseconds))
            return nil
        }
        if let expired { refuse(handle.task, expired) }
    }

    private struct TaskHandle: Cancellable, @unchecked Sendable {
        // @unchecked: URLSessionTask.cancel is thread-safe; the task is never mutated here.
        let task: URLSessionDataTask
        /// `URLSessionTask.cancel` waits for the session's work queue (measured: median 2.8 ms,
        /// p99 14 ms on the calling thread), so it runs on a utility queue: cancelling rows
        /// while scrolling never holds up the main loop. The pipeline has already dropped the
        /// load; the task's own completion is ignored.
        func cancel() {
            let task = self.task
            DispatchQueue.global(qos: .utility).async { HTTPDataLoader.cancelUnlessFinishing(task) }
        }
    }

    /// Cancels `task` unless its body is all but complete.
    ///
    /// swift-corelibs-foundation's `cancel()` checks the task's state, then reports the
    /// cancellation later on its work queue; if the transfer completes in between, that report
    /// finds the task gone from the session's registry and stops the process ("Trying to access
    /// a behaviour for a task that in not in the registry", seen here when a refused gallery's
    /// last bytes arrived). A task within 64 KiB of its announced length is left to finish;
    /// nobody listens to it any more.
    static func cancelUnlessFinishing(_ task: URLSessionTask) {
        let expected = task.countOfBytesExpectedToReceive
        if expected > 0 && expected - task.countOfBytesReceived < 64 << 10 { return }
        task.cancel()
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        var failure: ImagePipeline.Error?
        let conditional = transfers.withLock { table -> Bool in
            table[dataTask.taskIdentifier]?.lastActivity = .now
            return table[dataTask.taskIdentifier]?.conditional ?? false
        }
        // An interim 1xx answer (103 Early Hints, 100 Continue, 102 Processing) reaches this
        // delegate as if it were the response; the final status is checked at completion.
        if let http = response as? HTTPURLResponse, !(100..<200).contains(http.statusCode),
            !Self.accepts(http.statusCode, conditional: conditional)
        {
            failure = Self.statusError(http)
        } else if response.expectedContentLength > Int64(maxResponseBytes) {
            failure = .responseTooLarge(limit: maxResponseBytes)
        }
        if let failure {
            completionHandler(.cancel)
            refuse(dataTask, failure)
        } else {
            // One buffer of the announced size (at most 16 MiB up front), instead of a buffer
            // that doubles as chunks arrive and leaves its smaller copies behind in the heap.
            let expected = response.expectedContentLength
            if expected > 0 {
                let capacity = Int(min(expected, 16 << 20))
                transfers.withLock { $0[dataTask.taskIdentifier]?.data.reserveCapacity(capacity) }
            }
            completionHandler(.allow)
        }
    }

    /// Follows http(s) redirects (URLSession stops after 20); refuses any other scheme with
    /// `.unsupportedURL`. swift-corelibs-foundation would resolve a `Location` of
    /// `file:///etc/passwd` against the server's address and ask it for `/etc/passwd`, and the
    /// row would fail as a misleading "HTTP 404".
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let location = response.value(forHTTPHeaderField: "Location") ?? ""
        let scheme = URL(string: location, relativeTo: response.url)?.scheme?.lowercased()
        guard scheme != nil, scheme != "http", scheme != "https", let dataTask = task as? URLSessionDataTask else {
            return completionHandler(request)
        }
        completionHandler(nil)
        refuse(dataTask, .unsupportedURL("redirect to \(location)"))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Append in place: copying the entry out of the table and back would copy the whole
        // body on every chunk (quadratic in the body size).
        let id = dataTask.taskIdentifier
        let verdict = transfers.withLock { table -> Bool? in
            guard table[id] != nil else { return nil }
            if table[id]!.data.count + data.count > maxResponseBytes { return false }
            table[id]!.data.append(data)
            table[id]!.lastActivity = .now
            return true
        }
        switch verdict {
        case nil:
            // Refused or cancelled earlier, and the bytes still come: stop it (again).
            dropped(data.count)
            if dataTask.state == .running { Self.cancelUnlessFinishing(dataTask) }
        case false?:
            dropped(data.count)
            refuse(dataTask, .responseTooLarge(limit: maxResponseBytes))
        default:
            break
        }
    }

    /// Fails a transfer now and cancels it. swift-corelibs-foundation ignores the `.cancel`
    /// disposition and keeps delivering bytes for a while after `cancel()` (seen here: a
    /// refused 500 MB body still arrived whole), so the caller hears at once and the rest of the
    /// body is dropped as it comes.
    private func refuse(_ task: URLSessionDataTask, _ failure: ImagePipeline.Error) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.timer?.source.cancel()
        if let transfer, !transfer.data.isEmpty { dropped(transfer.data.count) }
        transfer?.completion(.failure(failure))
        Self.cancelUnlessFinishing(task)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else {
            // A transfer refused or cancelled earlier is over at last.
            return dropped(0, transferEnded: true)
        }
        transfer.timer?.source.cancel()
        if let error {
            return transfer.completion(.failure(Self.map(error)))
        }
        let http = task.response as? HTTPURLResponse
        if let http, !Self.accepts(http.statusCode, conditional: transfer.conditional) {
            return transfer.completion(.failure(Self.statusError(http)))
        }
        let notModified = http?.statusCode == 304
        transfer.completion(
            .success(
                LoadedResponse(
                    data: notModified ? Data() : transfer.data, notModified: notModified,
                    headers: Self.headers(of: http))))
    }

    /// 2xx, or 304 when the request was conditional.
    static func accepts(_ status: Int, conditional: Bool) -> Bool {
        (200..<300).contains(status) || (conditional && status == 304)
    }

    /// The response's header fields with lower-cased names (a repeated field keeps the last).
    static func headers(of response: HTTPURLResponse?) -> [String: String] {
        var out: [String: String] = [:]
        for (name, value) in response?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { out[name.lowercased()] = value }
        }
        return out
    }

    /// The error for a non-2xx response: 429 and 503 carry their `Retry-After` delay.
    static func statusError(_ response: HTTPURLResponse) -> ImagePipeline.Error {
        let code = response.statusCode
        guard code == 429 || code == 503 else { return .httpStatus(code) }
        return .serverBusy(status: code, retryAfter: RetryAfter.seconds(response.value(forHTTPHeaderField: "Retry-After")))
    }

    static func map(_ error: any Error) -> ImagePipeline.Error {
        let ns = error as NSError
        guard ns.domain == NSURLErrorDomain else { return .network(ns.localizedDescription) }
        switch ns.code {
        case NSURLErrorCancelled: return .cancelled
        case NSURLErrorTimedOut: return .timedOut
        case NSURLErrorHTTPTooManyRedirects: return .network("too many redirects")
        case NSURLErrorCannotConnectToHost: return .network("connection refused")
        case NSURLErrorCannotFindHost: return .network("host not found")
        case NSURLErrorNetworkConnectionLost: return .network("connection lost")
        default: return .network("URL error \(ns.code)")
        }
    }
}
