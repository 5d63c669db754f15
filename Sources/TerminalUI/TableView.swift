import HalfBlock

/// What one table row shows.
public struct RowContent: Sendable {
    /// The thumbnail column.
    public enum Thumbnail: Sendable {
        /// Half-block art, already fitted to the thumbnail box.
        case image(CellGrid)
        /// Not there yet: an animated spinner.
        case loading
        /// Failed: a failure glyph (the reason goes in `detail`).
        case failed
        /// Nothing to load (the item has no image URL).
        case none
    }

    public var title: String
    public var fileName: String
    /// Third line: pixel size once loaded, "loading", or the failure reason.
    public var detail: String
    public var thumbnail: Thumbnail

    public init(title: String, fileName: String, detail: String, thumbnail: Thumbnail) {
        self.title = title
        self.fileName = fileName
        self.detail = detail
        self.thumbnail = thumbnail
    }
}

/// The gallery table: one row per item, `rowHeight` lines each, the thumbnail at the left and
/// three lines of text beside it; the selected row in reverse video. Keeps the selection
/// visible through moves and resizes.
@MainActor
public final class TableView {
    /// Lines per row (at least 2): the thumbnail is `rowHeight - 1` lines high, one blank line
    /// separates rows.
    public let rowHeight: Int
    /// Number of rows (gallery items).
    public private(set) var count: Int
    /// Index of the selected row.
    public private(set) var selected = 0
    /// Index of the first row on screen.
    public private(set) var top = 0
    /// Lines available to rows (the screen less the status line).
    public private(set) var viewportLines = 23
    /// Screen width in cells.
    public private(set) var columns = 80

    public init(count: Int, rowHeight: Int) {
        self.count = count
        self.rowHeight = max(2, rowHeight)
    }

    /// Rows that fit on screen at once (at least 1).
    public var rowsPerPage: Int { max(1, viewportLines / rowHeight) }

    /// Rows on screen now, top to bottom.
    public var visibleRows: Range<Int> { top..<min(count, top + rowsPerPage) }

    /// The thumbnail box in cells: `rowHeight - 1` lines high and four times as many columns
    /// wide (a 2:1 box in half-block pixels), capped at a third of the screen.
    public var thumbnailBox: (columns: Int, rows: Int) {
        let rows = max(1, rowHeight - 1)
        return (max(2, min(rows * 4, columns / 3)), rows)
    }

    /// Lays out for a screen of `lines` x `columns` cells (one line is the status line).
    public func layout(lines: Int, columns: Int) {
        viewportLines = max(1, lines - 1)
        self.columns = max(1, columns)
        clampTop()
    }

    /// Changes the number of rows (more items arrived), keeping the selection.
    public func setCount(_ newCount: Int) {
        count = max(0, newCount)
        selected = min(selected, max(0, count - 1))
        clampTop()
    }

    /// Applies a movement action; returns true when the selection or scroll position changed.
    @discardableResult
    public func apply(_ action: Action) -> Bool {
        let before = (selected, top)
        switch action {
        case .up: select(selected - 1)
        case .down: select(selected + 1)
        case .pageUp:
            top = max(0, top - rowsPerPage)
            select(selected - rowsPerPage)
        case .pageDown:
            top = min(max(0, count - rowsPerPage), top + rowsPerPage)
            select(selected + rowsPerPage)
        case .halfPageUp: select(selected - max(1, rowsPerPage / 2))
        case .halfPageDown: select(selected + max(1, rowsPerPage / 2))
        case .first: select(0)
        case .last: select(count - 1)
        default: break
        }
        return before != (selected, top)
    }

    /// Selects row `index` (clamped) and scrolls it into view.
    public func select(_ index: Int) {
        selected = max(0, min(count - 1, index))
        clampTop()
    }

    private func clampTop() {
        if selected < top { top = selected }
        if selected >= top + rowsPerPage { top = selected - rowsPerPage + 1 }
        top = max(0, min(top, max(0, count - rowsPerPage)))
    }

    /// The screen line where row `index` starts, or nil when it is not on screen.
    public func line(of index: Int) -> Int? {
        visibleRows.contains(index) ? (index - top) * rowHeight : nil
    }

    /// Draws every visible row and blanks the rest of the viewport.
    public func draw(on screen: Screen, spinner: Unicode.Scalar, content: (Int) -> RowContent) {
        for index in visibleRows {
            drawRow(index, on: screen, spinner: spinner, content: content(index))
        }
        let used = min(visibleRows.count * rowHeight, viewportLines)
        for y in used..<viewportLines {
            screen.clear(y: y, x: 0, width: columns)
        }
        if count == 0 {
            screen.text("(empty gallery)", y: 0, x: 2, width: columns - 2, role: .dim)
        }
    }

    /// Draws row `index` alone, if it is on screen.
    public func drawRow(_ index: Int, on screen: Screen, spinner: Unicode.Scalar, content: RowContent) {
        guard let y = line(of: index) else { return }
        let box = thumbnailBox
        // A row taller than the viewport (tiny terminal, huge --row-height) is clipped above the
        // status line.
        let height = min(rowHeight, viewportLines - y)
        for line in 0..<height { screen.clear(y: y + line, x: 0, width: columns) }
        func fits(_ line: Int) -> Bool { line < height }
        switch content.thumbnail {
        case .image(let grid):
            let dx = (box.columns - grid.columns) / 2
            let dy = (box.rows - grid.rows) / 2
            screen.draw(grid, y: y + max(0, dy), x: 1 + max(0, dx), maxLines: height - max(0, dy))
        case .loading where fits((box.rows - 1) / 2):
            screen.put(spinner, y: y + (box.rows - 1) / 2, x: 1 + box.columns / 2, foreground: .terminalDefault, background: .terminalDefault, role: .spinner)
        case .failed where fits((box.rows - 1) / 2):
            screen.text("✗", y: y + (box.rows - 1) / 2, x: 1 + box.columns / 2, width: 1, role: .error)
        case .none where fits((box.rows - 1) / 2):
            screen.text("·", y: y + (box.rows - 1) / 2, x: 1 + box.columns / 2, width: 1, role: .dim)
        default:
            break
        }
        let x = box.columns + 3
        let width = max(0, columns - x)
        let isSelected = index == selected
        screen.text(content.title, y: y, x: x, width: width, role: isSelected ? .selection : .title, pad: isSelected)
        if fits(1) { screen.text(content.fileName, y: y + 1, x: x, width: width, role: .dim) }
        if fits(2) {
            let role: Screen.Role
            switch content.thumbnail {
            case .failed: role = .error
            case .loading: role = .spinner
            default: role = .normal
            }
            screen.text(content.detail, y: y + 2, x: x, width: width, role: role)
        }
        if isSelected {
            for line in 0..<max(1, min(height, rowHeight - 1)) { screen.text("▌", y: y + line, x: 0, width: 1, role: .selection) }
        }
    }
}
