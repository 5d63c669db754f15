import Gallery
import HalfBlock
import ImagePipeline
import TerminalUI

/// The gallery: every item of the list in a list (one row each, text beside the thumbnail) or
/// a grid (thumbnails in rows, the title under each), with the selection, scrolling, sizes,
/// counts and the mouse. The slot after the last item is the "loading more" slot while the
/// gallery has more pages (the only place it is special-cased is `slot(at:)`).
@MainActor
public final class GalleryView: BrowseView {
    /// What a slot holds.
    public enum Slot: Equatable {
        case item(ItemID)
        /// The next page: loading, or why it failed.
        case more
    }

    let model: BrowseModel
    public private(set) var layout: GalleryLayout
    /// Thumbnail heights per mode (each mode keeps its own size).
    private var sizes: [GalleryLayout.Mode: Int]
    /// The selected slot's position.
    public private(set) var selected = 0
    /// The selected item: the selection follows it when the list is filtered or sorted.
    private var selectedID: ItemID?
    /// First row of slots on screen.
    public private(set) var topRow = 0
    private var lastClick: (position: Int, at: ContinuousClock.Instant)?
    /// The "loading more" slot needs drawing (its spinner turned or its state changed).
    private var moreDirty = false
    /// Presses closer together than this on one slot are a double click.
    static let doubleClick = Duration.milliseconds(400)

    /// - Parameters:
    ///   - listRows: thumbnail height in the list (`--row-height` less one).
    ///   - gridRows: thumbnail height in the grid.
    public init(model: BrowseModel, mode: GalleryLayout.Mode, listRows: Int, gridRows: Int) {
        self.model = model
        sizes = [.list: max(1, listRows), .grid: max(1, gridRows)]
        layout = GalleryLayout(mode: mode, rows: mode == .list ? listRows : gridRows, lines: 24, columns: 80)
        selectedID = model.list.count > 0 ? model.list[0] : nil
    }

    public var kind: ViewKind { layout.mode == .list ? .list : .grid }

    public func layout(lines: Int, columns: Int) {
        layout.lines = max(1, lines)
        layout.columns = max(1, columns)
        clampTop()
    }

    // MARK: Slots

    /// Slots: the items shown, plus the "loading more" slot while there are more pages.
    public var slotCount: Int { model.list.count + (model.paging.hasMore ? 1 : 0) }

    /// What the slot at `position` holds.
    public func slot(at position: Int) -> Slot? {
        if position >= 0 && position < model.list.count { return .item(model.list[position]) }
        if position == model.list.count && model.paging.hasMore { return .more }
        return nil
    }

    /// The selected item (nil on the "loading more" slot or in an empty list).
    public var selectedItem: ItemID? {
        if case .item(let id)? = slot(at: selected) { return id }
        return nil
    }

    private var totalRows: Int { (slotCount + layout.perRow - 1) / layout.perRow }

    /// Positions of the slots on screen.
    public var visiblePositions: Range<Int> {
        let first = topRow * layout.perRow
        return first..<min(slotCount, first + layout.slotsPerPage)
    }

    /// Selects the slot at `position` (clamped) and scrolls it into view.
    public func select(_ position: Int) {
        selected = max(0, min(slotCount - 1, position))
        selectedID = selectedItem
        clampTop()
    }

    /// Selects `id` when the list shows it.
    public func select(id: ItemID) {
        if let p = model.list.position(of: id) { select(p) }
    }

    /// Puts the selection back on its item after the list changed (filter, sort, page), or
    /// on `anchor` (the item selected when a filter prompt opened, so typing and erasing a
    /// filter comes back to it). When the filter hides that item, the selection goes to the
    /// nearest shown item in the unfiltered order (``ItemList/nearestShown(to:)``), not to the
    /// same position.
    public func reanchor(to anchor: ItemID? = nil) {
        if let id = anchor ?? selectedID, let near = model.list.nearestShown(to: id), let p = model.list.position(of: near) {
            selected = p
            selectedID = near
        } else {
            selected = max(0, min(slotCount - 1, selected))
            if selectedItem != nil { selectedID = selectedItem }
        }
        clampTop()
    }

    private func clampTop() {
        let perRow = layout.perRow, page = layout.rowsPerPage
        let row = selected / perRow
        if row < topRow { topRow = row }
        if row >= topRow + page { topRow = row - page + 1 }
        topRow = max(0, min(topRow, max(0, totalRows - page)))
    }

    // MARK: Actions

    public func handle(_ action: Action, count: Int?) -> Reaction {
        let n = max(1, count ?? 1)
        let before = (selected, topRow)
        let perRow = layout.perRow, page = layout.rowsPerPage
        let last = slotCount - 1
        switch action {
        case .up:
            let target = selected - n * perRow
            select(target >= 0 ? target : (selected >= perRow ? selected % perRow : selected))
        case .down:
            let target = selected + n * perRow
            if target <= last {
                select(target)
            } else if last >= 0 && last / perRow > selected / perRow {
                select(last)
            }
        case .left: select(selected - n)
        case .right: select(selected + n)
        case .pageUp:
            topRow = max(0, topRow - page * n)
            select(selected - page * perRow * n)
        case .pageDown:
            topRow = min(max(0, totalRows - page), topRow + page * n)
            select(selected + page * perRow * n)
        case .halfPageUp: select(selected - max(1, page / 2) * perRow * n)
        case .halfPageDown: select(selected + max(1, page / 2) * perRow * n)
        case .first: select(count.map { $0 - 1 } ?? 0)
        case .last: select(count.map { $0 - 1 } ?? last)
        case .percent:
            guard let count else { return .none }
            select((min(100, count) * slotCount + 99) / 100 - 1)
        case .open:
            guard let id = selectedItem else { return .none }
            return .push(ImageView(model: model, item: id))
        case .retry:
            switch slot(at: selected) {
            case .item(let id)?:
                model.thumbnails.retry(id, pixelBox: layout.pixelBox)
                model.invalidate([id])
                return .redraw([id])
            case .more?:
                model.loadMore()
                moreDirty = true
                return .redraw([])
            case nil:
                return .none
            }
        case .toggleView:
            setMode(layout.mode == .list ? .grid : .list)
            return .redrawAll
        case .bigger, .smaller:
            let rows = GalleryLayout.step(layout.rows, bigger: action == .bigger)
            guard rows != layout.rows else { return .none }
            layout.rows = rows
            sizes[layout.mode] = rows
            clampTop()
            return .redrawAll
        case .quit:
            return .quit
        default:
            return .none
        }
        return moved(from: before)
    }

    /// The thumbnail height of `mode`, in cells.
    public func rows(for mode: GalleryLayout.Mode) -> Int { sizes[mode] ?? layout.rows }

    /// Sets the thumbnail height of `mode` (a remembered place), clamped to 1...40 cells.
    public func setRows(_ rows: Int, for mode: GalleryLayout.Mode) {
        sizes[mode] = max(1, min(40, rows))
        if layout.mode == mode { layout.rows = sizes[mode]! }
        clampTop()
    }

    /// Switches between the list and the grid, each at its own size; the selection stays.
    public func setMode(_ mode: GalleryLayout.Mode) {
        layout.mode = mode
        layout.rows = sizes[mode] ?? layout.rows
        clampTop()
    }

    /// The reaction to a move from `before` (selection, top row): the two slots alone unless
    /// the view scrolled.
    private func moved(from before: (Int, Int)) -> Reaction {
        if before == (selected, topRow) { return .none }
        if before.1 != topRow { return .redrawAll }
        var ids = Set<ItemID>()
        for p in [before.0, selected] {
            switch slot(at: p) {
            case .item(let id)?: ids.insert(id)
            case .more?: moreDirty = true
            case nil: break
            }
        }
        return .redraw(ids)
    }

    public func handleMouse(_ event: MouseEvent, now: ContinuousClock.Instant) -> Reaction {
        switch event.kind {
        case .wheelUp, .wheelDown:
            let before = (selected, topRow)
            let page = layout.rowsPerPage
            topRow = max(0, min(max(0, totalRows - page), topRow + (event.kind == .wheelDown ? 1 : -1)))
            // The selection stays on screen: it moves with the edge it fell off.
            let row = selected / layout.perRow
            if row < topRow { selected += (topRow - row) * layout.perRow }
            if row >= topRow + page { selected -= (row - topRow - page + 1) * layout.perRow }
            selected = max(0, min(slotCount - 1, selected))
            selectedID = selectedItem
            return before == (selected, topRow) ? .none : (before.1 != topRow ? .redrawAll : moved(from: before))
        case .press:
            guard let (row, column) = layout.slot(atY: event.y, x: event.x) else { return .none }
            let position = (topRow + row) * layout.perRow + column
            guard position < slotCount else { return .none }
            if let click = lastClick, click.position == position, now - click.at < Self.doubleClick {
                lastClick = nil
                select(position)
                return handle(.open, count: nil)
            }
            lastClick = (position, now)
            let before = (selected, topRow)
            select(position)
            return moved(from: before)
        }
    }

    // MARK: Loading

    /// Items on screen, the look-ahead (one row beyond each edge: below first) and what to
    /// keep (a page beyond each edge), for the thumbnail loader.
    public var interest: Interest {
        let perRow = layout.perRow, perPage = layout.slotsPerPage
        let visible = visiblePositions
        func ids(_ range: Range<Int>) -> [ItemID] {
            let r = range.clamped(to: 0..<model.list.count)
            return r.map { model.list[$0] }
        }
        let below = ids(visible.upperBound..<(visible.upperBound + perRow))
        let above = ids(max(0, visible.lowerBound - perRow)..<visible.lowerBound).reversed()
        let keep = Set(ids(max(0, visible.lowerBound - perPage)..<(visible.upperBound + perPage)))
        let list = model.list
        let first = visible.lowerBound, end = visible.upperBound
        return Interest(
            visible: ids(visible), lookahead: below + above, keep: keep,
            priority: { id in
                guard let p = list.position(of: id) else { return Int.max / 2 }
                if p >= first && p < end { return p - first }
                let d = p < first ? first - p : p - end + 1
                return perPage + d
            })
    }

    // MARK: Drawing

    public var animating: Bool {
        visiblePositions.contains { p in
            switch slot(at: p) {
            case .item(let id)?:
                if case .loading = model.thumbnails.phase(id) { return true }
                return false
            case .more?:
                if case .loading = model.paging { return true }
                return false
            case nil: return false
            }
        }
    }

    public func tick() -> Reaction {
        var ids = Set<ItemID>()
        for p in visiblePositions {
            switch slot(at: p) {
            case .item(let id)?:
                if case .loading = model.thumbnails.phase(id) { ids.insert(id) }
            case .more?: moreDirty = true
            case nil: break
            }
        }
        return .redraw(ids)
    }

    /// Marks the "loading more" slot for redrawing (its page state changed).
    public func pagingChanged() { moreDirty = true }

    public func draw(on canvas: any Canvas, items: Set<ItemID>?) {
        let visible = visiblePositions
        guard let items else {
            for p in visible { drawSlot(p, on: canvas) }
            // Blank what no slot covers: the rest of the last row and the lines below.
            let rowsShown = (visible.count + layout.perRow - 1) / layout.perRow
            if layout.mode == .grid, visible.count % layout.perRow != 0 {
                for column in (visible.count % layout.perRow)..<layout.perRow {
                    blank(row: rowsShown - 1, column: column, on: canvas)
                }
            }
            let used = min(rowsShown * layout.slotHeight, layout.viewportLines)
            for y in used..<layout.viewportLines { canvas.clear(y: y, x: 0, width: layout.columns) }
            if layout.mode == .grid && layout.leftMargin > 0 {
                for y in 0..<used {
                    canvas.clear(y: y, x: 0, width: layout.leftMargin)
                    let right = layout.leftMargin + layout.perRow * layout.slotWidth
                    canvas.clear(y: y, x: right, width: layout.columns - right)
                }
            }
            if slotCount == 0 {
                let text = model.list.filter != nil ? "(no items match the filter)" : "(empty gallery)"
                canvas.text(text, y: 0, x: 2, width: layout.columns - 2, role: .dim)
            }
            moreDirty = false
            return
        }
        for id in items {
            if let p = model.list.position(of: id), visible.contains(p) { drawSlot(p, on: canvas) }
        }
        if moreDirty {
            moreDirty = false
            if visible.contains(model.list.count) { drawSlot(model.list.count, on: canvas) }
        }
    }

    private func blank(row: Int, column: Int, on canvas: any Canvas) {
        let (y, x) = layout.origin(row: row, column: column)
        for line in 0..<min(layout.slotHeight, layout.viewportLines - y) {
            canvas.clear(y: y + line, x: x, width: layout.slotWidth)
        }
    }

    /// What one slot shows.
    struct Content {
        enum Thumbnail {
            case image(CellGrid), loading, failed, none
        }
        var title: String
        var fileName: String
        var detail: String
        var thumbnail: Thumbnail
    }

    func content(at position: Int) -> Content {
        switch slot(at: position) {
        case nil:
            return Content(title: "", fileName: "", detail: "", thumbnail: .none)
        case .more?:
            switch model.paging {
            case .failed(let page, let reason):
                return Content(title: "Could not load page \(page)", fileName: "press r to retry", detail: "✗ \(reason)", thumbnail: .failed)
            case .ready(let page), .loading(let page):
                return Content(title: "Loading more…", fileName: "page \(page)", detail: "loading…", thumbnail: .loading)
            case .done:
                return Content(title: "", fileName: "", detail: "", thumbnail: .none)
            }
        case .item(let id)?:
            let item = model.items[id.index]
            // The file name shows in the list only (finding it parses the URL: not per grid slot).
            let name = layout.mode == .list ? model.list.fileName(of: id) : ""
            switch model.thumbnails.phase(id) {
            case .idle, .loading, .evicted:
                return Content(title: item.title, fileName: name, detail: "loading…", thumbnail: .loading)
            case .noImage:
                if let problem = item.problem {
                    return Content(title: item.title, fileName: name, detail: "✗ \(problem)", thumbnail: .failed)
                }
                return Content(title: item.title, fileName: name, detail: "no image URL", thumbnail: .none)
            case .failed(let error):
                return Content(title: item.title, fileName: name, detail: "✗ \(error.shortReason)", thumbnail: .failed)
            case .loaded(let image):
                let box = layout.box
                let grid = model.art(for: id, image: image, columns: box.columns, rows: box.rows)
                return Content(title: item.title, fileName: name, detail: "\(image.sourceWidth) × \(image.sourceHeight)", thumbnail: .image(grid))
            }
        }
    }

    private func drawSlot(_ position: Int, on canvas: any Canvas) {
        let row = position / layout.perRow - topRow, column = position % layout.perRow
        guard row >= 0, row < layout.rowsPerPage else { return }
        let (y, x) = layout.origin(row: row, column: column)
        let content = content(at: position)
        let isSelected = position == selected
        var isMatch = false, isMarked = false
        if case .item(let id)? = slot(at: position) {
            isMatch = model.isMatch(id)
            isMarked = model.isMarked(id)
        }
        switch layout.mode {
        case .list: drawRow(content, y: y, selected: isSelected, match: isMatch, on: canvas)
        case .grid: drawCell(content, y: y, x: x, selected: isSelected, match: isMatch, on: canvas)
        }
        if isMarked { drawMark(y: y, x: x, on: canvas) }
    }

    /// The glyph a marked item shows: ● (or * without Unicode) between the thumbnail and the
    /// title in the list, at the top right of the box in the grid.
    private func drawMark(y: Int, x: Int, on canvas: any Canvas) {
        let box = layout.box
        let markX = layout.mode == .list ? box.columns + 1 : x + (layout.slotWidth - box.columns) / 2 + box.columns
        canvas.text(canvas.unicodeGlyphs ? "●" : "*", y: y, x: markX, width: 1, role: .title)
    }

    /// Draws the thumbnail column of a box at (y, x): the art centred, or a glyph in the middle.
    private func drawThumbnail(_ thumbnail: Content.Thumbnail, y: Int, x: Int, height: Int, on canvas: any Canvas) {
        let box = layout.box
        let middle = (box.rows - 1) / 2
        switch thumbnail {
        case .image(let grid):
            let dx = max(0, (box.columns - grid.columns) / 2), dy = max(0, (box.rows - grid.rows) / 2)
            canvas.draw(grid, y: y + dy, x: x + dx, maxLines: height - dy)
        case .loading where middle < height:
            canvas.put(model.spinner.glyph, y: y + middle, x: x + box.columns / 2, foreground: .terminalDefault, background: .terminalDefault, role: .spinner)
        case .failed where middle < height:
            canvas.text("✗", y: y + middle, x: x + box.columns / 2, width: 1, role: .error)
        case .none where middle < height:
            canvas.text("·", y: y + middle, x: x + box.columns / 2, width: 1, role: .dim)
        default:
            break
        }
    }

    private func drawRow(_ content: Content, y: Int, selected: Bool, match: Bool, on canvas: any Canvas) {
        let box = layout.box, columns = layout.columns
        // A row taller than the viewport (tiny terminal) is clipped above the status line.
        let height = min(layout.slotHeight, layout.viewportLines - y)
        for line in 0..<height { canvas.clear(y: y + line, x: 0, width: columns) }
        drawThumbnail(content.thumbnail, y: y, x: 1, height: height, on: canvas)
        let x = box.columns + 3
        let width = max(0, columns - x)
        let titleRole: Screen.Role = selected ? .selection : (match ? .match : .title)
        canvas.text(content.title, y: y, x: x, width: width, role: titleRole, pad: selected)
        if height > 1 { canvas.text(content.fileName, y: y + 1, x: x, width: width, role: .dim) }
        if height > 2 {
            let role: Screen.Role
            switch content.thumbnail {
            case .failed: role = .error
            case .loading: role = .spinner
            default: role = .normal
            }
            canvas.text(content.detail, y: y + 2, x: x, width: width, role: role)
        }
        if selected {
            for line in 0..<max(1, min(height, layout.slotHeight - 1)) {
                canvas.text("▌", y: y + line, x: 0, width: 1, role: .selection)
            }
        }
    }

    private func drawCell(_ content: Content, y: Int, x: Int, selected: Bool, match: Bool, on canvas: any Canvas) {
        let box = layout.box, width = layout.slotWidth
        let height = min(layout.slotHeight, layout.viewportLines - y)
        guard height > 0 else { return }
        for line in 0..<height { canvas.clear(y: y + line, x: x, width: width) }
        let boxX = x + (width - box.columns) / 2
        drawThumbnail(content.thumbnail, y: y, x: boxX, height: min(height, box.rows), on: canvas)
        if selected {
            for line in 0..<min(height, box.rows) { canvas.text("▌", y: y + line, x: boxX - 1, width: 1, role: .selection) }
        }
        guard height > box.rows else { return }
        // The title under the box, cut to fit; the failure reason instead when there is one.
        var title = content.title
        if case .failed = content.thumbnail { title = content.detail }
        let titleRole: Screen.Role = selected ? .selection : (match ? .match : .normal)
        let textWidth = max(1, width - 1)
        let used = DisplayWidth.fit(title, columns: textWidth).width
        // Centred under the box; the selected one in reverse video from the selection mark on.
        if selected {
            canvas.text(title, y: y + box.rows, x: boxX - 1, width: min(textWidth, box.columns + 1), role: titleRole, pad: true)
        } else {
            canvas.text(title, y: y + box.rows, x: x + max(0, (width - used) / 2), width: textWidth, role: titleRole)
        }
    }

    // MARK: Status

    public func status() -> (left: String, right: String) {
        let (loaded, loading, failed) = model.thumbnails.counts
        let list = model.list
        let more = model.paging.hasMore ? "+" : ""
        let position = list.count == 0 ? "0/\(list.count)\(more)" : "\(min(selected + 1, list.count))/\(list.count)\(more)"
        var left = " \(model.name)  \(position)"
        if let filter = list.filter { left += "  & \(filter): \(list.count) of \(list.total)" }
        if list.sortKey != .gallery || list.reversed {
            left += "  sort: \(list.sortKey.rawValue) \(list.reversed ? "↓" : "↑")"
        }
        return (left, "loaded \(loaded) · loading \(loading) · failed \(failed)  H help")
    }
}
