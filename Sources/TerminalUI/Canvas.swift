import HalfBlock

/// A screen of cells to draw on: `Screen` on the terminal, `TestCanvas` in tests.
///
/// Coordinates are cells: line `y` from the top, column `x` from the left. Drawing outside the
/// canvas is clipped. Nothing is sent anywhere until the owner refreshes (`Screen.refresh`),
/// and a cell drawn with what it already holds costs nothing on the terminal (ncurses compares
/// with what is on screen).
@MainActor
public protocol Canvas: AnyObject {
    /// Size in cells.
    var lines: Int { get }
    var columns: Int { get }
    /// True when wide glyphs (▀, braille) can be drawn (a UTF-8 locale).
    var unicodeGlyphs: Bool { get }
    /// Draws `text` at (y, x) in at most `width` columns, in `role`; unsafe scalars are dropped
    /// and an overlong text ends with "…". Pads with spaces to `width` when `pad`. Returns the
    /// columns used.
    @discardableResult
    func text(_ text: String, y: Int, x: Int, width: Int, role: Screen.Role, pad: Bool) -> Int
    /// Draws one glyph in the given colours.
    func put(_ glyph: Unicode.Scalar, y: Int, x: Int, foreground: TerminalColor, background: TerminalColor, role: Screen.Role)
}

extension Canvas {
    @discardableResult
    public func text(_ text: String, y: Int, x: Int, width: Int, role: Screen.Role = .normal) -> Int {
        self.text(text, y: y, x: x, width: width, role: role, pad: false)
    }

    /// Fills `width` columns at (y, x) with spaces in the default colours.
    public func clear(y: Int, x: Int, width: Int) {
        text("", y: y, x: x, width: width, role: .normal, pad: true)
    }

    /// Draws a grid of cells with its top-left corner at (y, x), clipped to the canvas and to
    /// `maxLines` lines.
    public func draw(_ grid: CellGrid, y: Int, x: Int, maxLines: Int = .max) {
        for row in 0..<min(grid.rows, max(0, maxLines)) where y + row >= 0 && y + row < lines {
            for column in 0..<grid.columns where x + column >= 0 && x + column < columns {
                let cell = grid[column, row]
                put(cell.glyph, y: y + row, x: x + column, foreground: cell.foreground, background: cell.background, role: .normal)
            }
        }
    }
}

/// A canvas that records cells, for tests: what a terminal would show, cell by cell, and how
/// many cells each frame wrote.
@MainActor
public final class TestCanvas: Canvas {
    /// One recorded cell.
    public struct Cell: Equatable, Sendable {
        public var glyph: Unicode.Scalar
        public var role: Screen.Role
        public var foreground: TerminalColor
        public var background: TerminalColor
    }

    public private(set) var lines: Int
    public private(set) var columns: Int
    public let unicodeGlyphs = true
    public private(set) var cells: [[Cell]]
    /// Cells written since the last `resetWrites()` (a cell written twice counts twice).
    public private(set) var writes = 0
    /// Lines touched since the last `resetWrites()`.
    public var touchedLines: Set<Int> { Set(touched.indices.filter { touched[$0] }) }
    /// Per line: written since the last `resetWrites()` (an array, not a set: a frame writes
    /// thousands of cells, and benchmarks time frames on this canvas).
    private var touched: [Bool]

    public init(lines: Int, columns: Int) {
        self.lines = lines
        self.columns = columns
        cells = Self.blank(lines: lines, columns: columns)
        touched = Array(repeating: false, count: lines)
    }

    static func blank(lines: Int, columns: Int) -> [[Cell]] {
        Array(repeating: Array(repeating: Cell(glyph: " ", role: .normal, foreground: .terminalDefault, background: .terminalDefault), count: columns), count: lines)
    }

    /// Changes the size; the content is blanked (as after a terminal resize and clear).
    public func resize(lines: Int, columns: Int) {
        self.lines = lines
        self.columns = columns
        cells = Self.blank(lines: lines, columns: columns)
        touched = Array(repeating: false, count: lines)
    }

    public func resetWrites() {
        writes = 0
        touched = Array(repeating: false, count: lines)
    }

    /// Line `y` as text, trailing blanks trimmed (a wide glyph's second column is skipped).
    public func row(_ y: Int) -> String {
        var out = String.UnicodeScalarView()
        for cell in cells[y] where cell.glyph != "\u{0}" { out.append(cell.glyph) }
        var s = String(out)
        while s.last == " " { s.removeLast() }
        return s
    }

    /// Every line as text.
    public var text: String { (0..<lines).map(row).joined(separator: "\n") }

    @discardableResult
    public func text(_ text: String, y: Int, x: Int, width: Int, role: Screen.Role, pad: Bool) -> Int {
        guard width > 0, y >= 0, y < lines, x >= 0, x < columns else { return 0 }
        let room = min(width, columns - x)
        var (scalars, used) = DisplayWidth.fit(text, columns: room)
        if pad && used < room {
            scalars.append(contentsOf: Array(repeating: " ", count: room - used))
            used = room
        }
        var column = x
        for scalar in scalars {
            let w = DisplayWidth.width(scalar)
            guard column < columns else { break }
            set(y, column, Cell(glyph: scalar, role: role, foreground: .terminalDefault, background: .terminalDefault))
            if w == 2 && column + 1 < columns {
                set(y, column + 1, Cell(glyph: "\u{0}", role: role, foreground: .terminalDefault, background: .terminalDefault))
            }
            column += max(1, w)
        }
        return used
    }

    public func put(_ glyph: Unicode.Scalar, y: Int, x: Int, foreground: TerminalColor, background: TerminalColor, role: Screen.Role) {
        guard y >= 0, y < lines, x >= 0, x < columns else { return }
        set(y, x, Cell(glyph: glyph, role: role, foreground: foreground, background: background))
    }

    private func set(_ y: Int, _ x: Int, _ cell: Cell) {
        cells[y][x] = cell
        writes += 1
        touched[y] = true
    }
}
