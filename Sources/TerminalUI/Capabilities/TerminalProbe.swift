import CNcursesw
import Foundation
import HalfBlock

#if canImport(Glibc)
import Glibc
#endif

/// Gathers the facts ``TerminalCapabilities/detect(_:)`` decides from: asks the terminal (and
/// tmux, inside tmux) and reads terminfo and TIOCGWINSZ. Call it before curses starts.
///
/// - Important: every query shares one deadline (``defaultDeadlineMilliseconds``). The last
///   query is DA1 (`CSI c`), which every terminal answers, and replies come back in order, so the
///   DA1 reply means every other reply is in: a terminal that knows none of the other queries
///   costs one round trip, a silent one the deadline. The tty is in raw mode without echo while
///   the probe reads, and everything read (replies and any key typed meanwhile) is consumed
///   here: nothing leaks onto the screen or into curses's key queue. Nothing is asked, and
///   nothing is read, when stdout is not a terminal.
public enum TerminalProbe {
    /// The one deadline for all queries, in milliseconds.
    public static let defaultDeadlineMilliseconds = 100

    /// Id of the kitty graphics query image (answers name it; nothing is stored under it).
    static let kittyQueryID = 31

    /// The queries, in order: OSC 11 (background), XTVERSION, the kitty graphics query (a 1x1
    /// RGB image with `a=q`: checked, never stored), `CSI 16 t` and `CSI 14 t` (cell and
    /// text-area pixels), DA1 last. Inside tmux with passthrough, the kitty query, the pixel
    /// queries and a second DA1 go wrapped to the outer terminal (tmux itself answers the
    /// unwrapped DA1 and XTVERSION), so two DA1 replies are awaited.
    ///
    /// With `media` (objects made by ``mediumProbes(environment:)``), each kitty medium query
    /// follows the graphics query: the same 1x1 RGB image with `a=q` read from a shared memory
    /// object (`t=s`, id 32) or a temporary file (`t=t`, id 33), the payload the object's name
    /// in base64, as kitty's `icat --transfer-mode=detect` asks. A terminal on another host (ssh)
    /// or one that cannot open it answers an error; one without kitty graphics, nothing.
    /// - Returns: the bytes to write and how many DA1 replies end the wait.
    public static func queries(tmuxPassthrough: Bool, media: [KittySharedObject] = []) -> (bytes: [UInt8], sentinels: Int) {
        var kitty = "\u{1B}_Gi=\(kittyQueryID),s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\"
        for object in media {
            let id = object.medium == .sharedMemory ? TerminalAnswers.sharedMemoryQueryID : TerminalAnswers.tempFileQueryID
            let name = String(decoding: Base64.encode(object.handOverForQuery()), as: UTF8.self)
            kitty += "\u{1B}_Gi=\(id),s=1,v=1,a=q,t=\(object.medium.key),f=24;\(name)\u{1B}\\"
        }
        let pixels = "\u{1B}[16t\u{1B}[14t"
        let da1 = "\u{1B}[c"
        let osc11 = "\u{1B}]11;?\u{1B}\\"
        let xtversion = "\u{1B}[>0q"
        if tmuxPassthrough {
            let outer = Array(osc11.utf8) + Array(kitty.utf8) + Array(pixels.utf8) + Array(da1.utf8)
            return (Passthrough.tmux(outer) + Array((xtversion + da1).utf8), 2)
        }
        return (Array((osc11 + xtversion + kitty + pixels + da1).utf8), 1)
    }

    /// Asks the terminal and tmux and reads terminfo and the window size; returns the facts.
    ///
    /// - Parameters:
    ///   - environment: the process environment.
    ///   - deadlineMilliseconds: the shared deadline for every question (tmux's and the tty's).
    ///   - pixelOverride, colorOverride: `--pixels` and `--colors`, carried into the facts.
    ///   - ask: false to skip the tty queries (facts from the environment, terminfo and tmux only).
    ///   - controllingTerminal: ask the controlling terminal (`/dev/tty`) even when stdout is
    ///     redirected (`vitrine doctor > report.txt`): the facts then describe that terminal.
    public static func gather(
        environment: [String: String], deadlineMilliseconds: Int = defaultDeadlineMilliseconds,
        pixelOverride: PixelProtocol? = nil, colorOverride: ColorMode? = nil, ask: Bool = true,
        controllingTerminal: Bool = false
    ) -> TerminalCapabilities.Facts {
        let start = monotonicMilliseconds()
        let deadline = start + Double(deadlineMilliseconds)
        var isTerminal = isatty(1) == 1
        var sizeFD: Int32 = 1
        if !isTerminal && controllingTerminal {
            sizeFD = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
            isTerminal = sizeFD >= 0
        }
        defer { if sizeFD > 2 { close(sizeFD) } }
        var facts = TerminalCapabilities.Facts(
            environment: environment, isTerminal: isTerminal, pixelOverride: pixelOverride,
            colorOverride: colorOverride)
        facts.terminfo = terminfo(term: environment["TERM"] ?? "")
        guard isTerminal else { return facts }
        facts.windowSize = windowSize(fd: sizeFD)
        if !(environment["TMUX"] ?? "").isEmpty {
            facts.tmux = askTmux(pane: environment["TMUX_PANE"], deadline: deadline)
        }
        guard ask else { return facts }
        // The medium queries' objects: unlinked when they go out of scope here (the terminal
        // unlinks the one it read; an error or no answer leaves it to this).
        let media = mediumProbes(environment: environment)
        defer { withExtendedLifetime(media) {} }
        let query = queries(tmuxPassthrough: facts.tmux?.passthrough ?? false, media: media)
        if let (answers, complete) = askTerminal(query.bytes, sentinels: query.sentinels, deadline: deadline) {
            facts.answers = answers
            facts.answersComplete = complete
        }
        return facts
    }

    /// The objects the kitty medium queries name: a 3-byte (one black RGB pixel) shared memory
    /// object and temporary file, each mode 0600, `O_EXCL`, under a random name. None when
    /// `VITRINE_KITTY_MEDIUM=direct` (the direct path forced), and none that cannot be made.
    /// Each is unlinked when released (the probe releases them after the read).
    public static func mediumProbes(environment: [String: String]) -> [KittySharedObject] {
        if KittyMedium(environmentValue: environment["VITRINE_KITTY_MEDIUM"]) == .direct { return [] }
        return [KittyMedium.sharedMemory, .tempFile].compactMap { medium in
            KittySharedObject(medium: medium, byteCount: 3) { $0.initializeMemory(as: UInt8.self, repeating: 0) }
        }
    }

    /// Writes `query` to the controlling terminal and reads replies until `sentinels` DA1 replies
    /// arrived or `deadline` (monotonic ms) passed. nil when there is no controlling terminal.
    static func askTerminal(_ query: [UInt8], sentinels: Int, deadline: Double) -> (TerminalAnswers, Bool)? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return ask(fd: fd, query, sentinels: sentinels, deadline: deadline)
    }

    /// ``askTerminal(_:sentinels:deadline:)`` on an open tty `fd` (tests pass a pty). The tty's
    /// settings are restored before it returns. nil when `fd` is not a tty.
    static func ask(fd: Int32, _ query: [UInt8], sentinels: Int, deadline: Double) -> (TerminalAnswers, Bool)? {
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ECHONL | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(fd, TCSANOW, &raw) == 0 else { return nil }
        defer { _ = tcsetattr(fd, TCSANOW, &saved) }
        var written = 0
        while written < query.count {
            let n = query[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return (TerminalAnswers(), false) }
            written += n
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var answers = TerminalAnswers()
        while true {
            let left = deadline - monotonicMilliseconds()
            // Out of time: what has arrived unread is dropped with the rest (a reply that comes
            // later still reaches the next reader: the deadline is the trade-off).
            if left <= 0 { tcflush(fd, TCIFLUSH); return (answers, false) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left.rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { tcflush(fd, TCIFLUSH); return (answers, false) }
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { return (answers, false) }
            buffer.append(contentsOf: chunk[0..<n])
            answers = TerminalAnswers.parse(buffer)
            if answers.deviceAttributes.count >= sentinels { return (answers, true) }
        }
    }

    /// The `tmux` command line ``askTmux(pane:deadline:)`` runs: `allow-passthrough` as it
    /// applies to `pane` (`TMUX_PANE`: a pane or window value set with `set -p` / `set -w`
    /// overrides the global one, which `show -gv` alone would report), then the client's
    /// features and terminal type. tmux 3.3 prints the flag as `1`/`0`, later ones
    /// `on`/`all`/`off`; one without the option prints nothing (passthrough off).
    static func tmuxArguments(pane: String?) -> [String] {
        var target: [String] = []
        if let pane, pane.count > 1, pane.hasPrefix("%"), pane.dropFirst().allSatisfy(\.isASCII), pane.dropFirst().allSatisfy(\.isNumber) {
            target = ["-t", pane]
        }
        return ["tmux", "display", "-p"] + target
            + ["#{allow-passthrough}", ";", "display", "-p", "#{client_termfeatures}|#{client_termtype}"]
    }

    /// Asks tmux (the server named by TMUX) for `allow-passthrough` in `pane` and the attached
    /// client's features and terminal type, in one `tmux` run bounded by `deadline`. nil when
    /// tmux is missing or does not answer in time.
    static func askTmux(pane: String?, deadline: Double) -> TerminalCapabilities.TmuxFacts? {
        let left = max(0, deadline - monotonicMilliseconds())
        // tmux before 3.3 has no allow-passthrough option (an empty line here): half blocks then.
        guard let result = POSIX.run(tmuxArguments(pane: pane), timeoutMilliseconds: Int(left) + 1), result.status == 0
        else { return nil }
        let text = String(decoding: result.output, as: UTF8.self)
        return parseTmux(text)
    }

    /// Parses the output of ``tmuxArguments(pane:)``'s commands: `allow-passthrough` (`1`/`0`
    /// from tmux 3.3, `on`/`all`/`off` from `show -gv` and later tmux), then `features|type`.
    public static func parseTmux(_ text: String) -> TerminalCapabilities.TmuxFacts {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let passthrough = ["on", "all", "1"].contains(lines.first?.trimmingCharacters(in: .whitespaces) ?? "")
        let second = lines.count > 1 ? lines[1] : ""
        let parts = second.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let features = (parts.first ?? "").split(separator: ",").map(String.init)
        let type = parts.count > 1 ? parts[1].filter { $0.isASCII && !$0.isNewline && $0 >= " " } : ""
        return .init(passthrough: passthrough, clientFeatures: features, clientTermType: type)
    }

    /// TIOCGWINSZ on `fd` (stdout by default), nil when it fails or reports no cells.
    public static func windowSize(fd: Int32 = 1) -> TerminalCapabilities.WindowSize? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return .init(
            columns: Int(size.ws_col), rows: Int(size.ws_row), pixelWidth: Int(size.ws_xpixel),
            pixelHeight: Int(size.ws_ypixel))
    }

    /// terminfo's `colors` and `RGB`/`Tc` flags for `term`, read with `setupterm` (no output;
    /// the entry is freed again), or nil for an unknown or empty TERM.
    static func terminfo(term: String) -> ColorSupport.Terminal? {
        guard !term.isEmpty else { return nil }
        // Keep whatever terminal ncurses already has current (a running Screen's) and put it back.
        let previous = set_curterm(nil)
        defer { if let mine = set_curterm(previous), mine != previous { del_curterm(mine) } }
        var error: Int32 = 0
        guard setupterm(term, -1, &error) == 0 else { return nil }
        let colors = "colors".withCString { Int(tigetnum(UnsafeMutablePointer(mutating: $0))) }
        let rgb = vt_tigetflag("RGB") > 0 || vt_tigetflag("Tc") > 0
        return .init(colors: max(0, colors), rgbFlag: rgb)
    }

    static func monotonicMilliseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
    }
}

/// Wraps escape sequences for terminal multiplexers.
public enum Passthrough {
    /// tmux's DCS passthrough: `ESC P tmux; <bytes with every ESC doubled> ESC \` (tmux(1),
    /// allow-passthrough). tmux strips the wrapper and the doubling and writes the bytes to the
    /// outer terminal as they are.
    public static func tmux(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array("\u{1B}Ptmux;".utf8)
        out.reserveCapacity(bytes.count + bytes.count / 8 + 16)
        for b in bytes {
            if b == 0x1B { out.append(0x1B) }
            out.append(b)
        }
        out.append(contentsOf: [0x1B, UInt8(ascii: "\\")])
        return out
    }
}
