#if canImport(Glibc)
import Glibc
#endif

/// Bytes for the terminal outside curses, and one large transmission written in slices
/// between the main loop's turns so that keys are read while it goes out.
///
/// Foreground bytes (``write(_:)``: placements, deletes, sixel and iTerm2 pictures) are written
/// whole at once, as before. A *background transmission* (``start(_:cleanup:done:aborted:)``:
/// kitty's pan region, tens of megabytes of `a=t` chunks) goes through a second, non-blocking
/// open file description of the same terminal (`/proc/self/fd/1` opened again with
/// `O_NONBLOCK`, so curses's blocking descriptor is left as it is): each ``pump()`` writes what
/// the terminal takes for at most one frame's time and returns as soon as a key or a completion
/// is waiting (``interruptFDs``), and the main loop polls that descriptor for `POLLOUT`
/// (``pollFD``) while any is left.
///
/// Escape sequences are never split by other output: a slice may end inside one of the
/// transmission's commands (an APC), so before anything else reaches the terminal (curses's
/// frame, foreground bytes, a key's action) the main loop calls ``finishCommand()``, which
/// writes the rest of that command (at most one 4096-byte chunk, waiting for the terminal to
/// take it). Commands end at `ESC \` (the string terminator; in tmux's passthrough the inner
/// ones are `ESC ESC \`, which is not an end). kitty lets placements of other images (`a=p`)
/// come between the chunks of a load, but a delete (`a=d`) ends the load: foreground bytes that
/// hold a kitty delete abort the transmission first (``abort()``: the command in flight is
/// finished, the rest dropped, `cleanup` written, `aborted` called).
///
/// Without a second descriptor (`/proc` not mounted) or in tests (``init(blocking:)``), a
/// transmission is written whole at once and `done` runs at once.
@MainActor
public final class TerminalWriter {
    /// The descriptor curses also writes to (blocking).
    let fd: Int32
    /// The non-blocking descriptor for transmissions, -1 when none.
    let nonBlockingFD: Int32
    /// The `write`-shaped call (tests hand it a terminal that takes a few bytes at a time).
    private let writeCall: (Int32, UnsafeRawPointer, Int) -> Int

    private struct Transmission {
        var bytes: [UInt8]
        var offset: Int
        var cleanup: [UInt8]
        var done: () -> Void
        var aborted: () -> Void
    }
    private var current: Transmission?
    /// Transmissions finished and aborted since start (tests, benchmarks).
    public private(set) var counts = (finished: 0, aborted: 0)

    /// A writer to `fd` (1: the terminal) with a non-blocking descriptor of the same terminal
    /// for transmissions, when one can be opened.
    public convenience init(fd: Int32 = 1) {
        let second = open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        self.init(fd: fd, nonBlockingFD: second >= 0 && isatty(second) == 1 ? second : -1)
        if second >= 0 && nonBlockingFD < 0 { close(second) }
    }

    /// A writer whose transmissions go out whole at once (no second descriptor).
    public convenience init(blocking fd: Int32) {
        self.init(fd: fd, nonBlockingFD: -1)
    }

    /// A writer over explicit descriptors and a `write`-shaped call (`(fd, pointer, count) ->
    /// bytes written or -1 with errno set`): tests hand it a terminal that takes a few bytes at
    /// a time on `nonBlockingFD` (-1: none) and fails with EAGAIN when full.
    public init(fd: Int32, nonBlockingFD: Int32, write: @escaping (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.write($0, $1, $2) }) {
        self.fd = fd
        self.nonBlockingFD = nonBlockingFD
        self.writeCall = write
    }

    /// True while a transmission has bytes left.
    public var transmitting: Bool { current != nil }

    /// Bytes of the transmission in flight not written yet (0: none).
    public var bytesLeft: Int { current.map { $0.bytes.count - $0.offset } ?? 0 }

    /// The descriptor to poll for `POLLOUT` while a transmission has bytes left; nil otherwise.
    public var pollFD: Int32? { current != nil && nonBlockingFD >= 0 ? nonBlockingFD : nil }

    /// Writes `bytes` whole to the terminal now (after the rest of the transmission's command
    /// in flight). A kitty delete among them aborts the transmission first.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if current != nil && Self.holdsKittyDelete(bytes) { abort() }
        finishCommand()
        writeBlocking(bytes)
    }

    /// Starts writing `bytes` (whole escape sequences: kitty's `a=t` chunks) in slices; `done`
    /// runs on the main thread once the last byte is written (from ``pump()``), `aborted` if it
    /// is abandoned (then `cleanup` is written after the command in flight, e.g. the delete of
    /// the image that was being sent). A transmission in flight is aborted first. Without a
    /// non-blocking descriptor everything is written now and `done` runs before this returns.
    public func start(_ bytes: [UInt8], cleanup: [UInt8], done: @escaping () -> Void, aborted: @escaping () -> Void = {}) {
        if current != nil { abort() }
        guard nonBlockingFD >= 0 else {
            writeBlocking(bytes)
            counts.finished += 1
            done()
            return
        }
        current = Transmission(bytes: bytes, offset: 0, cleanup: cleanup, done: done, aborted: aborted)
    }

    /// Descriptors whose input ends a ``pump()`` early (the wiring sets the terminal's input
    /// and the wake pipe): a key or a completion is answered before more of the transmission
    /// goes out.
    public var interruptFDs: [Int32] = []

    /// How long one ``pump()`` keeps writing while the terminal drains and nothing is read
    /// (ms): one frame. Without it each few kilobytes the terminal takes would cost a whole
    /// turn of the main loop.
    public static let pumpBudgetMilliseconds = 16

    /// Writes the transmission while the terminal takes it: what fits without blocking, then,
    /// while ``interruptFDs`` have nothing to read and ``pumpBudgetMilliseconds`` have not
    /// passed, waits in `poll` for the terminal to take more and goes on. True when it finished
    /// now (its `done` has run). Returns at once when nothing is in flight.
    @discardableResult
    public func pump() -> Bool {
        guard var t = current, nonBlockingFD >= 0 else { return false }
        let deadline = ContinuousClock.now + .milliseconds(Self.pumpBudgetMilliseconds)
        var fds = [pollfd(fd: nonBlockingFD, events: Int16(POLLOUT), revents: 0)]
        for fd in interruptFDs { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        let finished = t.bytes.withUnsafeBytes { raw -> Bool in
            while t.offset < raw.count {
                let n = writeCall(nonBlockingFD, raw.baseAddress! + t.offset, raw.count - t.offset)
                if n > 0 {
                    t.offset += n
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && errno != EAGAIN {
                    // Any other failure: the rest is dropped (the terminal's writes never
                    // reported failures either).
                    t.offset = raw.count
                    break
                }
                // Full: wait for room, unless input is waiting or the budget is spent.
                let left = deadline - ContinuousClock.now
                let ms = Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
                guard ms > 0 else { return false }
                for i in fds.indices { fds[i].revents = 0 }
                let rc = poll(&fds, nfds_t(fds.count), Int32(ms))
                if rc < 0 && errno == EINTR { return false }
                guard rc > 0, fds[0].revents & Int16(POLLOUT) != 0 else { return false }
                if fds.dropFirst().contains(where: { $0.revents != 0 }) { return false }
            }
            return true
        }
        if finished {
            current = nil
            counts.finished += 1
            t.done()
            return true
        }
        current = t
        return false
    }

    /// Writes the rest of the transmission's command in flight, if a slice ended inside one,
    /// waiting for the terminal to take it (at most one chunk), so that other output can follow.
    public func finishCommand() {
        guard var t = current, t.offset > 0 else { return }
        let end = Self.commandEnd(in: t.bytes, from: t.offset)
        guard end > t.offset else { return }
        writeBlocking(t.bytes[t.offset..<end])
        t.offset = end
        if end >= t.bytes.count {
            current = nil
            counts.finished += 1
            t.done()
            return
        }
        current = t
    }

    /// Abandons the transmission in flight: finishes its command in flight, drops the rest,
    /// writes its `cleanup` and calls its `aborted`. Nothing when none is in flight.
    public func abort() {
        guard var t = current else { return }
        let end = t.offset > 0 ? Self.commandEnd(in: t.bytes, from: t.offset) : t.offset
        if end > t.offset { writeBlocking(t.bytes[t.offset..<end]) }
        t.offset = end
        current = nil
        if end >= t.bytes.count {
            // It had in fact finished: done, not aborted.
            counts.finished += 1
            t.done()
            return
        }
        counts.aborted += 1
        // Nothing of it reached the terminal: nothing to clean up there.
        if end > 0 { writeBlocking(t.cleanup[...]) }
        t.aborted()
    }

    /// The index just past the end of the escape sequence that `offset` lies in (or `offset`
    /// itself when a sequence ends right before it): past the next `ESC \` not preceded by
    /// another ESC (tmux doubles the inner ESCs), or the end of `bytes`.
    static func commandEnd(in bytes: [UInt8], from offset: Int) -> Int {
        guard offset > 0, offset < bytes.count else { return min(offset, bytes.count) }
        // Right after a terminator: already on a boundary.
        if offset >= 2, bytes[offset - 2] == 0x1B, bytes[offset - 1] == UInt8(ascii: "\\"),
            offset < 3 || bytes[offset - 3] != 0x1B
        {
            return offset
        }
        var i = max(1, offset)
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\"), bytes[i - 1] == 0x1B, i < 2 || bytes[i - 2] != 0x1B {
                return i + 1
            }
            i += 1
        }
        return bytes.count
    }

    /// True when `bytes` hold a kitty delete (`ESC _ G a=d`, or inside tmux's passthrough
    /// `ESC ESC _ G a=d`).
    static func holdsKittyDelete(_ bytes: [UInt8]) -> Bool {
        let needle: [UInt8] = [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G"), UInt8(ascii: "a"), UInt8(ascii: "="), UInt8(ascii: "d")]
        guard bytes.count >= needle.count else { return false }
        var i = 0
        while i <= bytes.count - needle.count {
            if bytes[i] == 0x1B, bytes[i + 1] == needle[1], bytes[i + 2] == needle[2], bytes[i + 3] == needle[3],
                bytes[i + 4] == needle[4], bytes[i + 5] == needle[5]
            {
                return true
            }
            i += 1
        }
        return false
    }

    private func writeBlocking(_ bytes: [UInt8]) {
        writeBlocking(bytes[...])
    }

    private func writeBlocking(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { raw in
            try? POSIX.writeAll(fd, raw, using: writeCall)
        }
    }
}
