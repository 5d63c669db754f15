/// The bottom line: `left` text at the left, `right` at the right, in reverse video.
@MainActor
public enum StatusLine {
    public static func draw(on screen: Screen, left: String, right: String) {
        let y = screen.lines - 1
        // The right part (counters, position) wins over the left (names, URLs) when space is short.
        let rightWidth = min(DisplayWidth.width(right), max(0, screen.columns - 12))
        screen.clear(y: y, x: 0, width: screen.columns)
        screen.text("", y: y, x: 0, width: screen.columns, role: .status, pad: true)
        screen.text(left, y: y, x: 0, width: max(0, screen.columns - rightWidth - 2), role: .status)
        if rightWidth > 0 {
            screen.text(right, y: y, x: screen.columns - rightWidth - 1, width: rightWidth, role: .status)
        }
    }
}

/// The key help (`?`): a box in the middle of the screen; any key closes it.
@MainActor
public enum HelpOverlay {
    /// Key bindings shown by `?`, as (keys, what they do).
    public static let bindings: [(String, String)] = [
        ("↑ ↓ j k", "move"),
        ("PgUp PgDn b Space ^B ^F", "page up / down"),
        ("^U ^D", "half page up / down"),
        ("Home End g G", "first / last"),
        ("Enter → l", "open the full view"),
        ("n p ] [", "next / previous (full view)"),
        ("q Esc ← h", "back from the full view"),
        ("r", "retry the row, fresh download"),
        ("^L", "redraw"),
        ("? F1", "this help"),
        ("q", "quit (from the table)"),
        ("Q", "quit from anywhere"),
    ]

    public static func draw(on screen: Screen) {
        let keysWidth = bindings.map { DisplayWidth.width($0.0) }.max() ?? 0
        let textWidth = bindings.map { DisplayWidth.width($0.1) }.max() ?? 0
        let width = min(screen.columns, keysWidth + textWidth + 6)
        let height = min(screen.lines - 1, bindings.count + 4)
        let x0 = max(0, (screen.columns - width) / 2)
        let y0 = max(0, (screen.lines - 1 - height) / 2)
        for line in 0..<height {
            screen.text("", y: y0 + line, x: x0, width: width, role: .status, pad: true)
        }
        screen.text(" Vitrine keys ", y: y0, x: x0 + 2, width: width - 4, role: .selection)
        for (i, binding) in bindings.enumerated() where 2 + i < height - 1 {
            screen.text(binding.0, y: y0 + 2 + i, x: x0 + 2, width: keysWidth, role: .status)
            screen.text(binding.1, y: y0 + 2 + i, x: x0 + 4 + keysWidth, width: width - keysWidth - 6, role: .status)
        }
    }
}
