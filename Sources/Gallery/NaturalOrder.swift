/// Natural ("version") order for file names and titles: runs of digits compare by their value,
/// so `img2` sorts before `img10`, the rest compares case-insensitively (then exactly, so the
/// order is total). The order `ls -v`, nsxiv and most file managers show.
public enum NaturalOrder {
    /// True when `a` sorts before `b`.
    public static func less(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }

    /// -1, 0 or 1, as `a` sorts before, with or after `b`.
    public static func compare(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                // Compare the digit runs by value: skip leading zeros, then length, then digits.
                var ei = i, ej = j
                while ei < x.count && isDigit(x[ei]) { ei += 1 }
                while ej < y.count && isDigit(y[ej]) { ej += 1 }
                var si = i, sj = j
                while si < ei - 1 && x[si] == "0" { si += 1 }
                while sj < ej - 1 && y[sj] == "0" { sj += 1 }
                if ei - si != ej - sj { return ei - si < ej - sj ? -1 : 1 }
                for k in 0..<(ei - si) where x[si + k] != y[sj + k] {
                    return x[si + k].value < y[sj + k].value ? -1 : 1
                }
                i = ei
                j = ej
                continue
            }
            let cx = folded(x[i]), cy = folded(y[j])
            if cx != cy { return cx < cy ? -1 : 1 }
            i += 1
            j += 1
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j ? -1 : 1 }
        // Equal but for case or leading zeros: the exact text decides.
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 48 && s.value <= 57 }

    /// ASCII letters folded to lower case; other scalars as they are.
    private static func folded(_ s: Unicode.Scalar) -> UInt32 {
        (s.value >= 65 && s.value <= 90) ? s.value + 32 : s.value
    }
}
