import Foundation
import Locking

@testable import ImagePipeline

/// `Tests/Fixtures/galleryserver.py` on 127.0.0.1 with an OS-picked port, for tests that drive the
/// real pipeline (libcurl through HTTPClient, libvips) over loopback.
///
/// The server binds 127.0.0.1 only, exits by itself after `maxSeconds`, and is ended by `stop()`
/// (or `deinit`). With `log: true` it appends `METHOD PATH` per request to a temporary file, and a
/// watcher thread notes when each line appeared, so tests can count requests and time them.
final class GalleryServer: @unchecked Sendable {
    // @unchecked: `process` is only started in `init` and ended in `stop`; the log lines are
    // behind a Mutex.
    let process = Process()
    let port: Int
    /// The request log, when `log` was asked for.
    let logFile: URL?
    private let arrivals = Mutex<[(line: String, at: ContinuousClock.Instant)]>([])
    private let watching = Flag(true)

    init(root: URL, maxSeconds: Int = 60, log: Bool = false) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/galleryserver.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = [
            "python3", script.path, "--port", "0", "--root", root.path, "--max-seconds", "\(maxSeconds)",
        ]
        if log {
            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("vitrine-server-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            arguments += ["--log", file.path]
            logFile = file
        } else {
            logFile = nil
        }
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // The first line is "PORT <n>"; EOF (a server that died) ends the read too.
        var text = ""
        while !text.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "), let port = Int(line.dropFirst(5))
        else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw ImagePipeline.Error.network("galleryserver did not start: \(text)")
        }
        self.port = port
        if let logFile { startWatching(logFile) }
    }

    deinit {
        stop()
        if let logFile { try? FileManager.default.removeItem(at: logFile) }
    }

    /// `http://127.0.0.1:PORT/path`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(path.hasPrefix("/") ? String(path.dropFirst()) : path)")!
    }

    /// Ends the server (and the log watcher) and waits for the process to go.
    func stop() {
        watching.store(false)
        // SIGKILL, not `terminate()`: a child spawned from a test thread inherits that thread's
        // signal mask, in which SIGTERM is blocked, so SIGTERM would wait for --max-seconds.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The requests logged so far, `METHOD PATH` each, in arrival order.
    var requests: [String] {
        guard let logFile, let text = try? String(contentsOf: logFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    /// Logged requests whose path contains `fragment`.
    func requests(containing fragment: String) -> [String] { requests.filter { $0.contains(fragment) } }

    /// When each logged request was seen by the watcher (polled every 2 ms; precise to a few ms).
    func arrivals(containing fragment: String) -> [ContinuousClock.Instant] {
        arrivals.withLock { $0.filter { $0.line.contains(fragment) }.map(\.at) }
    }

    /// Waits until `count` logged requests contain `fragment`, or `seconds` pass; returns the count.
    @discardableResult
    func waitForRequests(containing fragment: String, count: Int, seconds: Double = 5) -> Int {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            let n = requests(containing: fragment).count
            if n >= count { return n }
            usleep(2000)
        }
        return requests(containing: fragment).count
    }

    private func startWatching(_ file: URL) {
        let thread = Thread { [self] in
            guard let handle = try? FileHandle(forReadingFrom: file) else { return }
            defer { try? handle.close() }
            var pending = ""
            while watching.load() {
                let chunk = handle.availableData
                if chunk.isEmpty {
                    usleep(2000)
                    continue
                }
                let now = ContinuousClock.now
                pending += String(decoding: chunk, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    let line = String(pending[..<newline])
                    pending = String(pending[pending.index(after: newline)...])
                    arrivals.withLock { $0.append((line, now)) }
                }
            }
        }
        thread.start()
    }
}

/// Resident memory of this process, in bytes (`VmRSS` in /proc/self/status).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    return 0
}

/// A Bool shared between threads.
final class Flag: Sendable {
    private let value: Mutex<Bool>
    init(_ value: Bool = false) { self.value = Mutex(value) }
    func load() -> Bool { value.withLock { $0 } }
    func store(_ newValue: Bool) { value.withLock { $0 = newValue } }
}
