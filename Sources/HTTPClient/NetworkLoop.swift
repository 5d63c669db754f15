import CCurl
import CLibcurl
import Foundation

/// The network thread's side of an `HTTPClient`: the multi handle and every transfer in
/// flight. Made on that thread and used only there.
///
/// Each turn: take the inbox (new requests, cancels, shutdown), let libcurl move bytes
/// (`curl_multi_perform`), handle finished transfers (complete, or follow a redirect), end
/// transfers past their idle or total deadline, then sleep in `curl_multi_poll` until a
/// socket is ready, the nearer of libcurl's own timer and the next deadline, or a wake-up.
final class NetworkLoop {
    let engine: Engine
    let multi: UnsafeMutableRawPointer
    var transfers: [Int: Transfer] = [:]
    /// Transfer IDs by the easy handle of their hop in flight.
    var byHandle: [UnsafeMutableRawPointer: Int] = [:]
    /// A hop was added since the last `curl_multi_perform`: poll without sleeping.
    var added = false
    /// Body bytes held by transfers in flight, all together.
    var bufferedBytes = 0
    /// Transfers paused by the body budget.
    var pausedCount = 0

    init(engine: Engine, multi: UnsafeMutableRawPointer) {
        self.engine = engine
        self.multi = multi
    }

    func run() {
        // Idle connections kept for reuse. libcurl's default is four per transfer added, so
        // while the pipeline holds fetches back (its decode backlog) the cache shrank and closed
        // connections it then opened again (10-12 per 1,000 thumbnails instead of 6).
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 64)
        if engine.configuration.maxConnectionsPerHost > 0 {
            _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, engine.configuration.maxConnectionsPerHost)
        }
        while true {
            let (submissions, cancels, shutdown) = engine.inbox.withLock { inbox in
                defer {
                    inbox.submissions = []
                    inbox.cancels = []
                    inbox.wakePending = false
                }
                return (inbox.submissions, inbox.cancels, inbox.shutdown)
            }
            let now = ContinuousClock.now
            for submission in submissions {
                let transfer = Transfer(
                    id: submission.id, request: submission.request, loop: self, now: now,
                    completion: submission.completion)
                transfers[transfer.id] = transfer
                startHop(transfer)
            }
            for id in cancels {
                if let transfer = transfers[id] { finish(transfer, .failure(.cancelled)) }
            }
            if shutdown { break }
            var running: Int32 = 0
            _ = ccurl_multi_perform(multi, &running)
            added = false
            handleFinished()
            expireDeadlines()
            resumePaused()
            var numberOfFDs: Int32 = 0
            _ = ccurl_multi_poll(multi, nil, 0, added ? 0 : sleepMilliseconds(), &numberOfFDs)
        }
        for transfer in Array(transfers.values) { finish(transfer, .failure(.shutDown)) }
        let late = engine.inbox.withLock { inbox -> [Engine.Submission] in
            inbox.phase = .finished(MultiHandle(pointer: multi))
            defer { inbox.submissions = [] }
            return inbox.submissions
        }
        for submission in late { Engine.deliver(submission.completion, .failure(.shutDown)) }
        Engine.running.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(engine)) }
        engine.loopEnded.signal()
        // curl_multi_cleanup runs in Engine.deinit, when no caller can wake this handle any more.
    }

    /// How long `curl_multi_poll` may sleep: until libcurl's next timer or the nearest idle or
    /// total deadline, in whole milliseconds rounded up (a day when nothing is due).
    func sleepMilliseconds() -> Int32 {
        var curlTimeout = -1
        _ = ccurl_multi_timeout(multi, &curlTimeout)
        var sleep = curlTimeout >= 0 ? curlTimeout : 86_400_000
        let now = ContinuousClock.now
        for transfer in transfers.values where transfer.easy != nil {
            let left = transfer.deadline - now
            let ms = Int(left.components.seconds) * 1000 + Int((left.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            sleep = min(sleep, max(0, ms))
        }
        return Int32(clamping: sleep)
    }

    /// Starts `transfer`'s next hop (its `url`) on a fresh easy handle.
    func startHop(_ transfer: Transfer) {
        let scheme = URLComponents(string: transfer.url)?.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else { return finish(transfer, .failure(.badURL(transfer.url))) }
        guard let easy = ccurl_easy_init() else { return finish(transfer, .failure(.network("libcurl failed"))) }
        transfer.easy = easy
        byHandle[easy] = transfer.id
        let request = transfer.request
        let me = Unmanaged.passUnretained(transfer).toOpaque()
        Curl.set(easy, CURLOPT_URL, transfer.url)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, transferHeaderCallback)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        // Threads must not get SIGALRM/SIGPIPE from libcurl; DNS runs in its own resolver thread.
        Curl.set(easy, CURLOPT_NOSIGNAL, 1)
        Curl.set(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        Curl.set(easy, CURLOPT_FOLLOWLOCATION, 0)
        // Every encoding this libcurl decodes (gzip, deflate, br, zstd); the write callback sees
        // decoded bytes, so the size cap counts what is kept.
        Curl.set(easy, CURLOPT_ACCEPT_ENCODING, "")
        Curl.set(easy, CURLOPT_USERAGENT, engine.configuration.userAgent)
        Curl.set(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, request.connectTimeoutMs))
        if let file = engine.configuration.caFile { Curl.set(easy, CURLOPT_CAINFO, file) }
        if let path = engine.configuration.caPath { Curl.set(easy, CURLOPT_CAPATH, path) }
        if scheme == "https" {
            // HTTP/2 multiplexes over one connection; PIPEWAIT makes a new request wait for a
            // connection being set up rather than open another. Over plain http it would make
            // requests take turns on one HTTP/1.1 connection.
            Curl.set(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
            Curl.set(easy, CURLOPT_PIPEWAIT, 1)
        } else {
            Curl.set(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        }
        if transfer.origin != nil, Transfer.origin(of: transfer.url) == transfer.origin {
            for header in request.originHeaders {
                transfer.headerList = ccurl_slist_append(transfer.headerList, "\(header.name): \(header.value)")
            }
        }
        if let list = transfer.headerList { _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list) }
        engine.statistics.withLock { $0.hopsStarted += 1 }
        if ccurl_multi_add_handle(multi, easy) != CURLM_OK {
            return finish(transfer, .failure(.network("libcurl refused the transfer")))
        }
        added = true
    }

    /// Whether `transfer` may keep `count` more body bytes now (the body budget).
    ///
    /// All bodies in flight together stay within `HTTPClient.Configuration.bufferedBodyBytes`,
    /// except for one: the transfer holding the most bytes always goes on (to its end or its
    /// own cap), so some transfer always makes progress; the others pause (libcurl stops
    /// reading their sockets, TCP back-pressure does the rest) until bytes are freed. So six
    /// endless bodies of a hostile server hold at most the budget plus one cap, not six caps.
    func mayBuffer(_ transfer: Transfer, _ count: Int) -> Bool {
        let limit = engine.configuration.bufferedBodyBytes
        guard limit > 0, bufferedBytes + count > limit else { return true }
        let leader = transfers.values.max { ($0.body.count, -$0.id) < ($1.body.count, -$1.id) }
        if leader === transfer { return true }
        if !transfer.paused { pausedCount += 1 }
        return false
    }

    /// Lets paused transfers go on once bytes were freed (each pauses again if still over).
    func resumePaused() {
        guard pausedCount > 0, bufferedBytes < engine.configuration.bufferedBodyBytes else { return }
        pausedCount = 0
        let now = ContinuousClock.now
        for transfer in Array(transfers.values) where transfer.paused {
            transfer.paused = false
            transfer.lastActivity = now
            if let easy = transfer.easy { _ = ccurl_easy_pause(easy, 0) }  // CURLPAUSE_CONT
        }
    }

    /// Takes the hop's handle out of the multi handle and frees it. An unfinished transfer's
    /// connection is closed by libcurl here (an HTTP/2 stream is reset).
    func endHop(_ transfer: Transfer) {
        guard let easy = transfer.easy else { return }
        if transfer.paused {
            transfer.paused = false
            pausedCount -= 1
        }
        _ = ccurl_multi_remove_handle(multi, easy)
        let connects = Curl.info(easy, CURLINFO_NUM_CONNECTS)
        engine.statistics.withLock { $0.connectionsOpened += connects }
        ccurl_easy_cleanup(easy)
        if let list = transfer.headerList { ccurl_slist_free_all(list) }
        transfer.headerList = nil
        byHandle[easy] = nil
        transfer.easy = nil
    }

    /// Ends `transfer` with `result`: the hop is taken out first, then the completion is sent.
    func finish(_ transfer: Transfer, _ result: Result<HTTPResponse, HTTPClientError>) {
        endHop(transfer)
        guard transfers.removeValue(forKey: transfer.id) != nil else { return }
        bufferedBytes -= transfer.body.count
        transfer.body = Data()
        engine.statistics.withLock { $0.completed += 1 }
        Engine.deliver(transfer.completion, result)
    }

    func response(_ transfer: Transfer, body: Bool) -> HTTPResponse {
        HTTPResponse(status: transfer.status, headers: transfer.headers, body: body ? transfer.body : Data(), url: transfer.url)
    }

    func handleFinished() {
        var left: Int32 = 0
        while let message = ccurl_multi_info_read(multi, &left) {
            var easy: UnsafeMutableRawPointer?
            var code = CURLE_OK
            guard ccurl_message_done(message, &easy, &code) == 1, let easy, let id = byHandle[easy],
                let transfer = transfers[id]
            else { continue }
            switch transfer.verdict {
            case .fail(let error)?: finish(transfer, .failure(error))
            case .stoppedAtHeaders?: finish(transfer, .success(response(transfer, body: false)))
            case .redirectNow?: follow(transfer)
            case nil where code == CURLE_OK:
                if transfer.mode == .redirect { follow(transfer) } else { finish(transfer, .success(response(transfer, body: true))) }
            case nil:
                let error = Curl.error(
                    code, easy: easy, detail: transfer.errorText, gotHeaders: transfer.mode != .headers)
                finish(transfer, .failure(error))
            }
        }
    }

    /// Follows a redirect answer: the next hop goes to its `Location`, resolved against the
    /// hop's URL; `originHeaders` go along only if the origin is unchanged (see `startHop`).
    func follow(_ transfer: Transfer) {
        let location = transfer.headers["location"] ?? ""
        let resolved = transfer.easy.flatMap { Curl.string($0, CURLINFO_REDIRECT_URL) }
            ?? URL(string: location, relativeTo: URL(string: transfer.url))?.absoluteString
        endHop(transfer)
        guard transfer.hops < transfer.request.maxRedirects else { return finish(transfer, .failure(.tooManyRedirects)) }
        let scheme = resolved.flatMap { URLComponents(string: $0)?.scheme?.lowercased() }
        guard let resolved, scheme == "http" || scheme == "https" else {
            return finish(transfer, .failure(.unsupportedRedirect(location)))
        }
        transfer.hops += 1
        transfer.url = resolved
        transfer.resetAnswer()
        startHop(transfer)
    }

    /// Ends transfers past their idle or total deadline.
    func expireDeadlines() {
        let now = ContinuousClock.now
        for transfer in Array(transfers.values) where transfer.easy != nil && now >= transfer.deadline {
            let idleEnds = transfer.lastActivity + .milliseconds(transfer.request.idleTimeoutMs)
            finish(transfer, .failure(now >= idleEnds ? .timedOut : .tooSlow))
        }
    }
}
