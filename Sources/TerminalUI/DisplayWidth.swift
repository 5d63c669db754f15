import CNcursesw

/// Terminal column widths of text, and the last line of defence against control characters.
///
/// Widths come from the C library's `wcwidth` (Unicode East Asian Width in a UTF-8 locale):
/// CJK ideographs and most emoji take 2 columns, combining marks 0.
public enum DisplayWidth {
    /// True for scalars that must never reach the terminal: C0 and C1 controls (ESC above all),
    /// DEL, and bidi overrides/isolates (U+202A-202E, U+2066-2069), which reorder what follows.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C
    }

    /// True for scalars that make a terminal draw several characters as one glyph: the zero-width
    /// joiner (U+200D, in emoji sequences like 🏳️‍🌈) and the text/emoji variation selectors
    /// (U+FE0E, U+FE0F). ncurses counts columns scalar by scalar (`wcwidth`), while a terminal
    /// that joins the sequence draws fewer columns, so its screen and ncurses's copy disagree and
    /// old characters stay behind after a redraw. Dropped when drawing: the sequence then shows
    /// as its parts (🏳🌈), in the columns ncurses expects.
    public static func joinsGlyphs(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200D || scalar.value == 0xFE0E || scalar.value == 0xFE0F
    }

    /// Columns that `scalar` occupies: 0, 1 or 2. Unsafe and unprintable scalars count as 0
    /// (they are dropped when drawing).
    public static func width(_ scalar: Unicode.Scalar) -> Int {
        if isUnsafe(scalar) { return 0 }
        if scalar.value < 0x7F { return 1 }
        let w = Int(vt_wcwidth(scalar.value))
        return w < 0 ? 0 : w
    }

    /// Columns that `text` occupies once drawn.
    public static func width(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width($1) }
    }

    /// The scalars of `text` that are safe to draw and fit in `columns`, cutting at a scalar
    /// boundary (a wide character that would straddle the edge is left out) and ending with
    /// "…" when something was cut. Returns the scalars and the columns they use.
    public static func fit(_ text: String, columns: Int) -> (scalars: [Unicode.Scalar], width: Int) {
        guard columns > 0, !text.isEmpty else { return ([], 0) }
        // One pass: each safe scalar with its width (printable ASCII without asking wcwidth).
        var safe: [(scalar: Unicode.Scalar, width: Int)] = []
        var total = 0
        for scalar in text.unicodeScalars {
            let w: Int
            if scalar.value >= 0x20 && scalar.value < 0x7F {
                w = 1
            } else {
                w = width(scalar)
                guard !isUnsafe(scalar), !joinsGlyphs(scalar), w > 0 || scalar.value >= 0x300 else { continue }
            }
            safe.append((scalar, w))
            total += w
        }
        var out: [Unicode.Scalar] = []
        out.reserveCapacity(safe.count + 1)
        var used = 0
        let budget = total > columns ? columns - 1 : columns
        for (scalar, w) in safe {
            if used + w > budget { break }
            out.append(scalar)
            used += w
        }
        if total > columns {
            out.append("…")
            used += 1
        }
        return (out, used)
    }
}
