#if canImport(Glibc)
import Glibc
#endif

/// Waits in `poll()` on the terminal and the wake pipe. Nothing else wakes the main thread:
/// with no timeout the process sleeps in the kernel (0% CPU when idle).
@MainActor
public final class EventLoop {
    /// What woke the loop: whether the wake pipe was written (a background completion or a
    /// signal). Input needs no flag: the caller reads keys until ERR after every wake.
    public struct Wake: Equatable {
        /// The wake pipe was written (a background completion or a signal).
        public var posted: Bool

        public init(posted: Bool = false) {
            self.posted = posted
        }
    }

    private let pipe: WakePipe

    public init(wakePipe: WakePipe) { self.pipe = wakePipe }

    /// Sleeps until input, a wake-up, or `timeoutMilliseconds` (nil: no timeout), and says
    /// whether the wake pipe was written. Input, a timeout and EINTR (a signal such as
    /// SIGWINCH) all just return: the caller then reads keys (KEY_RESIZE among them).
    /// With `writable` (``TerminalWriter/pollFD``: a transmission has bytes left), the terminal
    /// taking more output wakes it too.
    public func wait(timeoutMilliseconds: Int?, writable: Int32? = nil) -> Wake {
        var fds = [
            pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pipe.readFD, events: Int16(POLLIN), revents: 0),
        ]
        if let writable { fds.append(pollfd(fd: writable, events: Int16(POLLOUT), revents: 0)) }
        let timeout = Int32(clamping: timeoutMilliseconds ?? -1)
        let rc = poll(&fds, nfds_t(fds.count), timeout)
        // rc < 0 (EINTR: a signal such as SIGWINCH) and rc == 0 (the timeout) post nothing.
        guard rc > 0 else { return Wake(posted: false) }
        let posted = fds[1].revents & Int16(POLLIN) != 0
        if posted { pipe.drain() }
        return Wake(posted: posted)
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
