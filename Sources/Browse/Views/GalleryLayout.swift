import HalfBlock

/// Where the gallery's slots go on screen, in the list or the grid, for one thumbnail size.
///
/// A slot holds one item (or the "loading more" slot after the last). Slots fill rows of
/// `perRow` (1 in the list) and rows fill the viewport (the screen less the status line).
///
/// - List: a slot is `rows + 1` lines (the thumbnail, then a blank line) by the whole width;
///   the thumbnail box is `rows` high and four times as wide (a 2:1 box in half-block pixels)
///   capped at a third of the screen, the text beside it.
/// - Grid: a square box (`2 × rows` columns by `rows` lines: half-block pixels are square on a
///   1:2 cell) with the title on the line under it; slots are at least box + 2 columns wide
///   and share out the spare width, so the grid fills the screen.
public struct GalleryLayout: Equatable, Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        case list, grid
    }

    /// Thumbnail heights in cells that `+` and `-` step through (8x4 to 40x20 cells in the
    /// grid).
    public static let sizes = [4, 6, 8, 10, 12, 16, 20]

    public var mode: Mode
    /// Thumbnail box height in cells.
    public var rows: Int
    public var lines: Int
    public var columns: Int

    public init(mode: Mode, rows: Int, lines: Int, columns: Int) {
        self.mode = mode
        self.rows = max(1, rows)
        self.lines = max(1, lines)
        self.columns = max(1, columns)
    }

    /// Lines for slots: the screen less the status line.
    public var viewportLines: Int { max(1, lines - 1) }

    /// The thumbnail box in cells.
    public var box: (columns: Int, rows: Int) {
        switch mode {
        case .list: return (max(2, min(rows * 4, columns / 3)), rows)
        case .grid: return (rows * 2, rows)
        }
    }

    /// Slots per row.
    public var perRow: Int {
        mode == .list ? 1 : max(1, columns / (box.columns + 2))
    }

    /// Width and height of a slot in cells.
    public var slotWidth: Int { mode == .list ? columns : max(1, columns / perRow) }
    public var slotHeight: Int { rows + 1 }

    /// Rows of slots that fit on screen (at least 1).
    public var rowsPerPage: Int { max(1, viewportLines / slotHeight) }

    /// Slots on one screen.
    public var slotsPerPage: Int { perRow * rowsPerPage }

    /// Left margin: what is left over after whole slots, split on both sides.
    public var leftMargin: Int { mode == .list ? 0 : (columns - perRow * slotWidth) / 2 }

    /// The pixel box thumbnails are decoded at (``Sizes/decodeBox(for:cellPixels:)``: twice the
    /// half-block grid each way).
    public var pixelBox: PixelSize { Sizes.decodeBox(for: CellSize(columns: box.columns, rows: box.rows)) }

    /// Top-left cell of the slot at `row` (counted from the first row on screen) and `column`.
    public func origin(row: Int, column: Int) -> (y: Int, x: Int) {
        (row * slotHeight, leftMargin + column * slotWidth)
    }

    /// The (row on screen, column) of the slot under cell (y, x), or nil for the status line,
    /// margins and the space below the last whole row.
    public func slot(atY y: Int, x: Int) -> (row: Int, column: Int)? {
        guard y >= 0, y < rowsPerPage * slotHeight, y < viewportLines, x >= leftMargin else { return nil }
        let column = (x - leftMargin) / slotWidth
        guard column < perRow else { return nil }
        return (y / slotHeight, column)
    }

    /// The next size up or down from `rows` (sizes between steps go to the nearest step).
    public static func step(_ rows: Int, bigger: Bool) -> Int {
        if bigger { return sizes.first { $0 > rows } ?? rows }
        return sizes.last { $0 < rows } ?? rows
    }
}
