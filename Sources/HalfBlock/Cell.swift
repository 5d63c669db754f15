/// A colour a terminal cell can show.
///
/// `.terminalDefault` is the terminal's own default foreground or background (SGR 39 / 49): the
/// renderer uses it for fully transparent half cells so the terminal's background shows through.
public enum TerminalColor: Hashable, Sendable {
    /// The terminal's default colour (SGR 39 for foreground, 49 for background).
    case terminalDefault
    /// A 24-bit sRGB colour (SGR 38;2 / 48;2).
    case rgb(RGB)
    /// An xterm palette index, 0-255 (SGR 30-37/90-97 for 0-15 in 16-colour mode, 38;5 above).
    case indexed(UInt8)
}

/// An 8-bit-per-channel sRGB colour (gamma-encoded, as stored in image files).
public struct RGB: Hashable, Sendable {
    /// Red, 0-255, sRGB-encoded.
    public var r: UInt8
    /// Green, 0-255, sRGB-encoded.
    public var g: UInt8
    /// Blue, 0-255, sRGB-encoded.
    public var b: UInt8

    /// A colour from its three 8-bit sRGB channels.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }
}

/// One character cell: a glyph drawn in `foreground` over `background`.
///
/// For U+2580 "▀" the foreground is the top pixel and the background the bottom pixel; for U+2584
/// "▄" the other way round.
public struct Cell: Hashable, Sendable {
    /// The character drawn: "▀", "▄", " ", or a shading glyph in the colourless mode.
    public var glyph: Unicode.Scalar
    /// Colour of the glyph's ink (for a space it draws nothing; the renderer sets it to the background).
    public var foreground: TerminalColor
    /// Colour of the rest of the cell.
    public var background: TerminalColor

    /// A cell from its glyph and colours.
    public init(glyph: Unicode.Scalar, foreground: TerminalColor, background: TerminalColor) {
        self.glyph = glyph
        self.foreground = foreground
        self.background = background
    }

    /// A blank cell in the terminal's default colours.
    public static let blank = Cell(glyph: " ", foreground: .terminalDefault, background: .terminalDefault)
}

/// A rectangle of cells, `columns` wide and `rows` high, stored row-major.
public struct CellGrid: Sendable, Equatable {
    /// Width in cells.
    public let columns: Int
    /// Height in cells.
    public let rows: Int
    /// `columns * rows` cells, row after row.
    public var cells: [Cell]

    public init(columns: Int, rows: Int, cells: [Cell]) {
        precondition(cells.count == columns * rows, "cell count must be columns * rows")
        self.columns = columns
        self.rows = rows
        self.cells = cells
    }

    /// A grid of blank cells.
    public init(columns: Int, rows: Int) {
        self.init(columns: columns, rows: rows, cells: Array(repeating: .blank, count: columns * rows))
    }

    /// The cell at `column`, `row` (both 0-based).
    public subscript(column: Int, row: Int) -> Cell {
        get { cells[row * columns + column] }
        set { cells[row * columns + column] = newValue }
    }
}
