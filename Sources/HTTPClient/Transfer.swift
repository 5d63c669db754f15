import CCurl
import CLibcurl
import Foundation

/// One request's state on the network thread, from submit to its one completion, across
/// redirect hops (each hop is a fresh easy handle).
///
/// Touched only by the network thread: libcurl calls the header and write callbacks from
/// inside `curl_multi_perform`, which only that thread calls. The callbacks find it through
/// an unretained pointer in their userdata; the engine's table holds the strong reference.
final class Transfer {
    /// What the bytes after the final headers are for.
    enum Mode {
        /// Headers still coming.
        case headers
        /// A 2xx (or 204/304) answer: keep the body.
        case body
        /// A redirect: read and drop a short body so the connection can be reused.
        case redirect
    }

    /// How a transfer was stopped from a callback (the callback returned a short count, so
    /// libcurl reports `CURLE_WRITE_ERROR`; this says why).
    enum Verdict {
        case fail(HTTPClientError)
        /// A final status other than 2xx/304/redirect: answered with its headers, no body.
        case stoppedAtHeaders
        /// A redirect body longer than `redirectBodyLimit`: follow without reading the rest.
        case redirectNow
    }

    let id: Int
    let request: HTTPRequest
    /// The loop that owns this transfer, for the shared body budget.
    unowned let loop: NetworkLoop
    /// Paused by the body budget (`NetworkLoop.mayBuffer`): its idle clock is stopped.
    var paused = false
    let completion: @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    /// The URL of the hop in flight.
    var url: String
    var hops = 0
    /// The origin (`scheme://host:port`, lower-cased) whose requests carry `originHeaders`.
    let origin: String?
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl's error text for the hop in flight (CURLOPT_ERRORBUFFER, CURL_ERROR_SIZE bytes).
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    var mode = Mode.headers
    var verdict: Verdict?
    var status = 0
    var headers: [String: String] = [:]
    var headerLines = 0
    var headerBytes = 0
    var body = Data()
    var redirectBodyBytes = 0
    /// When the first hop was handed to libcurl, and when bytes last arrived (or the send).
    let sent: ContinuousClock.Instant
    var lastActivity: ContinuousClock.Instant

    /// Most header lines accepted in one answer, and most bytes of header block.
    static let maxHeaderLines = 500
    static let maxHeaderBlockBytes = 256 << 10
    /// Longest single header line, in bytes.
    static let maxHeaderLineBytes = 16 << 10
    /// A redirect's body is read and dropped up to this many bytes (keeps the connection).
    static let redirectBodyLimit = 64 << 10

    init(
        id: Int, request: HTTPRequest, loop: NetworkLoop, now: ContinuousClock.Instant,
        completion: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void
    ) {
        self.id = id
        self.request = request
        self.loop = loop
        self.completion = completion
        self.url = request.url
        self.origin = Self.origin(of: request.url)
        self.sent = now
        self.lastActivity = now
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
    }

    /// `scheme://host:port` with scheme and host lower-cased and the default port filled in;
    /// nil for a URL without a host.
    static func origin(of url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        let port = parts.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    /// The hop's effective deadline for the idle and total timeouts (total only while paused).
    var deadline: ContinuousClock.Instant {
        let total = sent + .milliseconds(request.totalTimeoutMs)
        return paused ? total : min(lastActivity + .milliseconds(request.idleTimeoutMs), total)
    }

    /// Clears what the previous hop's answer left (a redirect or a 1xx).
    func resetAnswer() {
        loop.bufferedBytes -= body.count
        mode = .headers
        verdict = nil
        status = 0
        headers = [:]
        headerLines = 0
        headerBytes = 0
        body = Data()
        redirectBodyBytes = 0
        errorBuffer[0] = 0
    }

    var errorText: String { String(cString: errorBuffer) }

    // MARK: Callbacks (network thread, inside curl_multi_perform)

    /// One header line (CRLF included) or the blank line that ends a header block.
    /// - Returns: `count` to go on, 0 to stop the transfer (see `verdict`).
    func header(_ bytes: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        lastActivity = .now
        headerLines += 1
        headerBytes += count
        if count > Self.maxHeaderLineBytes { return stop(.fail(.network("header too large"))) }
        if headerLines > Self.maxHeaderLines || headerBytes > Self.maxHeaderBlockBytes {
            return stop(.fail(.network("too many headers")))
        }
        let raw = UnsafeRawBufferPointer(start: bytes, count: count)
        let line = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            // A status line starts a header block (a 1xx's, then the final one).
            headers = [:]
            return count
        }
        if !line.isEmpty {
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            return count
        }
        guard let easy else { return 0 }
        let code = Curl.info(easy, CURLINFO_RESPONSE_CODE)
        if (100..<200).contains(code) {
            // Interim answer (103 Early Hints, 100 Continue): the final one follows.
            headerLines = 0
            headerBytes = 0
            return count
        }
        status = code
        if [301, 302, 303, 307, 308].contains(code), headers["location"] != nil {
            mode = .redirect
            return count
        }
        guard (200..<300).contains(code) || code == 304 else { return stop(.stoppedAtHeaders) }
        if let length = headers["content-length"].flatMap({ Int($0) }), length > request.maxBodyBytes {
            return stop(.fail(.tooLarge(limit: request.maxBodyBytes)))
        }
        mode = .body
        // One buffer of the announced size (at most 16 MiB up front) instead of a doubling one.
        if let length = headers["content-length"].flatMap({ Int($0) }), length > 0,
            headers["content-encoding"] == nil
        {
            body.reserveCapacity(min(length, 16 << 20))
        }
        return count
    }

    /// Body bytes, decoded. - Returns: `count` to go on, 0 to stop (see `verdict`).
    func write(_ bytes: UnsafeMutablePointer<CChar>, count: Int) -> Int {
        lastActivity = .now
        if verdict != nil { return 0 }
        switch mode {
        case .redirect:
            redirectBodyBytes += count
            return redirectBodyBytes > Self.redirectBodyLimit ? stop(.redirectNow) : count
        case .headers, .body:
            if body.count + count > request.maxBodyBytes { return stop(.fail(.tooLarge(limit: request.maxBodyBytes))) }
            guard loop.mayBuffer(self, count) else {
                // libcurl keeps this chunk and hands it over again after ccurl_easy_pause(CONT).
                paused = true
                return Self.writePause
            }
            body.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
            loop.bufferedBytes += count
            return count
        }
    }

    /// CURL_WRITEFUNC_PAUSE (a macro Swift does not import).
    static let writePause = 0x1000_0001

    private func stop(_ verdict: Verdict) -> Int {
        if self.verdict == nil { self.verdict = verdict }
        return 0
    }
}

/// libcurl's header callback: forwards to the `Transfer` in its userdata.
let transferHeaderCallback: curl_write_callback = { bytes, size, count, userdata in
    guard let bytes, let userdata else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().header(bytes, count: size * count)
}

/// libcurl's write callback: forwards to the `Transfer` in its userdata.
let transferWriteCallback: curl_write_callback = { bytes, size, count, userdata in
    guard let bytes, let userdata else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue().write(bytes, count: size * count)
}
