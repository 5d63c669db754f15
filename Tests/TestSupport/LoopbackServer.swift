import Foundation
import Locking

/// `Tests/Fixtures/galleryserver.py` on a loopback address with an OS-picked port: the one
/// server double of the HTTP client's and the image pipeline's tests (and the same script the
/// end-to-end tests run).
///
/// The server binds loopback only, exits by itself after `maxSeconds`, and is ended by `stop()`
/// (or deinit). It logs `METHOD PATH` per request (with `logHeaders`, one
/// `HEADER METHOD PATH NAME: VALUE` line per request header; with `logTimes`, a monotonic time
/// on each line and `END`/`CLOSED`/`SENT` lines; see the script) to its stdout. A reader thread
/// sleeps in poll(2) on that pipe and turns what comes into `lines`, noting when each arrived
/// and waking the tests that wait for one: waiting for a request is waiting for its line, not
/// polling a file. Reading `lines` first takes whatever the pipe holds, so a line the server
/// wrote before it answered is there once the answer is.
public final class LoopbackServer: @unchecked Sendable {
    // @unchecked: `process` is started in init and only killed in `stop`; the lines are behind
    // a Mutex.
    private let process = Process()
    /// `127.0.0.1`, or the address given to `init` (`[::1]` for IPv6), as it goes in a URL.
    public let host: String
    public let port: Int
    /// The folder served: the one given to `init`, or a temporary one (removed at deinit).
    public let root: URL
    private let ownsRoot: Bool
    private let log: Log
    private let changes = Changes()
    private let reader: Thread

    /// The server's log: the lines read so far, the piece of a line after them, and the read
    /// end of its stdout (a non-blocking duplicate that the reader closes at end of file).
    private final class Log: @unchecked Sendable {
        // @unchecked: everything is behind `state`.
        struct State {
            var lines: [(line: String, at: ContinuousClock.Instant)] = []
            var pending: [UInt8] = []
            var fd: Int32
        }
        let state: Mutex<State>

        init(fd: Int32, first: [UInt8]) {
            state = Mutex(State(pending: first, fd: fd))
            state.withLock { Self.split(&$0, at: .now) }
        }

        /// Reads what the pipe holds now; false once it is at end of file (and closed).
        @discardableResult
        func drain() -> Bool {
            state.withLock { state in
                guard state.fd >= 0 else { return false }
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(state.fd, $0.baseAddress, $0.count) }
                    if n > 0 {
                        state.pending += buffer[0..<n]
                        continue
                    }
                    if n < 0 && errno == EINTR { continue }
                    Self.split(&state, at: .now)
                    if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
                    close(state.fd)
                    state.fd = -1
                    return false
                }
            }
        }

        private static func split(_ state: inout State, at now: ContinuousClock.Instant) {
            while let newline = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                state.lines.append((String(decoding: state.pending[..<newline], as: UTF8.self), now))
                state.pending.removeSubrange(...newline)
            }
        }

        /// The read end, for poll(2); -1 after end of file.
        var fd: Int32 { state.withLock { $0.fd } }
    }

    /// Starts the server.
    /// - Parameters:
    ///   - root: the folder to serve; nil: a new empty temporary folder (write files into `root`).
    ///   - bind: a loopback address (`127.x.x.x` or `::1`).
    ///   - logHeaders: log every request header.
    ///   - logTimes: stamp each line with the server's monotonic time (see `monotonicNow()`).
    ///   - maxSeconds: the server exits by itself after this many seconds.
    /// - Throws: `CocoaError(.fileReadUnknown)` when the server did not print its port.
    public init(
        root: URL? = nil, bind: String = "127.0.0.1", logHeaders: Bool = false, logTimes: Bool = false,
        maxSeconds: Int = 60
    ) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/galleryserver.py")
        if let root {
            self.root = root
            ownsRoot = false
        } else {
            self.root = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-server-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: self.root, withIntermediateDirectories: true)
            ownsRoot = true
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = [
            "python3", script.path, "--port", "0", "--root", self.root.path, "--max-seconds", "\(maxSeconds)",
            "--bind", bind, "--log", "/dev/stdout",
        ]
        if logHeaders { arguments.append("--log-headers") }
        if logTimes { arguments.append("--log-times") }
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // The first line is "PORT <n>"; EOF (a server that died) ends the read too.
        let handle = out.fileHandleForReading
        var text = ""
        while !text.contains("\n") {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let first = text.prefix { $0 != "\n" }
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw CocoaError(.fileReadUnknown)
        }
        self.port = port
        self.host = bind.contains(":") ? "[\(bind)]" : bind
        // The log lines that came with the port line, then the reader, until end of file (the
        // server exited or was killed).
        let fd = dup(handle.fileDescriptor)
        guard fd >= 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw CocoaError(.fileReadUnknown)
        }
        let log = Log(fd: fd, first: Array(text.drop { $0 != "\n" }.dropFirst().utf8))
        let changes = self.changes
        self.log = log
        reader = Thread {
            while true {
                var waiting = pollfd(fd: log.fd, events: Int16(POLLIN), revents: 0)
                guard waiting.fd >= 0 else { break }
                if poll(&waiting, 1, -1) < 0 && errno != EINTR { break }
                let open = log.drain()
                changes.notify()
                if !open { break }
            }
        }
        reader.start()
    }

    deinit {
        stop()
        if ownsRoot { try? FileManager.default.removeItem(at: root) }
    }

    /// `http://HOST:PORT/path` (a leading `/` of `path` is dropped).
    public func url(_ path: String) -> URL { URL(string: address(path))! }

    /// `url(path)` as a string.
    public func address(_ path: String) -> String {
        "http://\(host):\(port)/\(path.hasPrefix("/") ? String(path.dropFirst()) : path)"
    }

    /// Ends the server and waits for its process to go.
    public func stop() {
        // SIGKILL, not `terminate()`: a child spawned from a test thread inherits that thread's
        // signal mask, in which SIGTERM is blocked, so SIGTERM would wait for --max-seconds.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Every log line so far, in arrival order (what the pipe holds now included).
    public var lines: [String] {
        log.drain()
        return log.state.withLock { $0.lines.map(\.line) }
    }

    /// Log lines containing `fragment`.
    public func lines(containing fragment: String) -> [String] { lines.filter { $0.contains(fragment) } }

    /// Request lines (`METHOD PATH`, not header or timing lines) whose path contains `fragment`.
    public func requests(containing fragment: String) -> [String] {
        lines(containing: fragment).filter { $0.hasPrefix("GET ") || $0.hasPrefix("HEAD ") }
    }

    /// When each request line containing `fragment` was read from the server (this process's
    /// clock; the server flushes each line as it takes the request).
    public func arrivals(containing fragment: String) -> [ContinuousClock.Instant] {
        log.drain()
        return log.state.withLock {
            $0.lines.filter { ($0.line.hasPrefix("GET ") || $0.line.hasPrefix("HEAD ")) && $0.line.contains(fragment) }
                .map(\.at)
        }
    }

    /// Waits until a log line contains `fragment` (or `seconds` pass); the first such line.
    public func waitForLine(containing fragment: String, seconds: Double = 10) -> String? {
        changes.wait(seconds: seconds) { !lines(containing: fragment).isEmpty }
        return lines(containing: fragment).first
    }

    /// Waits until `count` requests contain `fragment` (or `seconds` pass); the count then.
    @discardableResult
    public func waitForRequests(containing fragment: String, count: Int, seconds: Double = 10) -> Int {
        changes.wait(seconds: seconds) { requests(containing: fragment).count >= count }
        return requests(containing: fragment).count
    }
}
