#if canImport(Glibc)
import Glibc
#endif

/// Waits in `poll()` on the terminal and the wake pipe. Nothing else wakes the main thread:
/// with no timeout the process sleeps in the kernel (0% CPU when idle).
@MainActor
public final class EventLoop {
    /// What woke the loop.
    public struct Wake: Equatable {
        /// The terminal has input (or ncurses may: read keys until ERR).
        public var input: Bool
        /// The wake pipe was written (a background completion or a signal).
        public var posted: Bool
        /// The timeout ran out.
        public var timedOut: Bool

        public init(input: Bool = false, posted: Bool = false, timedOut: Bool = false) {
            self.input = input
            self.posted = posted
            self.timedOut = timedOut
        }
    }

    private let pipe: WakePipe

    public init(wakePipe: WakePipe) { self.pipe = wakePipe }

    /// Sleeps until input, a wake-up, or `timeoutMilliseconds` (nil: no timeout). EINTR (a
    /// signal such as SIGWINCH) counts as input, so the caller reads KEY_RESIZE.
    public func wait(timeoutMilliseconds: Int?) -> Wake {
        var fds = [
            pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pipe.readFD, events: Int16(POLLIN), revents: 0),
        ]
        let timeout = Int32(clamping: timeoutMilliseconds ?? -1)
        let rc = poll(&fds, 2, timeout)
        if rc < 0 { return Wake(input: true, posted: false, timedOut: false) }
        if rc == 0 { return Wake(input: false, posted: false, timedOut: true) }
        let posted = fds[1].revents & Int16(POLLIN) != 0
        if posted { pipe.drain() }
        let input = fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0
        return Wake(input: input, posted: posted, timedOut: false)
    }
}

/// What a main loop needs of the screen beyond drawing on it: its size, keys, and sending a
/// frame. `Screen` is one; a test's stand-in records cells on a `TestCanvas`.
@MainActor
public protocol LoopScreen: Canvas {
    /// Re-reads the size after a resize key.
    func updateSize()
    /// Makes the next refresh repaint every cell (^L).
    func repaintAll()
    /// Sends the frame's changed cells to the terminal.
    func refresh()
    /// Every key read so far, decoded, without waiting.
    func pendingKeys() -> [Key]
}

extension Screen: LoopScreen {}
