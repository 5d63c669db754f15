import Foundation
import Locking

/// Lets a test wait for state that other threads change, without sleeping: the code that
/// changes the state calls `notify()` after each change, and `wait(seconds:until:)` re-checks
/// its predicate on every notification until it holds or the timeout passes.
///
/// No wake-up is lost: the predicate is read under the condition's lock, and `notify()` takes
/// that lock, so a change made between a check and the wait still wakes the waiter.
/// The timeout only bounds a test that is failing; a passing test never waits for it.
public final class Changes: @unchecked Sendable {
    // @unchecked: NSCondition is thread-safe; it is the only stored property.
    private let condition = NSCondition()

    public init() {}

    /// Wakes every waiter to check its predicate again (call it after the state changed).
    public func notify() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until `predicate` is true (true) or `seconds` pass first (false).
    @discardableResult
    public func wait(seconds: Double = 10, until predicate: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !predicate() {
            if !condition.wait(until: deadline) { return predicate() }
        }
        return true
    }

    /// `wait(seconds:until:)` for async tests: the blocking wait runs on a thread of its own, so
    /// no thread of Swift's cooperative pool (which the awaited work may need) is held.
    public func wait(seconds: Double = 10, until predicate: @escaping @Sendable () -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.wait(seconds: seconds, until: predicate)) }.start()
        }
    }
}

/// A Bool shared between threads.
public final class Flag: Sendable {
    private let value: Mutex<Bool>
    public init(_ value: Bool = false) { self.value = Mutex(value) }
    public func load() -> Bool { value.withLock { $0 } }
    public func store(_ newValue: Bool) { value.withLock { $0 = newValue } }
}

/// Resident memory of this process, in bytes (`VmRSS` in /proc/self/status; 0 if unreadable).
public func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    return 0
}

/// CLOCK_MONOTONIC in seconds: the clock of the loopback server's `--log-times` stamps
/// (Python's `time.monotonic()`).
public func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
