import TerminalUI

/// A view of the browser: the gallery (list or grid), the full view, the help. The app keeps
/// them in a stack; the top one gets the keys.
///
/// A view lays itself out for the screen, turns actions into `Reaction`s and draws on a
/// `Canvas`; it never touches the terminal, so every one of them is tested on a `TestCanvas`.
@MainActor
public protocol BrowseView: AnyObject {
    /// Which bindings apply (the help lists these).
    var kind: ViewKind { get }
    /// True when the view is drawn over the one below (the help) instead of covering it.
    var isOverlay: Bool { get }
    /// Lays out for a screen of `lines` x `columns` cells; the last line is the status line.
    func layout(lines: Int, columns: Int)
    /// Handles an action with the count typed before it (nil: none).
    func handle(_ action: Action, count: Int?) -> Reaction
    /// Handles a mouse report at time `now` (double clicks are timed here).
    func handleMouse(_ event: MouseEvent, now: ContinuousClock.Instant) -> Reaction
    /// Draws the view; `items` nil: everything, else only those items.
    func draw(on canvas: any Canvas, items: Set<ItemID>?)
    /// The status line's left and right parts.
    func status() -> (left: String, right: String)
    /// True while something on screen animates (a spinner).
    var animating: Bool { get }
    /// Advances animations; returns what to redraw.
    func tick() -> Reaction
}

extension BrowseView {
    public var isOverlay: Bool { false }
    public func handleMouse(_ event: MouseEvent, now: ContinuousClock.Instant) -> Reaction { .none }
    public var animating: Bool { false }
    public func tick() -> Reaction { .none }
}
