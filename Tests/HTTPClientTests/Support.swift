import Foundation
import Locking
import TestSupport

@testable import HTTPClient

extension LoopbackServer {
    /// A loopback server (Tests/TestSupport) whose root holds `a.png` (`onePixelPNG`).
    static func serving(bind: String = "127.0.0.1", logHeaders: Bool = false, logTimes: Bool = false) throws
        -> LoopbackServer
    {
        let server = try LoopbackServer(bind: bind, logHeaders: logHeaders, logTimes: logTimes)
        try onePixelPNG.write(to: server.root.appendingPathComponent("a.png"))
        return server
    }

    /// 1x1 PNG bytes served as `a.png`. (Made per use: LeakSanitizer cannot see that a static
    /// `Data` is reachable, since its storage pointer is kept inside an enum with tag bits set.)
    static var onePixelPNG: Data {
        Data([
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
        8, 0, 0, 0, 0, 0x3A, 0x7E, 0x9B, 0x55, 0, 0, 0, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x68, 0, 0, 0,
            0x82, 0, 0x81, 0x77, 0xCD, 0x72, 0xB6, 0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ])
    }
}

/// Waits for completions: one per request, collected with the time each came.
final class Completions: Sendable {
    struct Entry: Sendable {
        let result: Result<HTTPResponse, HTTPClientError>
        let at: ContinuousClock.Instant
    }
    private let entries = Mutex<[Int: [Entry]]>([:])
    private let changes = Changes()

    func record(_ key: Int, _ result: Result<HTTPResponse, HTTPClientError>) {
        entries.withLock { $0[key, default: []].append(Entry(result: result, at: .now)) }
        changes.notify()
    }

    /// Waits until `count` keys have an entry (or `seconds` pass); the entries by key.
    func wait(for count: Int, seconds: Double = 10) -> [Int: [Entry]] {
        changes.wait(seconds: seconds) { entries.withLock { $0.count } >= count }
        return entries.withLock { $0 }
    }

    var snapshot: [Int: [Entry]] { entries.withLock { $0 } }
}
