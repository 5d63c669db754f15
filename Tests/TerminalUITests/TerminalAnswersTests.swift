import Testing

@testable import TerminalUI

/// Replies recorded from real terminals on this machine (Xvfb, 2026-12-01) with the queries of
/// `TerminalProbe.queries`.
enum Recorded {
    /// kitty 0.26.5: OSC 11, XTVERSION, kitty graphics OK, CSI 16 t, CSI 14 t, DA1.
    static let kitty = Array(
        "\u{1B}]11;rgb:0000/0000/0000\u{1B}\\\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;20;9t\u{1B}[4;400;639t\u{1B}[?62;c"
            .utf8)
    /// xterm 379 -ti vt340: no answer to CSI 16 t / 14 t (window ops are off by default).
    static let xtermVT340 = Array(
        "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;16;22;28c".utf8)
    /// xterm 379 as a VT420: DA1 without 4.
    static let xterm = Array(
        "\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\\u{1B}P>|XTerm(379)\u{1B}\\\u{1B}[?64;1;2;6;9;15;16;17;18;21;22;28c".utf8)
    /// tmux 3.3a in kitty, allow-passthrough on; wrapped kitty query, CSI 16 t and DA1, then XTVERSION and DA1:
    /// tmux's own XTVERSION and DA1 first, the outer terminal's replies 4 ms later.
    static let tmuxInKitty = Array(
        "\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;20;9t\u{1B}[?62;c".utf8)
    /// tmux 3.3a in xterm -ti vt340, passthrough on.
    static let tmuxInXterm = Array("\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c\u{1B}[?63;1;2;4;6;9;15;16;22;28c".utf8)
    /// tmux 3.3a, passthrough off: only tmux answers.
    static let tmuxAlone = Array("\u{1B}P>|tmux 3.3a\u{1B}\\\u{1B}[?1;2c".utf8)
}

@Suite("TerminalAnswers")
struct TerminalAnswersTests {
    @Test("kitty's replies: background, version, graphics OK, cell and area pixels, DA1")
    func kitty() {
        let a = TerminalAnswers.parse(Recorded.kitty)
        #expect(a.background?.r == 0 && a.background?.g == 0 && a.background?.b == 0)
        #expect(a.version == "kitty(0.26.5)")
        #expect(a.kittyGraphics == true)
        #expect(a.cellPixels?.width == 9 && a.cellPixels?.height == 20)
        #expect(a.textAreaPixels?.width == 639 && a.textAreaPixels?.height == 400)
        #expect(a.deviceAttributes == [[62, 0]])
        #expect(!a.sixel)
        #expect(a.unrecognizedBytes == 0)
    }

    @Test("xterm -ti vt340 lists attribute 4 (sixel); a VT420 xterm does not")
    func xterm() {
        let vt340 = TerminalAnswers.parse(Recorded.xtermVT340)
        #expect(vt340.sixel)
        #expect(vt340.kittyGraphics == nil)
        #expect(vt340.version == "XTerm(379)")
        #expect(vt340.background?.r == 255 && vt340.background?.b == 255)
        #expect(vt340.cellPixels == nil)
        let plain = TerminalAnswers.parse(Recorded.xterm)
        #expect(!plain.sixel)
        #expect(plain.deviceAttributes.count == 1)
    }

    @Test("tmux with passthrough: two DA1 replies, the outer terminal's kitty OK after tmux's own")
    func tmux() {
        let a = TerminalAnswers.parse(Recorded.tmuxInKitty)
        #expect(a.deviceAttributes == [[1, 2], [62, 0]])
        #expect(a.kittyGraphics == true)
        #expect(a.version == "tmux 3.3a")
        #expect(TerminalAnswers.parse(Recorded.tmuxInXterm).sixel)
        #expect(!TerminalAnswers.parse(Recorded.tmuxAlone).sixel)
    }

    @Test("no answer at all parses to nothing")
    func none() {
        #expect(TerminalAnswers.parse([]) == TerminalAnswers())
    }

    @Test("a split read: the cut-off reply waits for its end and is not counted as garbage")
    func splitReads() {
        for cut in 1..<Recorded.kitty.count {
            let first = TerminalAnswers.parse(Array(Recorded.kitty[..<cut]))
            #expect(first.deviceAttributes.isEmpty, "cut at \(cut)")
            #expect(first.unrecognizedBytes == 0, "cut at \(cut)")
        }
        #expect(TerminalAnswers.parse(Recorded.kitty).deviceAttributes.count == 1)
    }

    @Test("garbage and typed keys around the replies are skipped and counted, the replies still read")
    func garbage() {
        let noise: [UInt8] = Array("jk\u{1B}[A\u{1B}Oq".utf8) + [0x00, 0xFF, 0x9B, 0x1B, 0x1B]
        let a = TerminalAnswers.parse(noise + Recorded.xtermVT340 + Array("x".utf8))
        #expect(a.sixel)
        #expect(a.version == "XTerm(379)")
        #expect(a.unrecognizedBytes > 0)
        // A malformed OSC 11 colour and an oversized number do not crash or count as answers.
        let bad = TerminalAnswers.parse(
            Array("\u{1B}]11;rgb:zz/00/00\u{1B}\\\u{1B}[6;99999999999999999999;0t\u{1B}[?\u{1B}_Gx\u{1B}\\".utf8))
        #expect(bad.background == nil)
        #expect(bad.cellPixels == nil)
        #expect(bad.kittyGraphics == nil)
    }

    @Test("OSC 11 with BEL, 2 hex digits a channel, scales to 8 bits")
    func backgroundForms() {
        let a = TerminalAnswers.parse(Array("\u{1B}]11;rgb:80/ff/0\u{07}".utf8))
        #expect(a.background?.r == 128 && a.background?.g == 255 && a.background?.b == 0)
        let b = TerminalAnswers.parse(Array("\u{1B}]11;rgb:1e1e/2020/3030\u{1B}\\".utf8))
        #expect(b.background?.r == 30 && b.background?.g == 32 && b.background?.b == 48)
    }

    @Test("a kitty graphics error reply reads as no kitty graphics")
    func kittyError() {
        let a = TerminalAnswers.parse(Array("\u{1B}_Gi=31;EINVAL:bad\u{1B}\\\u{1B}[?62;c".utf8))
        #expect(a.kittyGraphics == false)
    }
}
