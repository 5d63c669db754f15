/// Makes untrusted text (titles, file names from a gallery) safe to draw in a terminal.
///
/// Gallery text comes from strangers. Written raw, an ESC sequence could recolour, move the
/// cursor, set the window title or worse; a bidi override could make `gpj.exe` read as
/// `exe.jpg`; a newline would break the one-row layout.
public enum DisplayText {
    /// Returns `s` with everything a terminal would interpret removed and whitespace tidied.
    ///
    /// - Removes whole escape sequences (ESC or the C1 CSI/OSC/DCS introducers with their
    ///   parameters and terminators), then every remaining C0 and C1 control character and DEL.
    /// - Removes bidi embeddings, overrides, isolates and marks (U+202A–202E, U+2066–2069,
    ///   U+200E, U+200F, U+061C) and invisible format characters that can hide or spoof text
    ///   (U+200B, U+2060–2064, U+206A–206F, U+FEFF, U+00AD, U+180E, U+FFF9–FFFB, and tag
    ///   characters outside an emoji flag sequence).
    /// - Keeps ZWJ / ZWNJ (emoji sequences, Persian, Indic scripts), CJK, emoji and combining
    ///   marks, but at most 8 combining marks in a row ("Zalgo" text spills over rows); a ZWNJ
    ///   or ZWJ after a mark counts toward that run instead of starting a new one.
    /// - Turns every run of whitespace (tabs, newlines, U+2028, NBSP, ...) into one space and
    ///   trims both ends.
    public static func sanitize(_ s: String) -> String {
        if isPlainASCII(s) { return s }
        return clean(s, keepingLayout: false)
    }

    /// Returns `s`, a message for stdout or stderr that may quote untrusted text (a server's
    /// `Location`, a gallery's next link, a file name, a libvips hint), with the same things
    /// removed as ``sanitize(_:)`` but its layout kept: line feeds stay line breaks and spaces
    /// stay as they are (a caret under an expression still points at its column); every other
    /// whitespace control (tab, CR, VT, FF, NEL, U+2028/2029) becomes one space.
    ///
    /// This is the one filter at Vitrine's output boundary: everything printed by `vitrine`
    /// (errors, `list` rows, `cache` lines, progress notes) goes through it or ``sanitize(_:)``.
    public static func sanitizeMessage(_ s: String) -> String {
        var plain = true
        for byte in s.utf8 where !((0x20...0x7E).contains(byte) || byte == 0x0A) {
            plain = false
            break
        }
        return plain ? s : clean(s, keepingLayout: true)
    }

    /// The shared filter of ``sanitize(_:)`` and ``sanitizeMessage(_:)``.
    private static func clean(_ s: String, keepingLayout: Bool) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        var marksInRow = 0
        var scalars = s.unicodeScalars.makeIterator()
        var lookahead: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let l = lookahead { lookahead = nil; return l }
            return scalars.next()
        }
        while let c = next() {
            let v = c.value
            if v == 0x1B || v == 0x9B || v == 0x90 || v == 0x9D || v == 0x9E || v == 0x9F || v == 0x98 {
                lookahead = skipEscape(introducer: c, next: next)
                continue
            }
            if keepingLayout {
                if v == 0x0A || v == 0x20 {
                    out.append(c)
                    marksInRow = 0
                    continue
                }
                if c.properties.isWhitespace || v == 0x85 {
                    out.append(" ")
                    marksInRow = 0
                    continue
                }
            } else if c.properties.isWhitespace || v == 0x85 {
                pendingSpace = true
                continue
            }
            if isHidden(c, after: out.last) { continue }
            let isMark = c.properties.generalCategory == .nonspacingMark
                || c.properties.generalCategory == .enclosingMark
            // Joiners (ZWNJ, ZWJ) between marks neither end the run of marks nor escape its
            // limit: "a" + 8 marks + ZWNJ + 8 marks is still one tower of 16.
            let isJoiner = v == 0x200C || v == 0x200D
            if isMark || (isJoiner && marksInRow > 0) {
                marksInRow += 1
                if marksInRow > maxMarksInRow { continue }
            } else {
                marksInRow = 0
            }
            if pendingSpace, !out.isEmpty { out.append(" ") }
            pendingSpace = false
            out.append(c)
        }
        return String(out)
    }

    /// Combining marks (and joiners among them) kept in a row; the rest are dropped.
    static let maxMarksInRow = 8

    /// Printable ASCII with single inner spaces and none at the ends: nothing to do.
    private static func isPlainASCII(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            var previous: UInt8 = 0x20
            for byte in bytes {
                guard (0x20...0x7E).contains(byte), !(byte == 0x20 && previous == 0x20) else { return false }
                previous = byte
            }
            return previous != 0x20
        }
    }

    /// Consumes the rest of an escape sequence whose introducer was just read, and returns
    /// the first scalar after it that was read ahead (or nil).
    private static func skipEscape(
        introducer: Unicode.Scalar, next: () -> Unicode.Scalar?
    ) -> Unicode.Scalar? {
        var kind = introducer.value
        if kind == 0x1B {
            guard let second = next() else { return nil }
            switch second.value {
            case 0x5B: kind = 0x9B                      // ESC [  = CSI
            case 0x5D: kind = 0x9D                      // ESC ]  = OSC
            case 0x50: kind = 0x90                      // ESC P  = DCS
            case 0x58, 0x5E, 0x5F: kind = 0x98          // SOS, PM, APC
            case 0x20...0x2F:                           // nF: intermediates, then a final byte
                while let c = next() {
                    if !(0x20...0x2F).contains(c.value) { return (0x30...0x7E).contains(c.value) ? nil : c }
                }
                return nil
            case 0x30...0x7E: return nil                // two-character sequence (ESC c, ESC 7)
            default: return second                      // lone ESC: keep what follows
            }
        }
        if kind == 0x9B {
            // CSI: parameters 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
            while let c = next() {
                if (0x20...0x3F).contains(c.value) { continue }
                return (0x40...0x7E).contains(c.value) ? nil : c
            }
            return nil
        }
        // String sequences (OSC, DCS, SOS, PM, APC) run to BEL, ST (ESC \) or U+009C.
        while let c = next() {
            if c.value == 0x07 || c.value == 0x9C { return nil }
            if c.value == 0x1B {
                guard let after = next() else { return nil }
                return after.value == 0x5C ? nil : after
            }
        }
        return nil
    }

    /// Control, bidi and invisible format characters. Tag characters survive only inside an
    /// emoji tag sequence (the flags of Scotland, Wales, England start with U+1F3F4).
    private static func isHidden(_ c: Unicode.Scalar, after previous: Unicode.Scalar?) -> Bool {
        switch c.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        case 0x200B, 0x2060...0x2064, 0x206A...0x206F, 0xFEFF, 0x00AD, 0x180E, 0xFFF9...0xFFFB: return true
        case 0xE0000...0xE007F:
            guard let p = previous?.value else { return true }
            return !(p == 0x1F3F4 || (0xE0020...0xE007E).contains(p))
        default: return false
        }
    }
}
