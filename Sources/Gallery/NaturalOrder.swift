/// Sort keys in natural order, as file managers sort names: case folded, and each run of
/// digits compared by its value, so `img2` comes before `img10` (ranger's and lf's `natural`
/// sort, the "version sort" of GNU `ls -v`).
///
/// The key is bytes compared with `memcmp`-style lexicographic order: the UTF-8 of the
/// lower-cased text with every digit run replaced by one byte holding its length (leading
/// zeros dropped, 1-31) followed by its digits. A shorter number then sorts first, numbers of
/// the same length by their digits, and a number before a letter (bytes 1-31 sort before
/// every printable byte). Precomputed once per item, so a sort of 100,000 items compares
/// bytes, never `String`s.
public enum NaturalOrder {
    /// The natural-order key of `text`.
    public static func key(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 4)
        append(text, to: &out)
        return out
    }

    /// Appends the natural-order key of `text` to `out`, for keys kept in one buffer (ASCII
    /// text is folded byte by byte, other text through `lowercased()`).
    public static func append(_ text: String, to out: inout [UInt8]) {
        let ascii = text.utf8.allSatisfy { $0 < 0x80 }
        if ascii {
            append(bytes: text.utf8, to: &out, fold: true)
        } else {
            append(bytes: text.lowercased().utf8, to: &out, fold: false)
        }
    }

    private static func append(bytes: String.UTF8View, to out: inout [UInt8], fold: Bool) {
        var runStart = -1
        func endRun() {
            guard runStart >= 0 else { return }
            var zeros = 0
            while runStart + 1 + zeros < out.count - 1 && out[runStart + 1 + zeros] == UInt8(ascii: "0") { zeros += 1 }
            if zeros > 0 { out.removeSubrange((runStart + 1)..<(runStart + 1 + zeros)) }
            out[runStart] = UInt8(min(31, out.count - runStart - 1))
            runStart = -1
        }
        for var byte in bytes {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if runStart < 0 {
                    runStart = out.count
                    out.append(0)
                }
                out.append(byte)
                continue
            }
            endRun()
            if fold && byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            out.append(byte)
        }
        endRun()
    }

    /// True when key `a` sorts before key `b`.
    @inline(__always)
    public static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                let n = min(pa.count, pb.count)
                for i in 0..<n where pa[i] != pb[i] { return pa[i] < pb[i] }
                return pa.count < pb.count
            }
        }
    }

    /// True when `a` sorts before `b` (keys made on the spot; equal keys fall back to the exact
    /// text, so the order is total). For sorting many strings, precompute ``key(_:)`` instead.
    public static func less(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }

    /// -1, 0 or 1, as `a` sorts before, with or after `b`.
    public static func compare(_ a: String, _ b: String) -> Int {
        let ka = key(a), kb = key(b)
        if ka != kb { return precedes(ka, kb) ? -1 : 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }
}
