import Foundation
import Locking

/// `Tests/Fixtures/galleryserver.py` on a loopback address with an OS-picked port, logging
/// requests (and with `logHeaders`, every request header; with `logTimes`, monotonic times and
/// the moment a client closed a streamed body) to a temporary file. Ended by `stop()`/deinit.
final class FaultServer: @unchecked Sendable {
    // @unchecked: `process` is started in init and only killed in `stop`.
    let process = Process()
    let host: String
    let port: Int
    let logFile: URL
    let root: URL

    init(bind: String = "127.0.0.1", logHeaders: Bool = false, logTimes: Bool = false, maxSeconds: Int = 60) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/galleryserver.py")
        root = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Self.png.write(to: root.appendingPathComponent("a.png"))
        logFile = root.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = [
            "python3", script.path, "--port", "0", "--root", root.path, "--max-seconds", "\(maxSeconds)",
            "--bind", bind, "--log", logFile.path,
        ]
        if logHeaders { arguments.append("--log-headers") }
        if logTimes { arguments.append("--log-times") }
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "), let port = Int(line.dropFirst(5))
        else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw CocoaError(.fileReadUnknown)
        }
        self.port = port
        self.host = bind.contains(":") ? "[\(bind)]" : bind
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// 1x1 PNG bytes served as `a.png`.
    static let png = Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
        8, 0, 0, 0, 0, 0x3A, 0x7E, 0x9B, 0x55, 0, 0, 0, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x68, 0, 0, 0,
        0x82, 0, 0x81, 0x77, 0xCD, 0x72, 0xB6, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ])

    func url(_ path: String) -> String { "http://\(host):\(port)/\(path)" }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    var lines: [String] {
        guard let text = try? String(contentsOf: logFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    func lines(containing fragment: String) -> [String] { lines.filter { $0.contains(fragment) } }

    /// Waits up to `seconds` for a log line containing `fragment`.
    func waitForLine(containing fragment: String, seconds: Double = 5) -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        repeat {
            if let line = lines(containing: fragment).first { return line }
            usleep(2000)
        } while ContinuousClock.now < deadline
        return nil
    }
}

/// Waits for completions: one per request, collected with the time each came.
final class Completions: Sendable {
    struct Entry: Sendable {
        let result: Result<HTTPResponse, HTTPClientError>
        let at: ContinuousClock.Instant
    }
    private let entries = Mutex<[Int: [Entry]]>([:])
    private let condition = NSCondition()

    func record(_ key: Int, _ result: Result<HTTPResponse, HTTPClientError>) {
        condition.lock()
        entries.withLock { $0[key, default: []].append(Entry(result: result, at: .now)) }
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` keys have an entry (or `seconds` pass); the entries by key.
    func wait(for count: Int, seconds: Double = 10) -> [Int: [Entry]] {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        while entries.withLock({ $0.count }) < count && condition.wait(until: deadline) {}
        condition.unlock()
        return entries.withLock { $0 }
    }

    var snapshot: [Int: [Entry]] { entries.withLock { $0 } }
}

@testable import HTTPClient
