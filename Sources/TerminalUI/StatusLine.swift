/// The bottom line: `left` text at the left, `right` at the right, in reverse video.
@MainActor
public enum StatusLine {
    public static func draw(on screen: any Canvas, left: String, right: String) {
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

