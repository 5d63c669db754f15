extension DisplayText {
    /// Titles longer than this many terminal columns are cut (``truncated(_:columns:)``). A
    /// title is shown on one row; a 100 KB "title" would only cost memory and drawing time.
    public static let maxTitleColumns = 200

    /// `s` cut to at most `columns` terminal columns, ending in "…" when something was cut.
    ///
    /// Cuts fall between characters (grapheme clusters), so a wide character, an emoji
    /// sequence or a letter with its accents is never split. Widths are estimated without the C
    /// library (this module stays free of it): East Asian wide and fullwidth characters and
    /// emoji presentation count 2, combining marks and joiners 0, everything else 1. The
    /// terminal layer measures again with `wcwidth` when it draws.
    public static func truncated(_ s: String, columns: Int = maxTitleColumns) -> String {
        guard columns > 0 else { return "" }
        // No character is wider than its UTF-8 bytes (wide ones take 3 or 4), so short text
        // needs no measuring.
        if s.utf8.count <= columns { return s }
        var used = 0
        var cut: String.Index?
        for index in s.indices {
            let w = width(of: s[index])
            if cut == nil, used + w > columns - 1 { cut = index }
            used += w
            if used > columns, let cut { return String(s[..<cut]) + "…" }
        }
        return s
    }

    /// Estimated columns of one character: the widest of its scalars (0, 1 or 2).
    static func width(of character: Character) -> Int {
        var widest = 0
        for scalar in character.unicodeScalars {
            widest = max(widest, width(of: scalar))
            if widest == 2 { break }
        }
        return widest
    }

    /// 0 for combining marks, joiners and other format characters; 2 for wide ranges; else 1.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x300 { return v < 0x20 || (0x7F...0x9F).contains(v) ? 0 : 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        switch v {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
             0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
             0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }
}
