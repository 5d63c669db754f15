import Foundation
import HalfBlock
import Testing

@testable import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

@Suite("TerminalCapabilities")
struct TerminalCapabilitiesTests {
    typealias Facts = TerminalCapabilities.Facts
    let rgbTerminfo = ColorSupport.Terminal(colors: 256, rgbFlag: true)
    let terminfo256 = ColorSupport.Terminal(colors: 256, rgbFlag: false)

    func facts(
        _ env: [String: String], answers: [UInt8]?, complete: Bool = true, tmux: TerminalCapabilities.TmuxFacts? = nil,
        window: TerminalCapabilities.WindowSize? = .init(columns: 80, rows: 24), terminfo: ColorSupport.Terminal? = nil
    ) -> Facts {
        Facts(
            environment: env, isTerminal: true, terminfo: terminfo ?? terminfo256, windowSize: window,
            answers: answers.map(TerminalAnswers.parse), answersComplete: complete, tmux: tmux)
    }

    @Test("kitty: the graphics OK wins; cell size from CSI 16 t when TIOCGWINSZ has no pixels")
    func kitty() {
        let c = TerminalCapabilities.detect(facts(["TERM": "xterm-kitty", "COLORTERM": "truecolor"], answers: Recorded.kitty))
        #expect(c.pixels == .kitty)
        #expect(c.pixelsReason.contains("kitty graphics query"))
        #expect(c.colorMode == .truecolor)
        #expect(c.cellPixels?.width == 9 && c.cellPixels?.height == 20)
        #expect(c.cellReason.contains("CSI 16 t"))
        #expect(c.background == RGB(0, 0, 0))
        #expect(c.terminalName == "kitty(0.26.5)")
        #expect(!c.tmuxPassthrough)
    }

    @Test("TIOCGWINSZ pixels take precedence over the CSI answers")
    func winsizePixels() {
        let c = TerminalCapabilities.detect(
            facts([:], answers: Recorded.kitty, window: .init(columns: 100, rows: 50, pixelWidth: 1000, pixelHeight: 1100)))
        #expect(c.cellPixels?.width == 10 && c.cellPixels?.height == 22)
        #expect(c.cellReason.hasPrefix("TIOCGWINSZ"))
        #expect(c.cellAspect == 2.2)
    }

    @Test("xterm -ti vt340: sixel from DA1; the 256-colour terminfo gives 256 colours; white background")
    func xtermVT340() {
        let c = TerminalCapabilities.detect(facts(["TERM": "xterm-256color"], answers: Recorded.xtermVT340))
        #expect(c.pixels == .sixel)
        #expect(c.colorMode == .palette256)
        #expect(c.background == RGB(255, 255, 255))
        #expect(c.cellPixels == nil)
        #expect(c.cellAspect == 2.0)
    }

    @Test("plain xterm: half blocks, since nothing offers pixels; RGB terminfo gives truecolor")
    func plainXterm() {
        let c = TerminalCapabilities.detect(facts(["TERM": "xterm-direct"], answers: Recorded.xterm, terminfo: rgbTerminfo))
        #expect(c.pixels == .halfblock)
        #expect(c.colorMode == .truecolor)
        #expect(c.colorReason.contains("terminfo"))
    }

    @Test("a silent terminal: the environment decides (KITTY_WINDOW_ID), else half blocks")
    func silent() {
        let kittyEnv = TerminalCapabilities.detect(facts(["KITTY_WINDOW_ID": "1", "TERM": "xterm-kitty"], answers: [], complete: false))
        #expect(kittyEnv.pixels == .kitty)
        #expect(kittyEnv.pixelsReason.contains("no complete answer"))
        let nothing = TerminalCapabilities.detect(facts(["TERM": "vt100"], answers: [], complete: false))
        #expect(nothing.pixels == .halfblock)
        #expect(nothing.pixelsReason.contains("deadline"))
        #expect(nothing.background == nil)
    }

    @Test("complete answers overrule the environment: KITTY_WINDOW_ID inherited into xterm is ignored")
    func answersOverEnvironment() {
        let c = TerminalCapabilities.detect(facts(["KITTY_WINDOW_ID": "3", "TERM": "xterm"], answers: Recorded.xterm))
        #expect(c.pixels == .halfblock)
    }

    @Test("inside tmux with passthrough: the outer kitty answers; the name is tmux's client_termtype")
    func tmuxPassthroughOn() {
        let tmux = TerminalCapabilities.TmuxFacts(
            passthrough: true, clientFeatures: ["bpaste", "clipboard"], clientTermType: "kitty(0.26.5)")
        let c = TerminalCapabilities.detect(
            facts(["TMUX": "/tmp/tmux-0/x,1,0", "TERM": "tmux-256color"], answers: Recorded.tmuxInKitty, tmux: tmux))
        #expect(c.pixels == .kitty)
        #expect(c.tmuxPassthrough)
        #expect(c.pixelsReason.contains("tmux passthrough"))
        #expect(c.terminalName == "kitty(0.26.5)")
        #expect(c.colorMode == .palette256)
        let sixel = TerminalCapabilities.detect(
            facts(["TMUX": "x", "TERM": "tmux-256color"], answers: Recorded.tmuxInXterm, tmux: .init(passthrough: true)))
        #expect(sixel.pixels == .sixel)
    }

    @Test("inside tmux without passthrough: half blocks; truecolor from tmux's RGB client feature")
    func tmuxPassthroughOff() {
        let tmux = TerminalCapabilities.TmuxFacts(
            passthrough: false, clientFeatures: ["256", "RGB", "title"], clientTermType: "XTerm(379)")
        let c = TerminalCapabilities.detect(
            facts(["TMUX": "x", "TERM": "tmux-256color", "KITTY_WINDOW_ID": "1"], answers: Recorded.tmuxAlone, tmux: tmux))
        #expect(c.pixels == .halfblock)
        #expect(c.pixelsReason.contains("allow-passthrough is off"))
        #expect(!c.tmuxPassthrough)
        #expect(c.colorMode == .truecolor)
        #expect(c.colorReason.contains("RGB"))
        // tmux that could not be asked
        let unknown = TerminalCapabilities.detect(facts(["TMUX": "x"], answers: Recorded.tmuxAlone, tmux: nil))
        #expect(unknown.pixels == .halfblock)
        #expect(unknown.terminalName == nil)
    }

    @Test("--pixels forced inside tmux without passthrough: kept, with a hint that tmux drops it; none with passthrough, outside tmux, for half blocks or for sixel that tmux draws itself")
    func forcedPixelsInsideTmux() {
        let off = TerminalCapabilities.TmuxFacts(passthrough: false, clientFeatures: ["256", "RGB"], clientTermType: "kitty(0.26.5)")
        for (p, what) in [(PixelProtocol.kitty, "kitty graphics"), (.sixel, "sixel"), (.iterm, "iTerm2 images")] {
            var f = facts(["TMUX": "x", "TERM": "tmux-256color"], answers: Recorded.tmuxAlone, tmux: off)
            f.pixelOverride = p
            let c = TerminalCapabilities.detect(f)
            #expect(c.pixels == p && !c.tmuxPassthrough)
            #expect(c.pixelsHint == "tmux drops \(what) (set -g allow-passthrough on)")
            #expect(c.pixelsReason == "--pixels \(p); tmux's allow-passthrough is off: \(c.pixelsHint!)")
            // tmux that could not be asked: the same hint, the reason says so.
            f.tmux = nil
            let unasked = TerminalCapabilities.detect(f)
            #expect(unasked.pixelsHint == c.pixelsHint)
            #expect(unasked.pixelsReason == "--pixels \(p); tmux could not be asked for allow-passthrough: \(c.pixelsHint!)")
            // With passthrough: wrapped, nothing to say.
            f.tmux = .init(passthrough: true)
            let through = TerminalCapabilities.detect(f)
            #expect(through.tmuxPassthrough && through.pixelsHint == nil && through.pixelsReason == "--pixels \(p)")
            // Outside tmux.
            var plain = facts(["TERM": "xterm-256color"], answers: Recorded.tmuxAlone)
            plain.pixelOverride = p
            #expect(TerminalCapabilities.detect(plain).pixelsHint == nil)
        }
        // Forced half blocks, or auto (half blocks with its own reason): no hint.
        var half = facts(["TMUX": "x"], answers: Recorded.tmuxAlone, tmux: off)
        #expect(TerminalCapabilities.detect(half).pixelsHint == nil)
        half.pixelOverride = .halfblock
        #expect(TerminalCapabilities.detect(half).pixelsHint == nil)
        // tmux 3.4+ built with sixel lists it among the client's features and draws it itself.
        var sixel = facts(["TMUX": "x"], answers: Recorded.tmuxAlone, tmux: .init(passthrough: false, clientFeatures: ["RGB", "sixel"]))
        sixel.pixelOverride = .sixel
        #expect(TerminalCapabilities.detect(sixel).pixelsHint == nil)
        sixel.pixelOverride = .kitty
        #expect(TerminalCapabilities.detect(sixel).pixelsHint != nil)
    }

    @Test("overrides: --pixels and --colors win; NO_COLOR; output that is not a terminal gets half blocks")
    func overrides() {
        var f = facts(["NO_COLOR": "1", "COLORTERM": "truecolor"], answers: Recorded.kitty)
        #expect(TerminalCapabilities.detect(f).colorMode == .none)
        f.colorOverride = .palette16
        f.pixelOverride = .sixel
        let c = TerminalCapabilities.detect(f)
        #expect(c.colorMode == .palette16)
        #expect(c.pixels == .sixel)
        #expect(c.pixelsReason == "--pixels sixel")
        let piped = Facts(environment: ["KITTY_WINDOW_ID": "1"], isTerminal: false)
        #expect(TerminalCapabilities.detect(piped).pixels == .halfblock)
        var pipedForced = piped
        pipedForced.pixelOverride = .kitty
        #expect(TerminalCapabilities.detect(pipedForced).pixels == .kitty)
    }

    @Test("iTerm2 from XTVERSION or TERM_PROGRAM")
    func iterm() {
        let named = TerminalCapabilities.detect(facts([:], answers: Array("\u{1B}P>|iTerm2 3.5.0\u{1B}\\\u{1B}[?62;4c".utf8)))
        #expect(named.pixels == .sixel)  // sixel is answered first; iTerm2 3.5 does both
        let program = TerminalCapabilities.detect(facts(["TERM_PROGRAM": "iTerm.app"], answers: Array("\u{1B}[?62;22c".utf8)))
        #expect(program.pixels == .iterm)
        let wez = TerminalCapabilities.detect(facts([:], answers: Array("\u{1B}P>|WezTerm 20240203\u{1B}\\\u{1B}[?65;22c".utf8)))
        #expect(wez.pixels == .iterm)
    }

    @Test("the doctor report names each decision and its reason")
    func report() {
        let text = TerminalCapabilities.detect(facts(["COLORTERM": "24bit"], answers: Recorded.kitty)).report
        #expect(text.contains("pixels: kitty (the terminal answered the kitty graphics query with OK)"))
        #expect(text.contains("colors: truecolor (COLORTERM=24bit)"))
        #expect(text.contains("cell: 9x20 pixels"))
        #expect(text.contains("background: 0,0,0 (OSC 11)"))
    }

    @Test("tmux's answer: passthrough on/all/off, features and the client's terminal type")
    func parseTmux() {
        let on = TerminalProbe.parseTmux("on\nbpaste,ccolour,clipboard|kitty(0.26.5)\n")
        #expect(on.passthrough && on.clientFeatures == ["bpaste", "ccolour", "clipboard"] && on.clientTermType == "kitty(0.26.5)")
        #expect(TerminalProbe.parseTmux("all\n|\n").passthrough)
        let off = TerminalProbe.parseTmux("off\n256,RGB|XTerm(379)\n")
        #expect(!off.passthrough && off.clientFeatures.contains("RGB"))
        #expect(TerminalProbe.parseTmux("").passthrough == false)
        // tmux 3.3's `display -p '#{allow-passthrough}'` prints the flag as 1 or 0
        #expect(TerminalProbe.parseTmux("1\n|\n").passthrough)
        #expect(!TerminalProbe.parseTmux("0\n|\n").passthrough)
    }

    @Test("tmux is asked for allow-passthrough as it applies to this pane (set -w / set -p override the global value)")
    func tmuxArguments() {
        let asked = TerminalProbe.tmuxArguments(pane: "%12")
        #expect(asked.starts(with: ["tmux", "display", "-p", "-t", "%12", "#{allow-passthrough}", ";"]))
        #expect(!asked.contains("show") && !asked.contains("-gv"), "the global value alone misses a window's or pane's")
        #expect(asked.last == "#{client_termfeatures}|#{client_termtype}")
        // No TMUX_PANE, or one that is not a pane id: tmux's current pane
        for pane in [nil, "", "%", "%1;kill-server", "12", "%\u{0661}"] as [String?] {
            #expect(Array(TerminalProbe.tmuxArguments(pane: pane).prefix(4)) == ["tmux", "display", "-p", "#{allow-passthrough}"])
        }
    }

    @Test("the queries end with DA1; with tmux passthrough the outer ones are wrapped with ESC doubled")
    func queries() {
        let plain = TerminalProbe.queries(tmuxPassthrough: false)
        #expect(plain.sentinels == 1)
        #expect(plain.bytes.suffix(3) == Array("\u{1B}[c".utf8))
        let wrapped = TerminalProbe.queries(tmuxPassthrough: true)
        #expect(wrapped.sentinels == 2)
        #expect(wrapped.bytes.starts(with: Array("\u{1B}Ptmux;\u{1B}\u{1B}]11;?".utf8)))
        #expect(Passthrough.tmux([0x1B, 0x41]) == Array("\u{1B}Ptmux;\u{1B}\u{1B}A\u{1B}\\".utf8))
    }
}

/// The probe's I/O against a pseudo-terminal: the test plays the terminal on the master side.
@Suite("TerminalProbe on a pty", .serialized)
struct TerminalProbeTests {
    func openPTY() -> (master: Int32, slave: Int32) {
        var master: Int32 = -1, slave: Int32 = -1
        #expect(openpty(&master, &slave, nil, nil, nil) == 0)
        return (master, slave)
    }

    /// Reads what the probe wrote on `master` until the DA1 query, then answers `reply` in
    /// `pieces` writes a few ms apart.
    func playTerminal(master: Int32, reply: [UInt8], pieces: Int) -> Thread {
        let thread = Thread {
            var seen: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 1024)
            while !seen.suffix(3).elementsEqual(Array("\u{1B}[c".utf8)) {
                let n = read(master, &buf, buf.count)
                if n <= 0 { return }
                seen += buf[0..<n]
            }
            let size = max(1, reply.count / pieces)
            var i = 0
            while i < reply.count {
                let part = Array(reply[i..<min(reply.count, i + size)])
                _ = part.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
                i += size
                usleep(3000)
            }
        }
        thread.start()
        return thread
    }

    @Test("answers split over several reads are all read; the DA1 reply ends the wait early")
    func splitAnswers() {
        let (master, slave) = openPTY()
        defer { close(master); close(slave) }
        _ = playTerminal(master: master, reply: Recorded.kitty, pieces: 5)
        let start = TerminalProbe.monotonicMilliseconds()
        let result = TerminalProbe.ask(
            fd: slave, TerminalProbe.queries(tmuxPassthrough: false).bytes, sentinels: 1, deadline: start + 30_000)
        let elapsed = TerminalProbe.monotonicMilliseconds() - start
        #expect(result?.1 == true)
        #expect(result?.0.kittyGraphics == true)
        #expect(result?.0.version == "kitty(0.26.5)")
        // The deadline is far beyond any scheduling delay, so only an early return passes.
        #expect(elapsed < 15_000, "returned at the DA1 reply, not at the 30 s deadline")
    }

    @Test("a terminal that answers nothing costs the deadline, not more; the tty's settings come back")
    func silentTerminal() {
        let (master, slave) = openPTY()
        defer { close(master); close(slave) }
        var before = termios()
        tcgetattr(slave, &before)
        let start = TerminalProbe.monotonicMilliseconds()
        let result = TerminalProbe.ask(fd: slave, Array("\u{1B}[c".utf8), sentinels: 1, deadline: start + 100)
        let elapsed = TerminalProbe.monotonicMilliseconds() - start
        #expect(result?.1 == false)
        #expect(result?.0.deviceAttributes.isEmpty == true)
        // Not before the deadline; the ceiling is loose (a loaded machine delays the wake-up)
        // but still catches a second wait or a blocking read after the deadline.
        #expect(elapsed >= 95 && elapsed < 1_500)
        var after = termios()
        tcgetattr(slave, &after)
        #expect(after.c_lflag == before.c_lflag)
        #expect(before.c_lflag & tcflag_t(ECHO) != 0)
    }

    @Test("keys typed during the probe are consumed with the replies: nothing is left to read")
    func nothingLeaks() {
        let (master, slave) = openPTY()
        defer { close(master); close(slave) }
        _ = playTerminal(master: master, reply: Array("jj".utf8) + Recorded.xtermVT340, pieces: 2)
        let start = TerminalProbe.monotonicMilliseconds()
        let result = TerminalProbe.ask(fd: slave, Array("\u{1B}[c".utf8), sentinels: 1, deadline: start + 2000)
        #expect(result?.0.sixel == true)
        var pfd = pollfd(fd: slave, events: Int16(POLLIN), revents: 0)
        #expect(poll(&pfd, 1, 50) == 0, "no reply byte is left for the key queue")
    }
}
