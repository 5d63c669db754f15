import HalfBlock
import Testing

@testable import TerminalUI

@Suite("DisplayWidth")
struct DisplayWidthTests {
    init() { _ = setlocaleUTF8 }

    @Test("control characters never reach the terminal")
    func dropsControls() {
        let (scalars, width) = DisplayWidth.fit("\u{1B}[31mRED\u{1B}]0;pwned\u{07}\u{9B}x\u{202E}y", columns: 80)
        let text = String(String.UnicodeScalarView(scalars))
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(text == "[31mRED]0;pwnedxy")
        #expect(width == 17)
    }

    @Test("wide characters count two columns and are never split")
    func wideCharacters() {
        #expect(DisplayWidth.width("日本 Japan") == 10)
        let (scalars, width) = DisplayWidth.fit("日本語のタイトル", columns: 6)
        #expect(width <= 6)
        #expect(String(String.UnicodeScalarView(scalars)) == "日本…")
    }

    @Test("joiners and variation selectors are dropped: an emoji sequence shows as its parts")
    func dropsJoiners() {
        // Given the rainbow flag: white flag, VS16, zero-width joiner, rainbow
        let (scalars, width) = DisplayWidth.fit("a\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}b\u{FE0E}", columns: 80)
        // Then only the flag and the rainbow remain, in the columns wcwidth gives them
        #expect(scalars.map(\.value) == [0x61, 0x1F3F3, 0x1F308, 0x62])
        #expect(width == 2 + DisplayWidth.width("\u{1F3F3}") + DisplayWidth.width("\u{1F308}"))
    }

    @Test("an overlong title ends with an ellipsis within the width")
    func truncates() {
        let (scalars, width) = DisplayWidth.fit("abcdefghij", columns: 5)
        #expect(String(String.UnicodeScalarView(scalars)) == "abcd…")
        #expect(width == 5)
    }
}

/// wcwidth needs a UTF-8 locale.
private let setlocaleUTF8: Void = {
    #if canImport(Glibc)
    _ = Glibc.setlocale(LC_ALL, "C.UTF-8")
    #endif
}()

#if canImport(Glibc)
import Glibc
#endif

@Suite("ColorSupport")
struct ColorSupportTests {
    @Test("truecolor from the RGB flag or a direct-colour entry; 256 otherwise")
    func detection() {
        let direct = ColorSupport.Terminal(colors: 1 << 24, rgbFlag: true)
        let xterm256 = ColorSupport.Terminal(colors: 256, rgbFlag: false)
        let linux = ColorSupport.Terminal(colors: 8, rgbFlag: false)
        let vt100 = ColorSupport.Terminal(colors: 0, rgbFlag: false)
        #expect(ColorSupport.mode(terminal: direct, environment: [:]) == .truecolor)
        #expect(ColorSupport.mode(terminal: xterm256, environment: [:]) == .palette256)
        #expect(ColorSupport.mode(terminal: linux, environment: [:]) == .palette16)
        #expect(ColorSupport.mode(terminal: vt100, environment: [:]) == .none)
    }

    @Test("NO_COLOR wins unless --colors is given; --colors is clamped to what exists")
    func overrides() {
        let xterm256 = ColorSupport.Terminal(colors: 256, rgbFlag: false)
        #expect(ColorSupport.mode(terminal: xterm256, environment: ["NO_COLOR": "1"]) == .none)
        #expect(ColorSupport.mode(terminal: xterm256, environment: ["NO_COLOR": ""]) == .palette256)
        #expect(ColorSupport.mode(terminal: xterm256, environment: ["NO_COLOR": "1"], override: .palette16) == .palette16)
        #expect(ColorSupport.mode(terminal: xterm256, environment: [:], override: .truecolor) == .palette256)
    }

    @Test("COLORTERM=truecolor asks for the -direct terminfo variant")
    func directVariant() {
        #expect(ColorSupport.directVariant(term: "xterm-256color", environment: ["COLORTERM": "truecolor"]) == "xterm-direct")
        #expect(ColorSupport.directVariant(term: "tmux-256color", environment: ["COLORTERM": "24bit"]) == "tmux-direct")
        #expect(ColorSupport.directVariant(term: "xterm-256color", environment: [:]) == nil)
        #expect(ColorSupport.directVariant(term: "xterm-direct", environment: ["COLORTERM": "truecolor"]) == nil)
    }
}
