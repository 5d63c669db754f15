/// What a key asks for. Keys are bound to actions in one table (`Bindings`).
public enum Action: Hashable, Sendable {
    case up, down, left, right, pageUp, pageDown, halfPageUp, halfPageDown
    /// First item (with a count N: item N, as `NG`).
    case first
    /// Last item (with a count N: item N).
    case last
    /// With a count N: N percent into the list (`50%`).
    case percent
    case open, back, quit, quitAll
    /// Next and previous item in the full view.
    case next, previous
    /// The full view's zoom: a step in or out of `Viewport.steps`, fit the screen, 1:1 pixels
    /// (pans are `up`, `down`, `left`, `right` there).
    case zoomIn, zoomOut, zoomFit, actualSize
    /// Pause or resume the full view's animation (animated GIF and WebP).
    case toggleAnimation
    case retry, help, redraw
    /// List ⇄ grid.
    case toggleView
    /// Bigger and smaller thumbnails.
    case bigger, smaller
    /// Start a search (`/`) or a backward search (`?`); the next and previous match in the
    /// search's direction (`n`, `N`: after `?`, `n` goes up, as in less and vim).
    case search, searchBackward, searchNext, searchPrevious
    /// Start a filter (`&`); clear the filter and the search (`Esc`).
    case filter, clear
    /// Cycle the sort key; reverse the sort.
    case sort, reverseSort
    /// Toggle the selected item's mark; mark every shown item; invert the shown items' marks;
    /// unmark everything.
    case mark, markAll, invertMarks, clearMarks
    /// On the marked items, or else the selected one: copy their URLs or paths (OSC 52), open
    /// them in the user's viewer, save them to the save folder.
    case copy, openExternally, save
}

/// What handling an action asks of the app.
public enum Reaction {
    /// Nothing to redraw.
    case none
    /// Redraw these items alone.
    case redraw(Set<ItemID>)
    /// Redraw the whole view (it scrolled, changed layout or was uncovered); never clears the
    /// terminal: unchanged cells cost nothing.
    case redrawAll
    /// Show a view on top (the full view, the help).
    case push(any BrowseView)
    /// Close the top view.
    case pop
    case quit
}
