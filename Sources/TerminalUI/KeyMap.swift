import CNcursesw

/// What a key asks for. Keys are bound to actions in one table per view (`KeyMap`).
public enum Action: Equatable, Sendable {
    case up, down, pageUp, pageDown, halfPageUp, halfPageDown, first, last
    case open, back, quit, quitAll, next, previous, retry, help, redraw, resize
}

/// The key bindings: what users of less, vim, ranger and htop expect (see the man page).
public enum KeyMap {
    private static func ctrl(_ c: Character) -> Int32 { Int32(c.asciiValue! & 0x1F) }
    private static func ch(_ c: Character) -> Int32 { Int32(c.asciiValue!) }

    /// Bindings in the table.
    public static func tableAction(_ key: Int32) -> Action? {
        switch key {
        case KEY_UP, ch("k"): return .up
        case KEY_DOWN, ch("j"): return .down
        case KEY_PPAGE, ch("b"), ctrl("B"): return .pageUp
        case KEY_NPAGE, ch(" "), ctrl("F"): return .pageDown
        case ctrl("U"): return .halfPageUp
        case ctrl("D"): return .halfPageDown
        case KEY_HOME, ch("g"): return .first
        case KEY_END, ch("G"): return .last
        case KEY_ENTER, 10, 13, ch("l"), KEY_RIGHT: return .open
        case ch("q"): return .quit
        case ch("Q"): return .quitAll
        case ch("r"): return .retry
        case ch("?"), KEY_F0 + 1: return .help
        case ctrl("L"): return .redraw
        case KEY_RESIZE: return .resize
        default: return nil
        }
    }

    /// Bindings in the full-size image view.
    public static func imageAction(_ key: Int32) -> Action? {
        switch key {
        case ch("q"), 27, ch("h"), KEY_LEFT, KEY_BACKSPACE, 127: return .back
        case ch("Q"): return .quitAll
        case ch("n"), ch("]"), KEY_DOWN, ch("j"), ch(" "), KEY_NPAGE: return .next
        case ch("p"), ch("["), KEY_UP, ch("k"), ch("b"), KEY_PPAGE: return .previous
        case ch("r"): return .retry
        case ch("?"), KEY_F0 + 1: return .help
        case ctrl("L"): return .redraw
        case KEY_RESIZE: return .resize
        default: return nil
        }
    }
}
