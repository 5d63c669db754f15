import Testing
@testable import Gallery

@Suite("DisplayText")
struct DisplayTextTests {
    @Test("removes CSI colour and cursor sequences whole")
    func csiSequences() {
        // Given a title with SGR colour, a cursor move and a screen clear
        let raw = "\u{1B}[31mRed\u{1B}[0m \u{1B}[2J\u{1B}[10;20HDone"
        // When it is sanitized
        let clean = DisplayText.sanitize(raw)
        // Then no escape or parameter bytes survive
        #expect(clean == "Red Done")
    }

    @Test("removes OSC title sequences ended by BEL or ST, and C1 CSI")
    func oscAndC1() {
        // Given an OSC 0 (window title) ended by BEL, an OSC 8 hyperlink ended by ST, a C1 CSI
        let raw = "a\u{1B}]0;pwned\u{07}b\u{1B}]8;;http://127.0.0.1/\u{1B}\\c\u{9B}1mD"
        // When it is sanitized
        // Then only the visible text is left
        #expect(DisplayText.sanitize(raw) == "abcD")
    }

    @Test("removes lone control characters, DEL and C1 controls")
    func controls() {
        // Given NUL, BEL, backspace, DEL and a C1 control inside a word
        let raw = "f\u{00}i\u{07}l\u{08}e\u{7F}\u{85}name"
        // When it is sanitized (NEL U+0085 is a line break: a space)
        // Then the controls are gone
        #expect(DisplayText.sanitize(raw) == "file name")
    }

    @Test("removes bidi overrides, isolates and marks")
    func bidi() {
        // Given the classic RLO spoof "invoice‮gpj.exe" and isolates and marks
        let raw = "invoice\u{202E}gpj.exe \u{2066}x\u{2069}\u{200F}"
        // When it is sanitized
        // Then it reads in logical order, with nothing hidden
        #expect(DisplayText.sanitize(raw) == "invoicegpj.exe x")
    }

    @Test("removes zero-width spaces, BOM, soft hyphen and word joiners")
    func zeroWidth() {
        // Given invisible characters that make two different strings look the same
        let raw = "pay\u{200B}pal\u{FEFF}\u{00AD}\u{2060}.com"
        // When it is sanitized
        #expect(DisplayText.sanitize(raw) == "paypal.com")
    }

    @Test("collapses whitespace runs to one space and trims")
    func whitespace() {
        // Given tabs, CR LF, a line separator and NBSP between words, and padding
        let raw = "  \tLady\r\n\nBird\u{2028}on\u{00A0}\u{00A0}a leaf \n"
        // When it is sanitized
        #expect(DisplayText.sanitize(raw) == "Lady Bird on a leaf")
    }

    @Test("keeps CJK, emoji with ZWJ and skin tones, accents, and tag flags")
    func keepsText() {
        // Given text a user expects to see as written
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"
        let scotland = "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
        let raw = "東京タワー \(family) 👍🏽 Crème brûlée \(scotland) 한국어"
        // When it is sanitized
        // Then nothing changes
        #expect(DisplayText.sanitize(raw) == raw)
    }

    @Test("drops tag characters outside an emoji flag")
    func smuggledTags() {
        // Given "hi" followed by the tag-encoded letters "ab" (invisible "ASCII smuggling")
        let raw = "hi\u{E0061}\u{E0062}"
        #expect(DisplayText.sanitize(raw) == "hi")
    }

    @Test("caps runs of combining marks at eight")
    func zalgo() {
        // Given a letter with twenty combining acute accents
        let raw = "e" + String(repeating: "\u{0301}", count: 20) + "x"
        // When it is sanitized
        let clean = DisplayText.sanitize(raw)
        // Then eight marks remain on the letter
        #expect(clean.unicodeScalars.count == 1 + 8 + 1)
        #expect(clean.hasSuffix("x"))
    }

    @Test("an escape-only string becomes empty")
    func onlyEscapes() {
        #expect(DisplayText.sanitize("\u{1B}[1m\u{1B}[0m \t") == "")
    }

    @Test("joiners between combining marks do not restart the count")
    func zalgoWithJoiners() {
        // Given eight marks, then ZWNJ and ZWJ each followed by eight more marks
        let marks = String(repeating: "\u{0301}", count: 8)
        let raw = "e" + marks + "\u{200C}" + marks + "\u{200D}" + marks + "x"
        // When it is sanitized
        let clean = DisplayText.sanitize(raw)
        // Then the letter still carries eight marks, and the joiners are gone with the excess
        #expect(Array(clean.unicodeScalars) == Array(("e" + marks + "x").unicodeScalars))
    }

    @Test("an emoji ZWJ sequence with a variation selector is kept")
    func emojiJoinerKept() {
        let flag = "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}"
        #expect(DisplayText.sanitize(flag + flag) == flag + flag)
    }

    @Test("messages keep line breaks and spaces, and lose escapes, C1 and bidi controls")
    func messages() {
        // Given a two-line message with a caret, quoting a hostile Location: OSC 0, CSI 2J,
        // OSC 52, C1 CSI and OSC sent as UTF-8, DEL, a tab, CR and an RLO
        let raw = "unsupported URL: redirect to gopher://h/\u{1B}]0;PWNED\u{07}\u{1B}[2J"
            + "\u{1B}]52;c;UFdORUQ=\u{07}\u{9B}2J\u{9D}0;PWNED\u{9C}x\u{7F}\ty\rz\u{202E}\n    ^"
        // When it is sanitized as a message
        let clean = DisplayText.sanitizeMessage(raw)
        // Then the text and layout are left and nothing a terminal would interpret
        #expect(clean == "unsupported URL: redirect to gopher://h/x y z\n    ^")
    }

    @Test("a plain message comes back as it is")
    func plainMessage() {
        let raw = "--items '.a[': expected ']'\n          ^"
        #expect(DisplayText.sanitizeMessage(raw) == raw)
    }
}
