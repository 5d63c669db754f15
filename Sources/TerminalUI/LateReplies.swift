/// Drops terminal replies from a batch of input codes before they are decoded as keys.
///
/// `TerminalProbe` asks its questions (primary and secondary device attributes, `XTVERSION`,
/// the kitty graphics query, `CSI 16 t`, OSC 11) under one deadline; a terminal that answers
/// after it (a loaded machine, a slow ssh link) sends the answer to whoever reads next: curses.
/// Without this filter `ESC [ ? 1 ; 2 c` became Escape, `[`, `?`, `1`, ... and `?` or a digit
/// acted as a key. The shapes removed are the replies those queries get (ECMA-48 control
/// sequences and strings, as xterm's ctlseqs documents them):
/// - CSI with an optional `?` or `>` marker, parameters of digits and `;`, and final `c`
///   (device attributes) or `t` (window and cell size in pixels);
/// - DCS, APC and OSC strings (`ESC P`, `ESC _`, `ESC ]`) up to ST (`ESC \`), OSC also up to BEL:
///   `XTVERSION`, the kitty graphics answer, the background colour.
///
/// Only a whole reply inside one batch is removed; a string with no terminator in the batch, or
/// any other sequence, is left as it came (a real Escape followed by keys stays keys). Batches
/// are what `Screen.pendingKeys` reads at once, and a terminal writes each reply in one piece.
public enum LateReplies {
    /// One code as `wget_wch` returned it.
    public typealias Code = (code: UInt32, isKeyCode: Bool)

    /// `codes` without the whole terminal replies they contain, in order.
    public static func strip(_ codes: [Code]) -> [Code] { kept(codes).map { codes[$0] } }

    /// The indices of `codes` that are not inside a whole terminal reply, ascending (focus
    /// reports are replies here too: see ``scan(_:)``).
    public static func kept(_ codes: [Code]) -> [Int] {
        scan(codes).compactMap { if case .code(let i) = $0 { i } else { nil } }
    }

    /// What a batch holds once the replies are out: codes to decode as keys, by index, and
    /// focus reports, in order.
    public enum Item: Equatable, Sendable {
        /// `codes[index]`, to decode as a key.
        case code(Int)
        /// A focus report (DECSET 1004) that came as plain codes: `ESC [ I` (true, focus in)
        /// or `ESC [ O` (false). ncurses matches them as keys when ``Key/focusInCode`` is
        /// bound; when it does not (the bytes came in two reads, or no binding), they arrive as
        /// Escape, `[`, `I` and must not act as keys.
        case focus(Bool)
    }

    /// `codes` split into codes to decode and focus reports, whole terminal replies dropped.
    public static func scan(_ codes: [Code]) -> [Item] {
        var out: [Item] = []
        out.reserveCapacity(codes.count)
        var i = 0
        while i < codes.count {
            if let focus = focusReport(codes, at: i) {
                out.append(.focus(focus))
                i += 3
            } else if let end = replyEnd(codes, at: i) {
                i = end
            } else {
                out.append(.code(i))
                i += 1
            }
        }
        return out
    }

    /// True for `ESC [ I`, false for `ESC [ O` at `i`; nil otherwise.
    private static func focusReport(_ codes: [Code], at i: Int) -> Bool? {
        guard i + 2 < codes.count, !codes[i].isKeyCode, !codes[i + 1].isKeyCode, !codes[i + 2].isKeyCode,
            codes[i].code == esc, codes[i + 1].code == 0x5B
        else { return nil }
        switch codes[i + 2].code {
        case 0x49: return true  // I
        case 0x4F: return false  // O
        default: return nil
        }
    }

    private static let esc: UInt32 = 0x1B

    /// The index after the reply starting at `i`, or nil when none starts there.
    private static func replyEnd(_ codes: [Code], at i: Int) -> Int? {
        func char(_ k: Int) -> UInt32? {
            k < codes.count && !codes[k].isKeyCode ? codes[k].code : nil
        }
        guard char(i) == esc, let kind = char(i + 1) else { return nil }
        switch kind {
        case 0x5B:  // CSI
            var k = i + 2
            if let m = char(k), m == 0x3F || m == 0x3E { k += 1 }  // ? or >
            let firstParameter = k
            while let c = char(k), (0x30...0x39).contains(c) || c == 0x3B { k += 1 }
            guard k > firstParameter, let final = char(k), final == 0x63 || final == 0x74 else { return nil }
            return k + 1
        case 0x50, 0x5F, 0x5D:  // DCS, APC, OSC
            var k = i + 2
            // A reply is short; a stray Escape followed by typing must not be held back.
            let limit = min(codes.count, i + 2 + 4096)
            while k < limit {
                guard let c = char(k) else { return nil }
                if c == esc { return char(k + 1) == 0x5C ? k + 2 : nil }
                if c == 0x07, kind == 0x5D { return k + 1 }
                k += 1
            }
            return nil
        default:
            return nil
        }
    }
}
