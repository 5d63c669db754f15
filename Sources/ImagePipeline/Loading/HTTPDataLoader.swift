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
final class HTTPDataLoader: NSObject, URLSessionDataDelegate, Sendable {
    struct Transfer {
        var data = Data()
        var completion: @Sendable (Result<Data, ImagePipeline.Error>) -> Void
        var failure: ImagePipeline.Error?
    }

    private let maxResponseBytes: Int
    private let idleTimeout: TimeInterval
    private let headers: [String: [String: String]]
    private let transfers = Mutex<[Int: Transfer]>([:])
    private let sessionBox = Mutex<URLSession?>(nil)

    /// - Parameters:
    ///   - maxResponseBytes: bodies larger than this many bytes fail with `.responseTooLarge`.
    ///   - idleTimeout: seconds without a byte before `.timedOut`.
    ///   - totalTimeout: seconds for the whole transfer before `.timedOut`.
    ///   - maxConnectionsPerHost: URLSession's own per-host cap (kept at or above the pipeline's).
    ///   - headers: extra request headers per host name (lower-cased), for galleries behind a token.
    init(
        maxResponseBytes: Int, idleTimeout: TimeInterval, totalTimeout: TimeInterval,
        maxConnectionsPerHost: Int, headers: [String: [String: String]] = [:]
    ) {
        self.maxResponseBytes = maxResponseBytes
        self.idleTimeout = idleTimeout
        self.headers = headers
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        configuration.timeoutIntervalForRequest = idleTimeout
        configuration.timeoutIntervalForResource = totalTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        sessionBox.withLock { $0 = session }
    }

    /// Ends the session; loads in flight fail with `.cancelled`.
    func invalidate() { sessionBox.withLock { $0?.invalidateAndCancel() } }

    func loadData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: idleTimeout)
        request.setValue("Vitrine", forHTTPHeaderField: "User-Agent")
        for (name, value) in headers[url.host?.lowercased() ?? ""] ?? [:] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        guard let session = sessionBox.withLock({ $0 }) else {
            completion(.failure(.cancelled))
            return CancellationFlag()
        }
        let task = session.dataTask(with: request)
        transfers.withLock { $0[task.taskIdentifier] = Transfer(completion: completion) }
        task.resume()
        return TaskHandle(task: task)
    }

    private struct TaskHandle: Cancellable, @unchecked Sendable {
        // @unchecked: URLSessionTask.cancel is thread-safe; the task is never mutated here.
        let task: URLSessionDataTask
        func cancel() { task.cancel() }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        var failure: ImagePipeline.Error?
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            failure = .httpStatus(http.statusCode)
        } else if response.expectedContentLength > Int64(maxResponseBytes) {
            failure = .responseTooLarge(limit: maxResponseBytes)
        }
        if let failure {
            transfers.withLock { $0[dataTask.taskIdentifier]?.failure = failure }
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = transfers.withLock { table -> Bool in
            guard var transfer = table[dataTask.taskIdentifier] else { return false }
            transfer.data.append(data)
            let over = transfer.data.count > maxResponseBytes
            if over {
                transfer.failure = .responseTooLarge(limit: maxResponseBytes)
                transfer.data = Data()
            }
            table[dataTask.taskIdentifier] = transfer
            return over
        }
        if tooLarge { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let failure = transfer.failure { return transfer.completion(.failure(failure)) }
        if let error {
            return transfer.completion(.failure(Self.map(error)))
        }
        if let http = task.response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            return transfer.completion(.failure(.httpStatus(http.statusCode)))
        }
        transfer.completion(.success(transfer.data))
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
