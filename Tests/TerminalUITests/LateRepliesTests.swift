import Testing

@testable import TerminalUI

/// Terminal replies that come after the probe's deadline never become keys.
struct LateRepliesTests {
    private func codes(_ text: String) -> [LateReplies.Code] { text.unicodeScalars.map { ($0.value, false) } }
    private func text(_ codes: [LateReplies.Code]) -> String {
        String(String.UnicodeScalarView(codes.compactMap { Unicode.Scalar($0.code) }))
    }

    @Test("device attributes, window size, XTVERSION, kitty and OSC 11 replies are dropped, keys around them kept")
    func dropsReplies() {
        let batch = "j\u{1B}[?1;2c\u{1B}[>41;379;0ck\u{1B}[6;20;10t\u{1B}P>|xterm(379)\u{1B}\\"
            + "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}]11;rgb:0000/0000/0000\u{07}\u{1B}]11;rgb:ffff/ffff/ffff\u{1B}\\l"
        #expect(text(LateReplies.strip(codes(batch))) == "jkl")
    }

    @Test("a real Escape, Escape followed by keys, and an unterminated string stay keys")
    func keepsKeys() {
        for batch in ["\u{1B}", "\u{1B}q", "\u{1B}[", "\u{1B}[c", "\u{1B}[?c", "\u{1B}[1;2x", "\u{1B}_Gi=1;OK", "\u{1B}]11;rgb"] {
            #expect(text(LateReplies.strip(codes(batch))) == batch)
        }
    }

    @Test("a key code inside a string breaks it: nothing is dropped")
    func keyCodeBreaksAString() {
        var batch = codes("\u{1B}P>|xterm")
        batch.append((0o403, true))  // KEY_DOWN
        batch += codes("\u{1B}\\")
        #expect(LateReplies.strip(batch).count == batch.count)
    }

    @Test("indices kept are those outside the reply")
    func keptIndices() {
        #expect(LateReplies.kept(codes("a\u{1B}[?62;4cb")) == [0, 9])
    }

    @Test("focus reports that come as plain codes (ESC [ I, ESC [ O) are focus events, never keys")
    func focusReports() {
        let batch = codes("j\u{1B}[Ik\u{1B}[O\u{1B}[?1;2c\u{1B}[Il")
        #expect(LateReplies.scan(batch) == [.code(0), .focus(true), .code(4), .focus(false), .focus(true), .code(18)])
        #expect(text(LateReplies.strip(batch)) == "jkl")
        // Other CSI finals, a cut report and a key code in the middle stay as they came.
        for kept in ["\u{1B}[", "\u{1B}[Z", "\u{1B}[i", "\u{1B}O", "\u{1B}[1I"] {
            #expect(text(LateReplies.strip(codes(kept))) == kept)
            #expect(!LateReplies.scan(codes(kept)).contains(.focus(true)))
        }
        var broken = codes("\u{1B}[")
        broken.append((0o403, true))
        broken += codes("I")
        #expect(LateReplies.scan(broken) == [.code(0), .code(1), .code(2), .code(3)])
    }
}
