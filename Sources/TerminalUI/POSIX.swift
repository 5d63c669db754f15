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
}
