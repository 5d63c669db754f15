/// Serialises a ``CellGrid`` as ANSI text (ECMA-48 SGR sequences plus UTF-8 glyphs), for
/// `vitrine render` and anything else that prints cells outside curses.
///
/// Output, row by row: the row's glyphs, each preceded by one SGR sequence only where the
/// foreground or background actually changes from the previous cell on that row (both changes
/// share one sequence), then `ESC[0m` if the row set any colour, then `"\n"`. Each row starts
/// from the terminal's default colours. Encodings:
///
/// | colour | foreground | background |
/// |---|---|---|
/// | `.terminalDefault` | `39` | `49` |
/// | `.rgb(r, g, b)` | `38;2;r;g;b` | `48;2;r;g;b` |
/// | `.indexed(n)`, 16-colour mode, n < 8 | `3n` | `4n` |
/// | `.indexed(n)`, 16-colour mode, 8 ≤ n < 16 | `9(n-8)` | `10(n-8)` |
/// | `.indexed(n)`, otherwise | `38;5;n` | `48;5;n` |
///
/// Compactness: a space's foreground is never set (it draws none); an opaque "▀" cell is
/// written as the equivalent "▄" with the colours swapped when that needs fewer colour changes
/// (never when a half is the default colour, which only works as a background).
/// With `colorMode == .none` there are no escape sequences at all: glyphs and newlines only.
public enum ANSIWriter {
    private static let esc: UInt8 = 0x1B
    private static let upperHalf: Unicode.Scalar = "\u{2580}"
    private static let lowerHalf: Unicode.Scalar = "\u{2584}"

    /// `grid` as ANSI text for a terminal with `colorMode` (see the type's description).
    public static func string(for grid: CellGrid, colorMode: ColorMode) -> String {
        String(decoding: bytes(for: grid, colorMode: colorMode), as: UTF8.self)
    }

    /// `grid` as the UTF-8 bytes of ``string(for:colorMode:)``, for writing straight to a file
    /// descriptor (no String validation or copy).
    ///
    /// Written through a pointer into one array sized for the worst case (40 bytes a cell: an
    /// SGR sequence setting two 24-bit colours and a 4-byte glyph; 5 a row): appending to an
    /// array byte by byte checked its capacity and uniqueness for each of the ~30 bytes of a
    /// cell, 600 instructions a cell (issue 14).
    public static func bytes(for grid: CellGrid, colorMode: ColorMode) -> [UInt8] {
        let capacity = grid.cells.count * 40 + grid.rows * 5
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var out = Sink(start: buffer.baseAddress!)
            write(grid, colorMode: colorMode, to: &out)
            count = out.count(from: buffer.baseAddress!)
            precondition(count <= capacity, "ANSIWriter overran its buffer")
        }
    }

    /// A write position in a buffer that the caller sized.
    struct Sink {
        var p: UnsafeMutablePointer<UInt8>
        init(start: UnsafeMutablePointer<UInt8>) { p = start }
        @inline(__always) mutating func append(_ byte: UInt8) {
            p.pointee = byte
            p += 1
        }
        func count(from start: UnsafeMutablePointer<UInt8>) -> Int { start.distance(to: p) }
    }

    private static func write(_ grid: CellGrid, colorMode: ColorMode, to out: inout Sink) {
        for row in 0..<grid.rows {
            var fg = TerminalColor.terminalDefault
            var bg = TerminalColor.terminalDefault
            var coloured = false
            for column in 0..<grid.columns {
                var cell = grid[column, row]
                if colorMode == .none {
                    appendGlyph(cell.glyph, to: &out)
                    continue
                }
                if cell.glyph == upperHalf || cell.glyph == lowerHalf,
                   cell.foreground != .terminalDefault, cell.background != .terminalDefault {
                    let keep = (cell.foreground != fg ? 1 : 0) + (cell.background != bg ? 1 : 0)
                    let swapped = (cell.background != fg ? 1 : 0) + (cell.foreground != bg ? 1 : 0)
                    if swapped < keep {
                        cell = Cell(glyph: cell.glyph == upperHalf ? lowerHalf : upperHalf,
                                    foreground: cell.background, background: cell.foreground)
                    }
                }
                let setForeground = cell.glyph != " " && cell.foreground != fg
                let setBackground = cell.background != bg
                if setForeground || setBackground {
                    out.append(esc)
                    out.append(UInt8(ascii: "["))
                    if setForeground {
                        appendParameters(cell.foreground, background: false, colorMode: colorMode, to: &out)
                        fg = cell.foreground
                        coloured = coloured || fg != .terminalDefault
                    }
                    if setBackground {
                        if setForeground { out.append(UInt8(ascii: ";")) }
                        appendParameters(cell.background, background: true, colorMode: colorMode, to: &out)
                        bg = cell.background
                        coloured = coloured || bg != .terminalDefault
                    }
                    out.append(UInt8(ascii: "m"))
                }
                appendGlyph(cell.glyph, to: &out)
            }
            if coloured {
                out.append(esc)
                out.append(UInt8(ascii: "["))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "m"))
            }
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// The SGR parameters (without `ESC[` and `m`) that select `color`.
    static func parameters(_ color: TerminalColor, background: Bool, colorMode: ColorMode) -> String {
        let bytes = [UInt8](unsafeUninitializedCapacity: 16) { buffer, count in
            var out = Sink(start: buffer.baseAddress!)
            appendParameters(color, background: background, colorMode: colorMode, to: &out)
            count = out.count(from: buffer.baseAddress!)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// At most 16 bytes ("38;2;255;255;255").
    private static func appendParameters(_ color: TerminalColor, background: Bool, colorMode: ColorMode, to out: inout Sink) {
        switch color {
        case .terminalDefault:
            appendNumber(background ? 49 : 39, to: &out)
        case .rgb(let c):
            appendNumber(background ? 48 : 38, to: &out)
            out.append(UInt8(ascii: ";"))
            out.append(UInt8(ascii: "2"))
            out.append(UInt8(ascii: ";"))
            appendNumber(Int(c.r), to: &out)
            out.append(UInt8(ascii: ";"))
            appendNumber(Int(c.g), to: &out)
            out.append(UInt8(ascii: ";"))
            appendNumber(Int(c.b), to: &out)
        case .indexed(let n) where colorMode == .palette16 && n < 16:
            let base = n < 8 ? (background ? 40 : 30) : (background ? 100 : 90)
            appendNumber(base + Int(n % 8), to: &out)
        case .indexed(let n):
            appendNumber(background ? 48 : 38, to: &out)
            out.append(UInt8(ascii: ";"))
            out.append(UInt8(ascii: "5"))
            out.append(UInt8(ascii: ";"))
            appendNumber(Int(n), to: &out)
        }
    }

    @inline(__always)
    private static func appendNumber(_ n: Int, to out: inout Sink) {
        if n >= 100 { out.append(UInt8(ascii: "0") + UInt8(n / 100)) }
        if n >= 10 { out.append(UInt8(ascii: "0") + UInt8(n / 10 % 10)) }
        out.append(UInt8(ascii: "0") + UInt8(n % 10))
    }

    @inline(__always)
    private static func appendGlyph(_ glyph: Unicode.Scalar, to out: inout Sink) {
        if glyph.isASCII {
            out.append(UInt8(glyph.value))
        } else {
            UTF8.encode(glyph) { out.append($0) }
        }
    }
}
