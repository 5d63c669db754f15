import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether Vitrine's tmux pane is on a screen now, asked of tmux.
///
/// Inside tmux a kitty picture (DCS passthrough) is the outer terminal's, not tmux's: when the
/// user selects another window, switches session or detaches, tmux redraws the client with the
/// other window's cells and the picture stays over them, and nothing tells the pane (a sixel or
/// iTerm2 picture is drawn over by that redraw, and one drawn then lands on the other window).
/// Two sources say so: focus reports (``Key/focusIn``/``Key/focusOut``, which tmux sends a pane
/// that asked for them only when its `focus-events` option is on, off by default; a pane of a
/// split window that loses the focus is still on screen), and this query:
/// `tmux display -p -t $TMUX_PANE` with the pane's window's and session's state.
public enum TmuxPane {
    /// tmux's format for ``parse(_:)``: window active in its session, clients attached to the
    /// session, window zoomed, pane active, pane in a mode (copy mode draws over the pane), then
    /// the `allow-passthrough` option, the client's tty, and the pane's top-left cell in the
    /// window, `|`-separated.
    public static let format =
        "#{window_active} #{session_attached} #{window_zoomed_flag} #{pane_active} #{pane_in_mode}|#{allow-passthrough}|#{client_tty}|#{pane_left} #{pane_top}"

    /// What tmux said about the pane.
    public struct State: Equatable, Sendable {
        /// The pane is on a client's screen as itself (``visible(_:)``).
        public var visible: Bool
        /// The tty of the client tmux picked for the pane's session (`/dev/pts/3`), nil when it
        /// has none or the path is not under `/dev/`. tmux 3.3 drops passthrough from a pane
        /// that is not on screen (`allow-passthrough on`), so the bytes that take a kitty
        /// picture off after a window switch go to this tty (``write(_:toClientTTY:)``).
        public var clientTTY: String?
        /// `allow-passthrough all` (tmux 3.4+): passthrough from a pane off screen reaches the
        /// terminal, no tty needed.
        public var passthroughWhenHidden: Bool
        /// The pane's top-left cell on the client's screen (0-based column, row): where a pane
        /// cell is on the outer terminal, for the cursor move that goes through passthrough with
        /// a picture (tmux writes passthrough at the outer terminal's cursor, which it moves to
        /// the pane's cursor only after it has read the pane's output).
        public var paneColumn: Int
        public var paneRow: Int

        public init(
            visible: Bool, clientTTY: String? = nil, passthroughWhenHidden: Bool = false, paneColumn: Int = 0, paneRow: Int = 0
        ) {
            self.visible = visible
            self.clientTTY = clientTTY
            self.passthroughWhenHidden = passthroughWhenHidden
            self.paneColumn = paneColumn
            self.paneRow = paneRow
        }
    }

    /// Parses the output of ``format``; nil when tmux said something unexpected.
    public static func parse(_ output: String) -> State? {
        let parts = output.trimmingCharacters(in: .newlines).split(separator: "|", omittingEmptySubsequences: false)
        guard parts.count == 4, let visible = visible(String(parts[0])) else { return nil }
        let origin = parts[3].split(separator: " ").compactMap { Int($0) }
        guard origin.count == 2, origin.allSatisfy({ $0 >= 0 && $0 < 100_000 }) else { return nil }
        let tty = String(parts[2])
        let safe = tty.hasPrefix("/dev/") && !tty.contains("..") && tty.allSatisfy { $0.isASCII && !$0.isNewline && $0 > " " }
        return State(
            visible: visible, clientTTY: safe ? tty : nil, passthroughWhenHidden: parts[1] == "all", paneColumn: origin[0],
            paneRow: origin[1])
    }

    /// True when the first field of ``format`` says the pane is on a client's screen as itself:
    /// its window is its session's current one, the session has a client, the window is not
    /// zoomed to another pane, and the pane shows no mode (copy mode). Nil for anything else.
    public static func visible(_ output: String) -> Bool? {
        let fields = output.split(whereSeparator: \.isWhitespace).map { Int($0) }
        guard fields.count == 5, let windowActive = fields[0], let attached = fields[1], let zoomed = fields[2],
            let paneActive = fields[3], let inMode = fields[4]
        else { return nil }
        return windowActive == 1 && attached > 0 && (zoomed == 0 || paneActive == 1) && inMode == 0
    }

    /// Writes `bytes` (a few dozen: kitty's delete of a placement) straight to the terminal on
    /// `path`, a tmux client's tty, with one non-blocking `write`; false when it cannot be
    /// opened, is not a terminal, or takes less than all of it. tmux writes to the same tty, so
    /// this is for the short command that takes a picture off when tmux would drop it, sent
    /// after tmux's redraw of the other window (never for pixels).
    @discardableResult
    public static func write(_ bytes: [UInt8], toClientTTY path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard isatty(fd) == 1 else { return false }
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        return n == bytes.count
    }

    /// Asks tmux (the server `TMUX` names; `tmux` from PATH) about `pane` (`TMUX_PANE`, e.g.
    /// `%3`) off the calling thread and calls `answer` once, on another thread, with
    /// ``parse(_:)`` of its output, or nil when tmux failed, said something unexpected or took
    /// longer than `timeoutMilliseconds` (it is then killed). One `tmux` process
    /// (``POSIX/run(_:timeoutMilliseconds:)``), about 2-4 ms of CPU. `server`: arguments naming another tmux server (`-L NAME`, tests).
    public static func ask(
        pane: String, server: [String] = [], timeoutMilliseconds: Int = 500, answer: @escaping @Sendable (State?) -> Void
    ) {
        let argv = ["tmux"] + server + ["display", "-p", "-t", pane, format]
        DispatchQueue.global().async {
            let result = POSIX.run(argv, timeoutMilliseconds: timeoutMilliseconds)
            answer(result.flatMap { $0.status == 0 ? parse(String(decoding: $0.output, as: UTF8.self)) : nil })
        }
    }
}
