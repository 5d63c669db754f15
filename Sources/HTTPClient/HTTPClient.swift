import CCurl
import CLibcurl
import Foundation
import Locking

/// An HTTP/1.1 and HTTP/2 client on libcurl's multi interface: one network thread owns the
/// multi handle and every transfer, and sleeps in `curl_multi_poll` until a socket is ready,
/// the next deadline comes, or a caller wakes it.
///
/// `submit` and `cancel` may be called from any thread and never wait for the network: each is
/// a locked append to the thread's inbox plus `curl_multi_wakeup`. Every submitted request gets
/// exactly one completion: a response, an `HTTPClientError`, `.cancelled` after `cancel`, or
/// `.shutDown`. Completions run on a Dispatch global queue, never on the network thread nor on
/// the caller's.
///
/// - Important: a cancelled or refused transfer is removed from the multi handle before its
///   completion runs, and removing an unfinished transfer makes libcurl close its connection
///   (HTTP/1.1) or reset its stream (HTTP/2): no byte of it is read or kept afterwards.
///
/// Redirects are followed hop by hop here, not by libcurl, so that `originHeaders` stay with
/// their origin and only http and https are followed. Proxies come from libcurl's usual
/// environment variables (`http_proxy`, `https_proxy`, `no_proxy`, `all_proxy`); TLS uses the
/// system CA store, or `SSL_CERT_FILE` / `SSL_CERT_DIR` when set (OpenSSL's variables, which
/// libcurl itself does not read).
public final class HTTPClient: Sendable {
    /// Settings fixed at creation.
    public struct Configuration: Sendable {
        /// Sent as `User-Agent` with every request.
        public var userAgent: String = "vitrine"
        /// A CA bundle file (PEM) to verify servers with; nil: the system store.
        public var caFile: String?
        /// A folder of hashed CA certificates; nil: the system default.
        public var caPath: String?
        /// Most connections open to one host at once (CURLMOPT_MAX_HOST_CONNECTIONS; 0: no
        /// limit, the default). A backstop only: requests over it wait inside libcurl, first
        /// come first served, with their timeouts running, so callers that care about order
        /// and timeouts keep their own per-host queue (as `ImagePipeline` does).
        public var maxConnectionsPerHost = 0
        /// Body bytes all transfers in flight may hold together, in bytes (default 128 MiB; 0:
        /// no budget). Over it, every transfer but the one holding the most pauses until bytes
        /// are freed: peak memory is this plus one `HTTPRequest.maxBodyBytes`, whatever the
        /// servers send.
        public var bufferedBodyBytes = 128 << 20

        /// Defaults, with `caFile` and `caPath` from `SSL_CERT_FILE` and `SSL_CERT_DIR` in
        /// `environment` when they are set and not empty.
        public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            caFile = environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            caPath = environment["SSL_CERT_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// Counters since creation.
    public struct Statistics: Sendable, Equatable {
        /// Transfers handed to libcurl (redirect hops count once each).
        public var hopsStarted = 0
        /// New connections libcurl opened (`CURLINFO_NUM_CONNECTS` summed over hops).
        public var connectionsOpened = 0
        /// Requests completed, whatever the outcome.
        public var completed = 0
    }

    let engine: Engine

    /// CPU time the network thread has used, in seconds; nil before the first request (no
    /// thread yet). For tests and benchmarks: the process's own CPU counts every other thread.
    var networkThreadCPUSeconds: Double? {
        guard let clock = engine.loopClock.withLock({ $0 }) else { return nil }
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return nil }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    public init(configuration: Configuration = Configuration()) {
        engine = Engine(configuration: configuration)
    }

    deinit { engine.shutdown() }

    /// Sends `request`; `completion` runs once, on a background thread.
    /// - Returns: the ID `cancel` takes.
    @discardableResult
    public func submit(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    ) -> HTTPTransferID {
        engine.submit(request, completion: completion)
    }

    /// Ends the transfer: it completes with `.cancelled` (after its connection is closed),
    /// unless it completed already, in which case nothing happens. Never waits.
    public func cancel(_ id: HTTPTransferID) { engine.cancel(id) }

    /// Ends every transfer with `.shutDown` and stops the network thread; later submits
    /// complete with `.shutDown` at once. Called by deinit. Never waits.
    public func shutdown() { engine.shutdown() }

    /// `shutdown`, then waits up to `timeout` for the network thread to leave libcurl.
    /// Call it before `exit`: exit runs OpenSSL's clean-up (an `atexit` handler that frees
    /// its locks), and a network thread still closing a TLS connection then crashes on a
    /// freed lock.
    /// - Returns: true when no network thread is left running (none had started, or it ended
    ///   in time).
    @discardableResult
    public func shutdown(waitingAtMost timeout: Duration) -> Bool {
        engine.shutdown()
        return engine.waitForLoopEnd(timeout)
    }

    /// Counters since creation.
    public var statistics: Statistics { engine.statistics.withLock { $0 } }
}

/// The multi handle, as a value the inbox can hold. Only the network thread uses it, except
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread. It is cleaned up
/// only in `Engine.deinit`, when no caller can reach it any more, so a wake-up may be sent
/// after the inbox lock is released.
struct MultiHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// The shared half of an `HTTPClient`: the inbox the network thread drains, and the thread.
final class Engine: Sendable {
    enum Phase {
        case idle
        case running(MultiHandle)
        /// The loop ended (or never started); the handle, if any, waits for `deinit`.
        case finished(MultiHandle?)
    }

    struct Submission: Sendable {
        let id: Int
        let request: HTTPRequest
        let completion: @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    }

    struct Inbox {
        var phase = Phase.idle
        var nextID = 1
        var submissions: [Submission] = []
        var cancels: [Int] = []
        var shutdown = false
        /// A `curl_multi_wakeup` was sent and the loop has not drained the inbox since: later
        /// appends need no wake-up of their own (a burst of cancels costs one syscall).
        var wakePending = false

        /// The handle to wake the network thread with, after unlocking, unless a wake-up is
        /// on its way already. (Woken under the lock, the network thread ran at once on this
        /// 2-core machine and blocked on the lock the caller still held.)
        mutating func wake(_ multi: MultiHandle) -> MultiHandle? {
            guard !wakePending else { return nil }
            wakePending = true
            return multi
        }
    }

    static func wake(_ multi: MultiHandle?) {
        if let multi { _ = ccurl_multi_wakeup(multi.pointer) }
    }

    let configuration: HTTPClient.Configuration
    let inbox = Mutex(Inbox())
    /// The network thread's CPU-time clock (`pthread_getcpuclockid`), set when it starts.
    let loopClock = Mutex<clockid_t?>(nil)
    /// Signalled once, when the network thread's loop has ended.
    let loopEnded = DispatchSemaphore(value: 0)
    let statistics = Mutex(HTTPClient.Statistics())

    init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
    }

    deinit {
        // The loop thread holds the engine while it runs: here it has ended, and no caller is left.
        let multi = inbox.withLock { inbox -> MultiHandle? in
            switch inbox.phase {
            case .running(let multi), .finished(let multi?): return multi
            default: return nil
            }
        }
        if let multi { ccurl_multi_cleanup(multi.pointer) }
    }

    static func deliver(
        _ completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void,
        _ result: Result<HTTPResponse, HTTPClientError>
    ) {
        guard !exiting.withLock({ $0 }) else { return }
        DispatchQueue.global(qos: .userInitiated).async { completion(result) }
    }

    func submit(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    ) -> HTTPTransferID {
        var wakeUp: MultiHandle?
        var unavailable: String?
        let (id, accepted, start) = inbox.withLock { inbox -> (Int, Bool, MultiHandle?) in
            let id = inbox.nextID
            inbox.nextID += 1
            var start: MultiHandle?
            switch inbox.phase {
            case .finished: return (id, false, nil)
            case .idle:
                // The thread, the multi handle and libcurl itself (opened with dlopen) come with
                // the first request: a run that reads only local files never pays for them.
                guard Curl.start() else {
                    unavailable = "libcurl is not available: " + String(cString: ccurl_unavailable_reason())
                    return (id, false, nil)
                }
                guard let multi = ccurl_multi_init() else { return (id, false, nil) }
                let handle = MultiHandle(pointer: multi)
                inbox.phase = .running(handle)
                start = handle
            case .running(let multi):
                wakeUp = inbox.wake(multi)
            }
            inbox.submissions.append(Submission(id: id, request: request, completion: completion))
            return (id, true, start)
        }
        Self.wake(wakeUp)
        if !accepted { Self.deliver(completion, .failure(unavailable.map { .network($0) } ?? .shutDown)) }
        if let start {
            Engine.running.withLock { $0[ObjectIdentifier(self)] = self }
            _ = Engine.exitHook
            let thread = Thread { [self] in
                var clock = clockid_t()
                if pthread_getcpuclockid(pthread_self(), &clock) == 0 { loopClock.withLock { $0 = clock } }
                NetworkLoop(engine: self, multi: start.pointer).run()
            }
            thread.name = "vitrine.http"
            thread.stackSize = 1 << 20
            thread.start()
        }
        return HTTPTransferID(value: id)
    }

    func cancel(_ id: HTTPTransferID) {
        var wakeUp: MultiHandle?
        let withdrawn = inbox.withLock { inbox -> Submission? in
            if let index = inbox.submissions.firstIndex(where: { $0.id == id.value }) {
                return inbox.submissions.remove(at: index)
            }
            guard case .running(let multi) = inbox.phase else { return nil }
            inbox.cancels.append(id.value)
            wakeUp = inbox.wake(multi)
            return nil
        }
        Self.wake(wakeUp)
        if let withdrawn {
            statistics.withLock { $0.completed += 1 }
            Self.deliver(withdrawn.completion, .failure(.cancelled))
        }
    }

    /// Engines whose network thread is running (each removed when its loop ends), for the
    /// exit hook.
    static let running = Mutex<[ObjectIdentifier: Engine]>([:])
    /// Set by the exit hook: no completion is delivered after it.
    static let exiting = Mutex(false)

    /// At `exit`, stops every running network thread and waits for each (250 ms at most in
    /// all). Registered after `curl_global_init` (which starts OpenSSL and registers its
    /// clean-up with `atexit`), so it runs before that clean-up frees the locks a network
    /// thread still closing a TLS connection would take: a crash at exit, seen once in 20
    /// benchmark runs of 1,000 https fetches.
    static let exitHook: Void = {
        atexit {
            // The process is ending: completions would run on Dispatch threads racing exit.
            Engine.exiting.withLock { $0 = true }
            let engines = Engine.running.withLock { Array($0.values) }
            let deadline = ContinuousClock.now + .milliseconds(250)
            for engine in engines { engine.shutdown() }
            for engine in engines {
                _ = engine.waitForLoopEnd(max(.zero, deadline - ContinuousClock.now))
            }
        }
    }()

    /// Waits up to `timeout` for the network loop to end; true at once if it never started.
    func waitForLoopEnd(_ timeout: Duration) -> Bool {
        let started = inbox.withLock { inbox -> Bool in
            if case .finished(nil) = inbox.phase { return false }
            return true
        }
        guard started else { return true }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        guard loopEnded.wait(timeout: .now() + .nanoseconds(Int(min(nanoseconds, 1e15)))) == .success else { return false }
        loopEnded.signal()  // later waiters return at once too
        return true
    }

    func shutdown() {
        var wakeUp: MultiHandle?
        let orphans = inbox.withLock { inbox -> [Submission] in
            inbox.shutdown = true
            switch inbox.phase {
            case .idle:
                inbox.phase = .finished(nil)
                return []
            case .running(let multi):
                wakeUp = multi
                return []
            case .finished:
                let left = inbox.submissions
                inbox.submissions = []
                return left
            }
        }
        Self.wake(wakeUp)
        for orphan in orphans { Self.deliver(orphan.completion, .failure(.shutDown)) }
    }
}
