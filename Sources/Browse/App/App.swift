import Gallery
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI

/// The browser's controller: a stack of views over one `BrowseModel`, the count typed before
/// a key, the search and filter prompt, and what needs drawing. The wiring (the executable)
/// owns the terminal and the loop: it hands keys, finished loads and pages in, and asks for a
/// frame; everything here runs on the main thread and is tested on a `TestCanvas`.
@MainActor
public final class App {
    /// Start-up settings.
    public struct Options: Sendable {
        public var mode: GalleryLayout.Mode = .list
        /// Thumbnail heights in cells.
        public var listRows = 4
        public var gridRows = 8

        public init(mode: GalleryLayout.Mode = .list, listRows: Int = 4, gridRows: Int = 8) {
            self.mode = mode
            self.listRows = listRows
            self.gridRows = gridRows
        }
    }

    public let model: BrowseModel
    /// The gallery: always at the bottom of the stack.
    public let gallery: GalleryView
    private var stack: [any BrowseView] = []
    /// Digits typed before a key (`50` of `50G`).
    public private(set) var count: Int?
    /// The search's direction: true after `/`, false after `?`; `n` goes this way and `N`
    /// the other, as in less and vim.
    public private(set) var searchForward = true
    private var prompt: Prompt?
    /// A one-off note for the status line ("no match for …"), until the next key.
    public private(set) var message: String?
    private var messageAlone = false
    /// A lasting note for the status line (a batch save's progress), until set to nil.
    public var activity: String? {
        didSet { if activity != oldValue { lastStatus = nil } }
    }
    /// Cancels the work `activity` reports (Esc calls it before anything else).
    public var cancelActivity: (() -> Void)?
    /// Carries out copy, open and save (`y`, `o`, `s`) on the items given (the marked ones in
    /// gallery order, else the current one); the wiring sets it. Unset: the keys say so.
    public var itemAction: ((Action, [ItemID]) -> Void)?
    private var needsFull = true
    private var dirty = Set<ItemID>()
    /// The top view has something to draw that is not an item (the "loading more" slot).
    private var viewDirty = false
    private var lastStatus: (String, String)?
    private var lines = 24, columns = 80
    /// False once the user quit.
    public private(set) var running = true
    /// Set by ^L: the wiring repaints the terminal from scratch.
    public var repaintRequested = false
    /// The full view's pixel protocol and its context (cell pixels, background, tmux), from
    /// `TerminalCapabilities`; nil or `.halfblock`: half blocks on the canvas.
    public var pixels: (PixelProtocol, PresenterContext)?
    /// Cuts and encodes the full views' pixel pictures off the main thread (the wiring sets it;
    /// nil: on the main thread, at once).
    public var pictureWorker: PictureWorker?
    /// Writes kitty's pan regions in slices between turns (the wiring sets it; nil: a region
    /// goes out whole with the turn's other bytes).
    public var transmitter: TerminalWriter?
    /// Removal bytes of views that closed, for ``pixelOutputBeforeRefresh()``.
    private var pendingPixelOutput: [UInt8] = []
    /// The last frame repainted the terminal from scratch (^L): a kitty placement is put back
    /// after it, a sixel or iTerm2 picture sent again.
    private var lastDrawWasFull = false
    /// ^L asked for a repaint the next frame makes.
    private var repaintPending = false
    /// Kitty image ids: each full view gets its own range.
    private var nextKittyID: UInt32 = 1000

    public init(model: BrowseModel, options: Options) {
        self.model = model
        gallery = GalleryView(model: model, mode: options.mode, listRows: options.listRows, gridRows: options.gridRows)
        stack = [gallery]
    }

    /// The view on top (gets the keys).
    public var top: any BrowseView { stack[stack.count - 1] }

    /// The screen size of the last layout, in cells.
    var screenLines: Int { lines }
    var screenColumns: Int { columns }

    /// Lays every view out for a screen of `lines` x `columns` cells.
    public func layout(lines: Int, columns: Int) {
        self.lines = lines
        self.columns = columns
        for view in stack { view.layout(lines: lines, columns: columns) }
        needsFull = true
    }

    // MARK: Input

    /// Handles one key (or mouse report) at time `now`.
    public func handle(_ key: Key, now: ContinuousClock.Instant = .now) {
        // Focus reports are not keys: the note, the count and the prompt stay as they are.
        if key == .focusIn || key == .focusOut { return focusChanged(key == .focusIn, now: now) }
        message = nil
        messageAlone = false
        if key == .resize { return }
        if prompt != nil {
            editPrompt(key)
            return
        }
        if let help = top as? HelpView {
            apply(help.handleKey(key))
            return
        }
        if case .mouse(let event) = key {
            count = nil
            apply(top.handleMouse(event, now: now))
            return
        }
        if case .character(let c) = key, !(top is HelpView), let digit = c.wholeNumberValue, c.isASCII,
            digit > 0 || count != nil
        {
            count = min(99_999_999, (count ?? 0) * 10 + digit)
            return
        }
        let typed = count
        count = nil
        guard let (action, takesCount) = Bindings.action(for: key, in: top.kind) else { return }
        perform(action, count: takesCount ? typed : nil)
    }

    /// Performs `action` as if its key was pressed.
    public func perform(_ action: Action, count: Int? = nil) {
        switch action {
        case .help:
            apply(.push(HelpView(for: top.kind)))
        case .redraw:
            repaintRequested = true
            repaintPending = true
            needsFull = true
        case .quitAll:
            running = false
        case .search, .searchBackward, .filter:
            let kind: Prompt.Kind = action == .search ? .search : (action == .searchBackward ? .backwardSearch : .filter)
            prompt = Prompt(
                kind: kind, origin: gallery.selected, originItem: gallery.selectedItem,
                previous: kind == .filter ? model.list.filter : model.search, previousForward: searchForward)
            if kind == .filter { prompt?.text = model.list.filter ?? "" } else { searchForward = kind == .search }
        case .searchNext, .searchPrevious:
            let before = (gallery.topRow, gallery.selected, model.searchMatches)
            jumpToMatch(forward: (action == .searchNext) == searchForward, count: max(1, count ?? 1), includingSelection: false)
            redrawAfterSearch(from: before)
        case .mark:
            guard let id = currentItem else { return }
            model.toggleMark(id)
            dirty.insert(id)
            lastStatus = nil
        case .markAll, .invertMarks, .clearMarks:
            switch action {
            case .markAll: model.markAllShown()
            case .invertMarks: model.invertShownMarks()
            default: model.clearMarks()
            }
            needsFull = true
        case .copy, .openExternally, .save:
            let targets = actionTargets
            guard !targets.isEmpty else {
                message = "no item here"
                return
            }
            guard let itemAction else {
                message = "not available here"
                return
            }
            itemAction(action, targets)
        case .clear where cancelActivity != nil:
            let cancel = cancelActivity
            cancelActivity = nil
            cancel?()
        case .clear:
            guard model.list.filter != nil || model.search != nil else { return }
            model.setSearch(nil)
            model.list.setFilter(nil)
            gallery.reanchor()
            needsFull = true
        case .sort, .reverseSort:
            let list = model.list
            if action == .sort {
                list.sort(by: list.sortKey.next, reversed: list.reversed)
            } else {
                list.sort(by: list.sortKey, reversed: !list.reversed)
            }
            gallery.reanchor()
            needsFull = true
        default:
            apply(top.handle(action, count: count))
        }
    }

    /// The item the keys act on: the full view's, else the gallery's selection.
    public var currentItem: ItemID? {
        for view in stack.reversed() {
            if let image = view as? ImageView { return image.item }
        }
        return gallery.selectedItem
    }

    /// What `y`, `o`, `s` and the picker act on: the marked items in gallery order, else the
    /// current item (none on the "loading more" slot or in an empty list).
    public var actionTargets: [ItemID] {
        let marked = model.markedInGalleryOrder
        if !marked.isEmpty { return marked }
        return currentItem.map { [$0] } ?? []
    }

    /// Shows `note` in the status line until the next key; `alone`: the note takes the whole
    /// line (a copied URL, shown in full as far as the screen is wide).
    public func show(_ note: String, alone: Bool = false) {
        message = note
        messageAlone = alone
        lastStatus = nil
    }

    private func editPrompt(_ key: Key) {
        guard var p = prompt else { return }
        let edit = p.edit(key)
        prompt = p
        let forward = p.kind != .backwardSearch
        switch (p.kind, edit) {
        case (_, .ignored):
            return
        case (.filter, .changed):
            // The selection stays on the item selected when the prompt opened, or goes to the
            // nearest one the filter shows: erasing the filter comes back to it.
            model.list.setFilter(p.text)
            gallery.reanchor(to: p.originItem)
        case (.filter, .accepted):
            prompt = nil
        case (.filter, .cancelled):
            prompt = nil
            model.list.setFilter(p.previous)
            gallery.reanchor(to: p.originItem)
        case (_, .changed):
            let before = (gallery.topRow, gallery.selected, model.searchMatches)
            model.setSearch(p.text)
            gallery.select(p.origin)
            if model.search != nil { jumpToMatch(forward: forward, count: 1, includingSelection: true) }
            redrawAfterSearch(from: before)
            return
        case (_, .accepted):
            prompt = nil
            if p.text.isEmpty, let previous = p.previous {
                // An empty search repeats the last one in the new direction, as in less and vim.
                model.setSearch(previous)
                jumpToMatch(forward: forward, count: 1, includingSelection: false)
            }
        case (_, .cancelled):
            prompt = nil
            model.setSearch(p.previous)
            searchForward = p.previousForward
            gallery.select(p.origin)
        }
        needsFull = true
    }

    /// Moves to the `count`th match after (or before) the selection, wrapping at the ends; with
    /// `includingSelection`, the selection itself counts (incremental search).
    private func jumpToMatch(forward: Bool, count: Int, includingSelection: Bool) {
        guard let query = model.search, let matches = model.searchMatches else {
            message = "no search: / or ? starts one"
            return
        }
        let list = model.list
        let n = list.count
        guard n > 0 else { return }
        var position = min(gallery.selected, n - 1)
        var found = 0
        var steps = includingSelection ? 0 : 1
        var wrapped = false
        while found < count {
            var hit: Int?
            while steps <= n {
                let p = ((position + (forward ? steps : -steps)) % n + n) % n
                if (forward && p < position) || (!forward && p > position) { wrapped = true }
                if matches[list[p]] {
                    hit = p
                    break
                }
                steps += 1
            }
            guard let hit else {
                message = "no match for \(query)"
                return
            }
            position = hit
            found += 1
            steps = 1
        }
        gallery.select(position)
        if wrapped { message = forward ? "search wrapped to the top" : "search wrapped to the bottom" }
    }

    /// Marks what a search step changed, from the gallery's (top row, selection, matches)
    /// before it: the whole view when it scrolled; else only the slots on screen whose match
    /// highlight or selection changed (an incremental search's next letter usually changes a
    /// few; only the first can change them all). The status line is redrawn when its text
    /// changes, as always.
    private func redrawAfterSearch(from before: (topRow: Int, selected: Int, matches: ItemBits?)) {
        guard top === gallery, gallery.topRow == before.topRow else {
            needsFull = true
            return
        }
        let moved = before.selected != gallery.selected
        for p in gallery.visiblePositions {
            let selection = moved && (p == before.selected || p == gallery.selected)
            guard case .item(let id)? = gallery.slot(at: p) else {
                // The "loading more" slot: it draws itself with the whole view.
                if selection { needsFull = true }
                continue
            }
            if selection || (before.matches?[id] ?? false) != model.isMatch(id) {
                dirty.insert(id)
            }
        }
    }

    private func apply(_ reaction: Reaction) {
        switch reaction {
        case .none: break
        case .redraw(let ids): dirty.formUnion(ids)
        case .redrawAll: needsFull = true
        case .push(let view):
            if let image = view as? ImageView, let (p, context) = pixels, p != .halfblock {
                image.usePixels(Presenters.make(p, context: context, firstKittyID: nextKittyID), context: context)
                image.worker = pictureWorker
                image.transmitter = transmitter
                nextKittyID = nextKittyID >= 1_000_000_000 ? 1000 : nextKittyID + 1000
            }
            view.layout(lines: lines, columns: columns)
            stack.append(view)
            needsFull = true
        case .pop:
            guard stack.count > 1 else { return }
            let view = stack.removeLast()
            if let image = view as? ImageView {
                image.close()
                // A sixel or iTerm2 picture: the next turn repaints the terminal from scratch
                // (as ^L does), so no pixel of it stays under the gallery's blank cells.
                if image.showsPictureInCells { repaintRequested = true }
                pendingPixelOutput += image.removeOutput()
                gallery.select(id: image.item)
            }
            needsFull = true
        case .quit:
            running = false
        }
    }

    // MARK: Background work

    /// Applies a finished image load: a thumbnail's, or the full view's. `revalidating` and
    /// `replacement` are as in ``ThumbnailLoader/apply(_:_:revalidating:replacement:)``;
    /// `partial`: an animation's frames so far (`ImagePipeline.NotificationKey.partial`), for
    /// the full view only: more frames join the one playing without a redraw.
    public func apply(
        _ ticket: ImagePipeline.Ticket, _ result: Result<DecodedImage, ImagePipeline.Error>,
        revalidating: Bool = false, replacement: Bool = false, partial: Bool = false
    ) {
        if !partial, let id = model.thumbnails.apply(ticket, result, revalidating: revalidating, replacement: replacement) {
            model.invalidate([id])
            dirty.insert(id)
            return
        }
        guard !replacement else { return }
        for view in stack {
            guard let image = view as? ImageView else { continue }
            switch image.apply(ticket, result, partial: partial) {
            case .notThisView: continue
            case .redraw: needsFull = true
            case .framesAdded: break
            }
            return
        }
        // Anything else answers a ticket that was cancelled: dropped.
    }

    /// A further page arrived: its items go under the others (in the sort, through the filter).
    public func appendPage(_ items: [GalleryItem], paging: BrowseModel.Paging) {
        model.append(items)
        model.paging = paging
        gallery.reanchor()
        needsFull = true
    }

    /// The paging state changed without new items (a page started loading or failed).
    public func setPaging(_ paging: BrowseModel.Paging) {
        guard paging != model.paging else { return }
        model.paging = paging
        gallery.pagingChanged()
    }

    /// Hands the gallery's viewport to the thumbnail loader, and asks for the next page near
    /// the end. Call after every batch of keys, so items that flew past are never requested.
    public func updateInterest() {
        guard top === gallery || top is HelpView else { return }
        // Near the end of what is loaded: fetch the next page (a failed page waits for `r`).
        if case .ready = model.paging, gallery.visiblePositions.upperBound + gallery.layout.slotsPerPage >= model.list.count {
            model.loadMore()
            gallery.pagingChanged()
            viewDirty = true
        }
        // A move that does not scroll changes nothing the loader looks at: skip it (with 220
        // thumbnails on screen and as many loading, re-prioritising every load on each key
        // cost tens of ms).
        let key = InterestKey(
            visible: gallery.visiblePositions, perRow: gallery.layout.perRow, box: gallery.layout.pixelBox,
            list: model.list.generation, paging: model.paging)
        if key == lastInterest { return }
        lastInterest = key
        let interest = gallery.interest
        let changed = model.thumbnails.update(interest, pixelBox: gallery.layout.pixelBox)
        model.invalidate(changed.filter { id in
            if case .loaded = model.thumbnails.phase(id) { return false }
            return true
        })
        model.pruneArt(keeping: interest.keep)
        dirty.formUnion(changed)
    }

    /// What the last `updateInterest` was computed from.
    private struct InterestKey: Equatable {
        var visible: Range<Int>
        var perRow: Int
        var box: PixelSize
        var list: Int
        var paging: BrowseModel.Paging
    }
    private var lastInterest: InterestKey?
    // MARK: Real pixels

    /// A new cell size in pixels (TIOCGWINSZ after SIGWINCH: the terminal's font changed):
    /// every full view's picture comes off the screen (before the next refresh), each gets a
    /// presenter for the new cells, and the layout that follows asks for a decode at the new
    /// pixel box. Nothing happens with half blocks or when the size is the same. Call before
    /// ``layout(lines:columns:)``.
    public func updateCellPixels(width: Int, height: Int) {
        guard let (p, current) = pixels, p != .halfblock, width > 0, height > 0,
            width != current.cellWidth || height != current.cellHeight
        else { return }
        var context = current
        context.cellWidth = width
        context.cellHeight = height
        pixels = (p, context)
        for view in stack {
            guard let image = view as? ImageView else { continue }
            pendingPixelOutput += image.removeOutput()
            image.usePixels(Presenters.make(p, context: context, firstKittyID: nextKittyID), context: context)
            nextKittyID = nextKittyID >= 1_000_000_000 ? 1000 : nextKittyID + 1000
        }
        needsFull = true
    }

    /// Bytes for the terminal before curses's refresh: pictures of closed views, of views the
    /// help covers, and stale ones (another item, a resize) come off the screen.
    /// A sixel or iTerm2 picture taken off this way (not covered by the next one) also asks for
    /// a repaint of the whole terminal in this turn (``repaintRequested``, which the main loop
    /// reads after these bytes): xterm keeps sixel pixels under erased cells that curses does
    /// not rewrite, which left a strip of the last picture (the thumbnail preview, the item
    /// before `n`) around a smaller new one.
    public func pixelOutputBeforeRefresh() -> [UInt8] {
        var out = pendingPixelOutput
        pendingPixelOutput = []
        for (i, view) in stack.enumerated() {
            guard let image = view as? ImageView else { continue }
            let inCells = image.showsPictureInCells
            let off = i == stack.count - 1 ? image.staleOutput() : image.removeOutput()
            if inCells, !off.isEmpty { repaintRequested = true }
            out += off
        }
        return out
    }

    /// Bytes for the terminal after curses's refresh: the top full view's picture, drawn when
    /// new, put back after a full repaint.
    public func pixelOutputAfterRefresh() -> [UInt8] {
        defer { lastDrawWasFull = false }
        guard let image = top as? ImageView else { return [] }
        // Off screen (tmux shows another window): nothing goes out; the picture is put back,
        // as after a full repaint, once the pane shows again.
        guard paneVisible else { return [] }
        let putBack = putBackPicture
        putBackPicture = false
        // ^L's repaint cleared the screen (ED 2), which in kitty deletes the images on it with
        // their data: placed again by id, the picture stayed blank (kitty 0.26) until the next
        // step. The view forgets it, so it is sent again (tmux's put-back keeps the data: `a=p`).
        var out = lastDrawWasFull && image.pixelProtocol == .kitty ? image.removeOutput() : []
        out += image.terminalOutput(fullRepaint: lastDrawWasFull || putBack)
        // Inside tmux the picture goes where the outer terminal's cursor is, which tmux moves to
        // the pane's only after reading the pane's output: the cursor is moved there first,
        // through passthrough, in the outer terminal's cells (the pane's origin added).
        guard !out.isEmpty, pixels?.1.tmuxPassthrough == true, let origin = image.pictureOrigin else { return out }
        let row = tmuxPaneOrigin.row + origin.row + 1, column = tmuxPaneOrigin.column + origin.column + 1
        return Passthrough.tmux(Array("\u{1B}[\(row);\(column)H".utf8)) + out
    }

    // MARK: The pane on screen (tmux)

    /// Inside tmux with a pixel protocol through passthrough: asks tmux whether the pane is on
    /// a screen (the wiring sets it: it runs ``TmuxPane/ask(pane:timeoutMilliseconds:answer:)``
    /// and hands the answer to ``paneVisibilityAnswered(_:)`` on the main thread). Nil (outside
    /// tmux, half blocks): the pane is always taken as visible and nothing is asked.
    public var askPaneVisibility: (() -> Void)?
    /// False while tmux shows another window, session or nothing (detached) where the pane was:
    /// no picture goes out, and the one shown has come off (kitty: its placement deleted, the
    /// image kept in the terminal by id); it is put back when the pane shows again.
    public private(set) var paneVisible = true
    /// The last focus report (``Key/focusIn``/``Key/focusOut``); nil until one came (tmux's
    /// `focus-events` is off, the default, or the terminal sends none): then tmux is asked.
    public private(set) var paneFocused: Bool?
    /// A question to tmux is out (its answer not yet in).
    private var paneAskInFlight = false
    /// When tmux may be asked next.
    private var nextPaneAsk = ContinuousClock.now
    /// The next turn puts the top full view's picture back (the pane shows again).
    private var putBackPicture = false
    /// Least time between two questions to tmux, in ms: a window switch takes the picture off
    /// within this plus one `tmux` run (a few ms); about 1% of one core while asking.
    public static let paneAskInterval = 300
    /// Questions asked of tmux (tests).
    public private(set) var paneAsks = 0
    /// The pane's top-left cell on the outer terminal (0-based), as tmux last said (the wiring
    /// sets it from ``TmuxPane/State``).
    public var tmuxPaneOrigin = (column: 0, row: 0)

    /// When tmux is to be asked whether the pane shows (the wiring's `poll` wakes then): only
    /// while a full view with a pixel protocol is on top, no question is out, and focus reports
    /// do not already say the pane has the focus (a focused pane is on screen). Nil otherwise.
    public var paneCheckDue: ContinuousClock.Instant? {
        guard askPaneVisibility != nil, !paneAskInFlight, let image = top as? ImageView, image.pixelProtocol != .halfblock
        else { return nil }
        // Asked once even when focused: the pane's origin and the client's tty.
        if paneFocused == true && paneVisible && paneAsks > 0 { return nil }
        return nextPaneAsk
    }

    /// Asks tmux when ``paneCheckDue`` has come (the main loop calls it every turn).
    public func checkPane(now: ContinuousClock.Instant = .now) {
        guard let due = paneCheckDue, due <= now, let ask = askPaneVisibility else { return }
        paneAskInFlight = true
        paneAsks += 1
        ask()
    }

    /// tmux's answer (nil: tmux could not be asked; what was known stays).
    public func paneVisibilityAnswered(_ visible: Bool?, now: ContinuousClock.Instant = .now) {
        paneAskInFlight = false
        nextPaneAsk = now + .milliseconds(Self.paneAskInterval)
        if let visible { setPaneVisible(visible) }
    }

    /// A focus report: focus in means the pane is on screen; focus out asks tmux at once (a
    /// pane of a split window loses the focus and stays on screen).
    func focusChanged(_ focused: Bool, now: ContinuousClock.Instant = .now) {
        guard askPaneVisibility != nil else { return }
        paneFocused = focused
        if focused {
            setPaneVisible(true)
        } else {
            nextPaneAsk = now
        }
    }

    /// The pane went off screen or came back: the top full view's picture comes off (before the
    /// next refresh) or goes back (after it).
    func setPaneVisible(_ visible: Bool) {
        guard visible != paneVisible else { return }
        paneVisible = visible
        if visible {
            putBackPicture = true
        } else if let image = top as? ImageView {
            let bytes = image.hideOutput()
            pendingPixelOutput += bytes
            if !bytes.isEmpty { writeAroundTmux?(image.hideOutput(wrapped: false)) }
        }
    }

    /// Writes bytes straight to the outer terminal, around tmux (the wiring sets it: the
    /// client's tty, ``TmuxPane/write(_:toClientTTY:)``). tmux 3.3 drops passthrough from a
    /// pane that is off screen, so the command that takes a kitty picture off after a window
    /// switch goes both ways: through tmux (reaches the terminal with `allow-passthrough all`)
    /// and this (a placement deleted twice is deleted once).
    public var writeAroundTmux: (([UInt8]) -> Void)?

    /// Bytes that take every picture off the screen (at exit, before the screen closes).
    public func pixelOutputAtExit() -> [UInt8] {
        var out = pendingPixelOutput
        pendingPixelOutput = []
        for view in stack { if let image = view as? ImageView { out += image.removeOutput() } }
        return out
    }

    /// Withdraws every load (at exit).
    public func cancelAll() {
        model.thumbnails.cancelAll()
        for view in stack { (view as? ImageView)?.close() }
    }

    // MARK: Drawing

    /// True while a spinner on screen turns (the loop then wakes every `Spinner.interval` ms).
    public var animating: Bool { top.animating }

    /// True while there is work for idle moments: the search index is not built yet.
    public var hasIdleWork: Bool { model.list.needsIndexing }

    /// Does one slice of idle work (a few ms): indexes the next items for search, so that the
    /// first search key does not pay for the whole index.
    public func idleWork() { model.list.indexSome() }
    /// When the top full view's animation shows its next frame (nil: none is playing): the
    /// wiring's `poll` wakes then, besides the spinner's ticks.
    /// None while the pane is off screen (tmux shows another window: the loop does not wake
    /// for frames nobody sees; the frame due then is shown when it is back).
    public var frameDue: ContinuousClock.Instant? { paneVisible ? (top as? ImageView)?.frameDue : nil }

    /// Moves the top full view's animation to the frame due at `now`; a new frame marks the
    /// image area alone for the next draw (the status line is drawn only when its text changes).
    public func advanceFrames(now: ContinuousClock.Instant = .now) {
        if let image = top as? ImageView, image.advanceFrame(now: now) { viewDirty = true }
    }

    /// Advances the spinner and marks what it turns in.
    public func tick() {
        model.tickSpinner()
        apply(top.tick())
        viewDirty = true
    }

    /// Draws what changed since the last frame: everything after a scroll, a layout change or a
    /// new view; otherwise the changed items alone; then the status line when its text changed.
    /// - Returns: true when anything was drawn (the wiring then refreshes the terminal).
    @discardableResult
    public func draw(on canvas: any Canvas) -> Bool {
        var drew = false
        if needsFull {
            let base = stack.lastIndex { !$0.isOverlay } ?? 0
            for view in stack[base...] { view.draw(on: canvas, items: nil) }
            drew = true
            lastDrawWasFull = repaintPending
            repaintPending = false
            lastStatus = nil
        } else if !dirty.isEmpty || viewDirty, !top.isOverlay {
            top.draw(on: canvas, items: dirty)
            drew = true
        }
        needsFull = false
        viewDirty = false
        dirty.removeAll()
        let status = statusText()
        if lastStatus.map({ $0 != status }) ?? true {
            StatusLine.draw(on: canvas, left: status.0, right: status.1)
            lastStatus = status
            drew = true
        }
        return drew
    }

    /// The status line: the prompt while typing, else the top view's (with the pending count
    /// and any note), shortened on a narrow screen.
    func statusText() -> (String, String) {
        if let prompt {
            var right = ""
            if prompt.kind != .filter, let matches = model.searchMatches {
                right = "\(matches.population) matching"
            } else if prompt.kind == .backwardSearch {
                right = "search backward (help: H)"
            } else if prompt.kind == .filter {
                right = "\(model.list.count) of \(model.list.total)"
            }
            return ("\(prompt.kind.sigil)\(prompt.text)▏", right)
        }
        if let message, messageAlone { return (" " + message, "") }
        var (left, right) = top.status()
        if let message { left += "  \(message)" }
        if let activity { left += "  \(activity)" }
        if !model.marks.isEmpty {
            let hidden = model.hiddenMarks
            right = "\(model.marks.count) marked\(hidden > 0 ? " (\(hidden) hidden)" : "")  " + right
        }
        if let count { right = "\(count)  " + right }
        func fits() -> Bool { DisplayWidth.width(left) + DisplayWidth.width(right) + 2 <= columns }
        if !fits(), top === gallery {
            // Narrow: the counts in short (✓ loaded, … loading, ✗ failed), then the position
            // before the name.
            let (loaded, loading, failed) = model.thumbnails.counts
            let marked = model.marks.isEmpty ? "" : "●\(model.marks.count) "
            right = "\(count.map { "\($0)  " } ?? "")\(marked)✓\(loaded) …\(loading) ✗\(failed)  H help"
            if !fits() {
                let list = model.list
                let position = "\(min(gallery.selected + 1, list.count))/\(list.count)\(model.paging.hasMore ? "+" : "")"
                left = " \(position) \(model.name)" + (message.map { "  \($0)" } ?? "")
                right = "\(marked)✓\(loaded) …\(loading) ✗\(failed)"
            }
        }
        return (left, right)
    }
}
