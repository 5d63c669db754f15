import Foundation
import Synchronization
import Testing

@testable import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

@Suite("POSIX.writeAll")
struct POSIXWriteAllTests {
    /// A pipe's two ends (64 KiB of buffer on Linux).
    struct Pipe {
        let read: Int32
        let write: Int32
        init() throws {
            var fds: [Int32] = [-1, -1]
            try POSIX.call("pipe") { pipe(&fds) }
            (read, write) = (fds[0], fds[1])
        }

        /// Fills the pipe: the write end is non-blocking while it is filled, then left
        /// non-blocking or made blocking again. Returns the bytes it took.
        func fill(leaveNonBlocking: Bool) throws -> Int {
            let flags = try POSIX.call("fcntl F_GETFL") { fcntl(write, F_GETFL) }
            try POSIX.call("fcntl F_SETFL") { fcntl(write, F_SETFL, flags | O_NONBLOCK) }
            // 4096 bytes is PIPE_BUF: each write goes in whole or fails with EAGAIN.
            var chunk = [UInt8](repeating: 0xAA, count: 4096)
            var filled = 0
            while Glibc.write(write, &chunk, chunk.count) > 0 { filled += chunk.count }
            #expect(errno == EAGAIN)
            if !leaveNonBlocking { try POSIX.call("fcntl F_SETFL") { fcntl(write, F_SETFL, flags) } }
            return filled
        }

        /// Starts a thread that reads until the write end is closed; `wait` returns what it read.
        func startReader() -> (@Sendable () -> [UInt8]?) {
            let received = LockedBox<[UInt8]>([])
            let done = DispatchSemaphore(value: 0)
            let fd = read
            Thread {
                var out: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = Glibc.read(fd, &buffer, buffer.count)
                    if n > 0 { out += buffer[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
                }
                received.set(out)
                done.signal()
            }.start()
            return { done.wait(timeout: .now() + 30) == .success ? received.get() : nil }
        }
    }

    /// `count` bytes that are not all the same (a lost or repeated chunk shows).
    func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 251) } }

    @Test("a megabyte through a pipe, far more than it holds, arrives whole and in order")
    func throughPipe() throws {
        // Given a pipe and a reader on another thread
        let pipe = try Pipe()
        defer { Glibc.close(pipe.read) }
        let received = pipe.startReader()
        // When a megabyte is written, then the write end closed
        let bytes = pattern(1 << 20)
        try POSIX.writeAll(pipe.write, bytes)
        Glibc.close(pipe.write)
        // Then the reader saw every byte in order
        #expect(received() == bytes)
    }

    @Test("short writes and EINTR are written again until every byte is out")
    func shortWritesAndEINTR() throws {
        // Given a write that takes at most 3 bytes a call and fails with EINTR every other call
        let bytes = pattern(100)
        var written: [UInt8] = []
        var calls = 0
        try bytes.withUnsafeBytes { buffer in
            try POSIX.writeAll(7, buffer) { fd, pointer, count in
                #expect(fd == 7)
                calls += 1
                if calls % 2 == 0 {
                    errno = EINTR
                    return -1
                }
                let n = min(3, count)
                written += UnsafeRawBufferPointer(start: pointer, count: n)
                return n
            }
        }
        // Then the bytes arrive whole, in order, over as many calls as that takes
        #expect(written == bytes)
        #expect(calls == 2 * 34 - 1)
    }

    @Test("any other failure is thrown with its errno, and nothing more is written")
    func failureThrows() throws {
        var calls = 0
        let bytes = pattern(10)
        #expect(throws: POSIXCallError(call: "write", code: ENOSPC)) {
            try bytes.withUnsafeBytes { buffer in
                try POSIX.writeAll(3, buffer) { _, _, count in
                    calls += 1
                    if calls == 1 { return 4 }
                    errno = ENOSPC
                    return -1
                }
            }
        }
        #expect(calls == 2)
        // A write that returns 0 for a non-empty buffer is an error, not a loop forever
        #expect(throws: POSIXCallError(call: "write", code: EIO)) {
            try bytes.withUnsafeBytes { buffer in try POSIX.writeAll(3, buffer) { _, _, _ in 0 } }
        }
        // Nothing to write is no call at all
        try [UInt8]().withUnsafeBytes { buffer in
            try POSIX.writeAll(3, buffer) { _, _, _ in
                Issue.record("write called for no bytes")
                return -1
            }
        }
    }

    @Test("a reader gone away is EPIPE (SIGPIPE ignored), a closed descriptor EBADF")
    func realErrors() throws {
        let pipe = try Pipe()
        Glibc.close(pipe.read)
        defer { Glibc.close(pipe.write) }
        let old = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, old) }
        #expect(throws: POSIXCallError(call: "write", code: EPIPE)) { try POSIX.writeAll(pipe.write, "gone") }
        #expect(throws: POSIXCallError(call: "write", code: EBADF)) { try POSIX.writeAll(-1, [1, 2, 3]) }
    }

    @Test("a full non-blocking pipe (EAGAIN) waits in poll until the reader makes room")
    func nonBlockingFull() throws {
        // Given a non-blocking pipe that is already full
        let pipe = try Pipe()
        defer { Glibc.close(pipe.read) }
        let filled = try pipe.fill(leaveNonBlocking: true)
        // When 200 KiB more are written while a reader drains the pipe
        let received = pipe.startReader()
        let bytes = pattern(200 << 10)
        try POSIX.writeAll(pipe.write, bytes)
        Glibc.close(pipe.write)
        // Then they all arrive after what filled the pipe
        let all = try #require(received())
        #expect(all.count == filled + bytes.count)
        #expect(Array(all.dropFirst(filled)) == bytes)
    }

    /// Signals seen by the SIGUSR2 handler of ``realEINTR()``.
    static let interrupts = Atomic<Int>(0)

    @Test("a real signal that interrupts a blocked write (a handler without SA_RESTART) is retried")
    func realEINTR() throws {
        // Given a handler for SIGUSR2 installed without SA_RESTART, and a full blocking pipe
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in POSIXWriteAllTests.interrupts.add(1, ordering: .relaxed) }
        action.sa_flags = 0
        sigemptyset(&action.sa_mask)
        var old = sigaction()
        sigaction(SIGUSR2, &action, &old)
        defer { sigaction(SIGUSR2, &old, nil) }
        let pipe = try Pipe()
        defer { Glibc.close(pipe.read) }
        let filled = try pipe.fill(leaveNonBlocking: false)
        // When a writer thread blocks on it (no byte fits) and is signalled until the handler
        // has run three times: each signal makes its write(2) return EINTR
        let bytes = pattern(4096)
        let outcome = LockedBox<POSIXCallError?>(nil)
        let writerDone = DispatchSemaphore(value: 0)
        let writer = SignallableThread {
            do throws(POSIXCallError) { try POSIX.writeAll(pipe.write, bytes) } catch { outcome.set(error) }
            writerDone.signal()
        }
        let before = Self.interrupts.load(ordering: .relaxed)
        writer.start()
        var sent = 0
        while Self.interrupts.load(ordering: .relaxed) < before + 3 && sent < 2000 {
            usleep(5000)
            writer.interrupt(SIGUSR2)
            sent += 1
        }
        #expect(Self.interrupts.load(ordering: .relaxed) >= before + 3)
        #expect(outcome.get() == nil, "the interrupted write gave up")
        // Then, once a reader drains the pipe, the writer finishes without an error
        let received = pipe.startReader()
        #expect(writerDone.wait(timeout: .now() + 30) == .success)
        writer.join()
        Glibc.close(pipe.write)
        #expect(outcome.get() == nil)
        let all = try #require(received())
        #expect(Array(all.dropFirst(filled)) == bytes)
    }
}

/// A value behind a lock, shared with a thread.
final class LockedBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func set(_ new: T) { lock.withLock { value = new } }
    func get() -> T { lock.withLock { value } }
}

/// A pthread that runs `body` with SIGUSR2 unblocked, and can be sent it (`pthread_kill`).
final class SignallableThread: @unchecked Sendable {
    // @unchecked: `thread` is written by `start` before `interrupt` reads it, on one thread.
    private let body: @Sendable () -> Void
    private var thread = pthread_t()
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }

    /// Starts the thread (joinable, so `interrupt` never names a thread that is gone).
    func start() {
        let retained = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { raw in
            // A thread inherits its creator's signal mask, and the test runs on a dispatch
            // worker, which blocks every signal: let SIGUSR2 in.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGUSR2)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            Unmanaged<SignallableThread>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, retained)
    }

    func interrupt(_ signal: Int32) { pthread_kill(thread, signal) }

    /// Waits for `body` to end.
    func join() { pthread_join(thread, nil) }
}
