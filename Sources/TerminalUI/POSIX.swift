#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: which one and its `errno`.
public struct POSIXCallError: Error, Equatable, CustomStringConvertible {
    /// The call, as written where it failed ("open /dev/null", "dup2").
    public var call: String
    /// `errno` after the call.
    public var code: Int32

    /// "dup2: Bad file descriptor".
    public var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// The one way Vitrine makes a raw POSIX call whose result matters (`open`, `dup`, `dup2`,
/// `pipe`, `fcntl`): retried while it fails with EINTR, any other failure thrown with its errno
/// (swift-nio's `syscall` wrapper in NIOPosix does the same).
public enum POSIX {
    /// Runs `body` until it returns something other than -1 with EINTR; returns its result.
    /// - Throws: ``POSIXCallError`` naming `call` when it returns -1 with another errno.
    @discardableResult
    public static func call(_ call: @autoclosure () -> String, _ body: () -> Int32) throws(POSIXCallError) -> Int32 {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw POSIXCallError(call: call(), code: code)
        }
    }

    /// Writes every byte of `bytes` to `fd`: `write(2)` again after a short write, again after
    /// EINTR, and after EAGAIN (a non-blocking descriptor that is full: a terminal shared with
    /// a program that set O_NONBLOCK) once `poll(2)` says `fd` takes more.
    ///
    /// The one write-all loop of Vitrine (stdout and stderr messages, pixel pictures, OSC 52,
    /// the picker's lines, saved files). The signal handler's copy in ``TerminalRestore`` stays
    /// apart: it must be async-signal-safe and cannot throw.
    /// - Throws: ``POSIXCallError`` ("write") with the errno of the first other failure (EPIPE
    ///   when the reader went away, ENOSPC, EBADF); EIO if `write` returns 0 for a non-empty
    ///   buffer. Bytes before the failure are written.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(POSIXCallError) {
        try writeAll(fd, bytes, using: { Glibc.write($0, $1, $2) })
    }

    /// Writes every byte of `bytes` to `fd` (see ``writeAll(_:_:)``).
    /// - Throws: ``POSIXCallError`` as that does.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(POSIXCallError) {
        // `withUnsafeBytes` rethrows untyped: carry the typed error out by hand.
        let failure = bytes.withUnsafeBytes { raw -> POSIXCallError? in
            do throws(POSIXCallError) { try writeAll(fd, raw) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Writes the UTF-8 bytes of `text` to `fd` (see ``writeAll(_:_:)``).
    /// - Throws: ``POSIXCallError`` as that does.
    public static func writeAll(_ fd: Int32, _ text: String) throws(POSIXCallError) {
        var text = text
        let failure = text.withUTF8 { buffer -> POSIXCallError? in
            do throws(POSIXCallError) { try writeAll(fd, UnsafeRawBufferPointer(buffer)) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// The loop of ``writeAll(_:_:)`` over any `write`-shaped call
    /// (`(fd, pointer, count) -> bytes written or -1 with errno set`), so tests can hand it
    /// short writes and EINTR on demand.
    static func writeAll(
        _ fd: Int32, _ bytes: UnsafeRawBufferPointer, using write: (Int32, UnsafeRawPointer, Int) -> Int
    ) throws(POSIXCallError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, base + offset, bytes.count - offset)
            if n > 0 {
                offset += n
                continue
            }
            if n == 0 { throw POSIXCallError(call: "write", code: EIO) }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN:  // EWOULDBLOCK is the same value on Linux
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = try call("poll") { poll(&pfd, 1, -1) }
            default:
                throw POSIXCallError(call: "write", code: code)
            }
        }
    }
}
