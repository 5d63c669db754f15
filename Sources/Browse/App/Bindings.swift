import TerminalUI

/// Where a binding applies.
public enum ViewKind: String, CaseIterable, Sendable {
    case list, grid
    /// The full-size view of one item.
    case image = "full view"
}

/// One row of the key table: the keys, what they do, where.
public struct Binding: Sendable {
    /// Keys that trigger the action.
    public var keys: [Key]
    /// How the keys are written in the help, `--help` and the man page ("↑ k").
    public var label: String
    public var action: Action
    /// One line for the help overlay, `--help` and the man page.
    public var help: String
    /// Views where the binding applies.
    public var views: Set<ViewKind>
    /// True when a count typed before the key (`5j`, `50G`) applies.
    public var takesCount: Bool

    init(_ label: String, _ keys: [Key], _ action: Action, _ help: String, _ views: Set<ViewKind>, count: Bool = false) {
        self.label = label
        self.keys = keys
        self.action = action
        self.help = help
        self.views = views
        self.takesCount = count
    }
}

/// The one key table. It drives key handling (`action(for:in:)`), the help overlay (`H`),
/// the keys part of `vitrine --help` (`helpText()`), and a unit test checks the man page's
/// KEYS section against it. Bindings follow less, vim, nsxiv and ranger: in the gallery `?`
/// is a backward search as in less and vim, so the help is `H` (less's) and F1 there; the full
/// view, with nothing to search, keeps `?` for the help too.
public enum Bindings {
    static let gallery: Set<ViewKind> = [.list, .grid]
    static let everywhere: Set<ViewKind> = [.list, .grid, .image]

    /// Every binding, in the order the help lists them.
    public static let table: [Binding] = [
        Binding("↑ ↓ k j", [.up, .character("k"), .down, .character("j")], .down, "move up / down (a count repeats: 5j)", gallery, count: true),
        Binding("← → h l", [.left, .character("h"), .right, .character("l")], .right, "move left / right", [.grid], count: true),
        Binding("PgUp PgDn b Space ^B ^F", [.pageUp, .character("b"), .control("B"), .pageDown, .character(" "), .control("F")], .pageDown, "page up / down", gallery, count: true),
        Binding("^U ^D", [.control("U"), .control("D")], .halfPageDown, "half page up / down", gallery, count: true),
        Binding("Home End g G", [.home, .character("g"), .end, .character("G")], .last, "first / last item (with a count N: item N, as 50G)", gallery, count: true),
        Binding("N%", [.character("%")], .percent, "go N percent into the list (50%)", gallery, count: true),
        Binding("Enter → l", [.enter, .right, .character("l")], .open, "open the full view", [.list]),
        Binding("Enter", [.enter], .open, "open the full view", [.grid]),
        Binding("v", [.character("v")], .toggleView, "switch between the list and the grid", gallery),
        Binding("+ -", [.character("+"), .character("="), .character("-")], .bigger, "bigger / smaller thumbnails", gallery),
        Binding("/ ?", [.character("/"), .character("?")], .search, "search titles and file names as you type (? backward)", gallery),
        Binding("n N", [.character("n"), .character("N")], .searchNext, "next / previous match in the search's direction (wraps)", gallery, count: true),
        Binding("&", [.character("&")], .filter, "show only items matching a filter", gallery),
        Binding("Esc", [.escape], .clear, "clear the filter and the search", gallery),
        Binding(",", [.character(",")], .sort, "sort by gallery order, title, file name, size", gallery),
        Binding("S", [.character("S")], .reverseSort, "reverse the sort", gallery),
        Binding("p n [ ] PgUp PgDn", [.character("p"), .character("["), .character("b"), .pageUp,
                                      .character("n"), .character("]"), .character(" "), .pageDown],
                .next, "previous / next item", [.image], count: true),
        Binding("↑ ↓ k j", [.up, .character("k"), .down, .character("j")], .down, "pan up / down", [.image], count: true),
        Binding("← → h l", [.left, .character("h"), .right, .character("l")], .right, "pan left / right", [.image], count: true),
        Binding("+ z", [.character("+"), .character("z")], .zoomIn, "zoom in a step", [.image], count: true),
        Binding("- Z", [.character("-"), .character("Z")], .zoomOut, "zoom out a step", [.image], count: true),
        Binding("0 w", [.character("0"), .character("w")], .zoomFit, "fit the screen", [.image]),
        Binding("=", [.character("=")], .actualSize, "1:1 pixels", [.image]),
        Binding("a", [.character("a")], .toggleAnimation, "pause / play an animated GIF or WebP", [.image]),
        Binding("q Esc Backspace", [.character("q"), .escape, .backspace], .back, "back to the gallery", [.image]),
        Binding("m", [.character("m")], .mark, "mark or unmark the item", everywhere),
        Binding("A", [.character("A")], .markAll, "mark every item shown", gallery),
        Binding("M", [.character("M")], .invertMarks, "invert the marks of the items shown", gallery),
        Binding("u", [.character("u")], .clearMarks, "unmark everything", gallery),
        Binding("y", [.character("y")], .copy, "copy the URLs or paths (marked, else this item)", everywhere),
        Binding("o", [.character("o")], .openExternally, "open in the viewer (marked, else this item)", everywhere),
        Binding("s", [.character("s")], .save, "save to the save folder (marked, else this item)", everywhere),
        Binding("r", [.character("r")], .retry, "retry with a fresh download", everywhere),
        Binding("^L", [.control("L")], .redraw, "redraw the screen", everywhere),
        Binding("H F1", [.character("H"), .function(1)], .help, "this help", gallery),
        Binding("? H F1", [.character("?"), .character("H"), .function(1)], .help, "this help", [.image]),
        Binding("q", [.character("q")], .quit, "quit", gallery),
        Binding("Q", [.character("Q")], .quitAll, "quit from anywhere", everywhere),
    ]

    /// Keys whose binding names two opposite actions: the first half of the row's keys take
    /// the first action, as "↑ ↓" reads.
    static let opposites: [Action: Action] = [
        .down: .up, .right: .left, .last: .first, .pageDown: .pageUp, .halfPageDown: .halfPageUp, .bigger: .smaller,
        .searchNext: .searchPrevious, .next: .previous, .search: .searchBackward,
    ]

    /// The action `key` triggers in `view`, and whether a count applies.
    public static func action(for key: Key, in view: ViewKind) -> (action: Action, takesCount: Bool)? {
        for binding in table where binding.views.contains(view) {
            guard let i = binding.keys.firstIndex(of: key) else { continue }
            return (resolve(binding, keyIndex: i), binding.takesCount)
        }
        return nil
    }

    /// The action of the key at `keyIndex` in a row that binds opposites.
    static func resolve(_ binding: Binding, keyIndex i: Int) -> Action {
        guard let opposite = opposites[binding.action] else { return binding.action }
        switch binding.action {
        case .bigger: return binding.keys[i] == .character("-") ? .smaller : .bigger
        case .searchNext: return binding.keys[i] == .character("N") ? .searchPrevious : .searchNext
        case .search: return binding.keys[i] == .character("?") ? .searchBackward : .search
        default: return i < binding.keys.count / 2 ? opposite : binding.action
        }
    }

    /// The bindings for `view`, in help order.
    public static func bindings(in view: ViewKind) -> [Binding] {
        table.filter { $0.views.contains(view) }
    }

    /// The keys part of `vitrine --help`: one line per binding, with the views it applies in
    /// when that is not the whole gallery (list and grid) or everywhere. Padded by character
    /// count: `--help` runs without a terminal locale, and every label is one column a
    /// character.
    public static func helpText() -> String {
        let width = table.map(\.label.count).max() ?? 0
        return table.map { b in
            let views = b.views == everywhere || b.views == gallery
                ? "" : " (" + ViewKind.allCases.filter(b.views.contains).map(\.rawValue).joined(separator: ", ") + ")"
            let pad = String(repeating: " ", count: max(0, width - b.label.count))
            return "  \(b.label)\(pad)  \(b.help)\(views)"
        }.joined(separator: "\n")
    }
}
