import CNcursesw
import HalfBlock

#if canImport(Glibc)
import Glibc
#endif

/// Owns the curses screen: set-up, teardown on every exit path, colour capability, colour-pair
/// allocation and the drawing primitives. The only type that calls ncurses.
///
/// - Important: main actor only. ncurses keeps global state and is not thread-safe.
@MainActor
public final class Screen: Canvas {
    /// Why the screen could not start.
    public enum Error: Swift.Error, CustomStringConvertible {
        case notATerminal
        case unknownTerminal(String)
        case cannotAddressCursor(String)

        public var description: String {
            switch self {
            case .notATerminal: return "standard input and output must be a terminal"
            case .unknownTerminal(let term): return "unknown terminal type '\(term)' (check TERM)"
            case .cannotAddressCursor(let term):
                return "terminal type '\(term)' cannot move the cursor; a full-screen browser needs one that can"
            }
        }
    }

    /// Text styles, mapped to attributes in one place (the theme).
    public enum Role: Sendable {
        case normal, title, dim, selection, status, error, spinner
        /// A search match (bold and underlined).
        case match
    }

    /// The colour mode images are rendered in.
    public private(set) var colorMode: ColorMode = .none
    /// Screen size in cells.
    public private(set) var columns = 80
    public private(set) var lines = 24
    private var screen: OpaquePointer?
    private var hasColors = false
    private var directColor = false
    private var active = false

    /// Starts curses on the controlling terminal.
    ///
    /// - Parameters:
    ///   - environment: the process environment (TERM, COLORTERM, NO_COLOR).
    ///   - colorOverride: `--colors`, if given.
    /// - Throws: `Screen.Error` when stdin/stdout are not a terminal or TERM is unknown.
    public init(environment: [String: String], colorOverride: ColorMode? = nil) throws {
        guard isatty(0) == 1, isatty(1) == 1 else { throw Error.notATerminal }
        setlocale(LC_ALL, "")
        let term = environment["TERM"] ?? "dumb"
        TerminalRestore.saveTerminalState()
        var chosen: OpaquePointer?
        // `--colors truecolor` asks for 24-bit colour as COLORTERM=truecolor does: through the
        // direct-colour terminfo entry, when TERM has one (ncurses draws only what terminfo says).
        var announced = environment
        if colorOverride == .truecolor { announced["COLORTERM"] = "truecolor" }
        if let direct = ColorSupport.directVariant(term: term, environment: announced) {
            chosen = vt_newterm(direct)
        }
        if chosen == nil { chosen = vt_newterm(term) }
        guard let chosen else { throw Error.unknownTerminal(term) }
        guard vt_can_address_cursor() != 0 else {
            endwin()
            delscreen(chosen)
            throw Error.cannotAddressCursor(term)
        }
        screen = chosen
        active = true
        TerminalRestore.install(screen: self)
        cbreak()
        noecho()
        nonl()
        keypad(vt_stdscr(), true)
        nodelay(vt_stdscr(), true)
        curs_set(0)
        set_escdelay(25)
        hasColors = has_colors()
        if hasColors {
            start_color()
            use_default_colors()
        }
        let terminal = ColorSupport.Terminal(
            colors: hasColors ? Int(vt_colors()) : 0, rgbFlag: vt_tigetflag("RGB") > 0)
        colorMode = ColorSupport.mode(terminal: terminal, environment: environment, override: colorOverride)
        directColor = colorMode == .truecolor
        updateSize()
    }

    /// True when wide glyphs (▀, braille) can be drawn: the locale's codeset is UTF-8.
    public var unicodeGlyphs: Bool {
        String(cString: vt_codeset()).uppercased().filter { $0 != "-" } == "UTF8"
    }

    /// Ends curses and gives the terminal back as it was. Safe to call twice.
    public func close() {
        guard active else { return }
        if focusEvents { TerminalRestore.writeNow(TerminalRestore.focusOff) }
        active = false
        endwin()
        if let screen { delscreen(screen) }
        screen = nil
        TerminalRestore.uninstall()
    }

    /// Gives the terminal back for a while (a terminal program run from the browser, as
    /// `o` does): the mouse off, then `endwin` (curses remembers its modes). `resume` takes it
    /// back.
    public func suspend(mouse: Bool) {
        guard active else { return }
        if mouse { _ = vt_mouse_enable(0) }
        if focusEvents { TerminalRestore.writeNow(TerminalRestore.focusOff) }
        endwin()
    }

    /// Takes the terminal back after `suspend`: curses's modes, the mouse, and a full repaint
    /// at the next refresh (the program drew over the screen); the size is read again.
    public func resume(mouse: Bool) {
        guard active else { return }
        refresh()
        if mouse { _ = vt_mouse_enable(1) }
        if focusEvents { TerminalRestore.writeNow(TerminalRestore.focusOn) }
        clearok(vt_stdscr(), true)
        updateSize()
    }

    /// Re-reads the size after KEY_RESIZE.
    public func updateSize() {
        columns = Int(vt_cols())
        lines = Int(vt_lines())
    }

    /// Clears the whole screen (next refresh repaints everything).
    public func clearAll() { erase() }

    /// Forces a full repaint (^L).
    public func repaintAll() { clearok(vt_stdscr(), true) }

    /// Sends pending changes to the terminal.
    public func refresh() { wnoutrefresh(vt_stdscr()); doupdate() }

    /// Reads every pending key, decoded, without waiting. Mouse reports come as `.mouse`
    /// once `enableMouse(true)` asked for them; codes Vitrine has no use for are skipped, and so
    /// are terminal replies that came after the probe's deadline (``LateReplies``).
    public func pendingKeys() -> [Key] {
        var codes: [LateReplies.Code] = []
        var mice: [Int: Key] = [:]
        var code: UInt32 = 0
        while true {
            let rc = vt_get_wch(&code)
            if rc == vt_err() { break }
            let isKeyCode = rc == vt_key_code_yes()
            if isKeyCode && Int32(bitPattern: code) == vt_key_mouse() {
                // Read now: getmouse takes the event that KEY_MOUSE announced.
                var y: Int32 = 0, x: Int32 = 0
                switch vt_get_mouse(&y, &x) {
                case 1: mice[codes.count] = .mouse(MouseEvent(.press, y: Int(y), x: Int(x)))
                case 4: mice[codes.count] = .mouse(MouseEvent(.wheelUp, y: Int(y), x: Int(x)))
                case 5: mice[codes.count] = .mouse(MouseEvent(.wheelDown, y: Int(y), x: Int(x)))
                default: break
                }
            }
            codes.append((code, isKeyCode))
        }
        return LateReplies.scan(codes).compactMap { item in
            guard case .code(let i) = item else { return item == .focus(true) ? .focusIn : .focusOut }
            if codes[i].isKeyCode && Int32(bitPattern: codes[i].code) == vt_key_mouse() { return mice[i] }
            return Key.decode(codes[i].code, isKeyCode: codes[i].isKeyCode)
        }
    }

    /// Focus reporting is on (``enableFocusEvents(_:)``).
    public private(set) var focusEvents = false

    /// Turns focus reporting (DECSET 1004: the terminal, or tmux for its pane when tmux's
    /// `focus-events` is on, sends `CSI I` on focus in and `CSI O` on focus out) on or off.
    /// On binds both to ``Key/focusInCode`` and ``Key/focusOutCode`` (`define_key`, replacing
    /// any terminfo `kxIN`/`kxOUT` binding), so they come as ``Key/focusIn`` and
    /// ``Key/focusOut``, never as Escape and letters. The mode is turned off again by
    /// ``close()``, ``suspend(mouse:)`` and the emergency restore.
    public func enableFocusEvents(_ on: Bool) {
        guard active, on != focusEvents else { return }
        focusEvents = on
        if on {
            for (sequence, code) in [("\u{1B}[I", Key.focusInCode), ("\u{1B}[O", Key.focusOutCode)] {
                _ = define_key(sequence, 0)
                _ = define_key(sequence, Int32(code))
            }
        }
        TerminalRestore.writeNow(on ? TerminalRestore.focusOn : TerminalRestore.focusOff)
    }

    /// Turns mouse reports (button 1 presses, the wheel) on or off. While on, the terminal's
    /// own selection still works with Shift held.
    public func enableMouse(_ on: Bool) {
        _ = vt_mouse_enable(on ? 1 : 0)
    }

    // MARK: Drawing

    /// Draws `text` at line `y`, column `x`, at most `width` columns, in `role`; control
    /// characters are dropped and an overlong text ends with "…". Pads with spaces to `width`
    /// when `pad` is set. Returns the columns used.
    @discardableResult
    public func text(_ text: String, y: Int, x: Int, width: Int, role: Role = .normal, pad: Bool = false) -> Int {
        guard width > 0, y >= 0, y < lines, x >= 0, x < columns else { return 0 }
        let room = min(width, columns - x)
        var (scalars, used) = DisplayWidth.fit(text, columns: room)
        if !unicodeGlyphs {
            scalars = scalars.map(Self.asciiFallback)
        }
        if pad && used < room {
            scalars.append(contentsOf: Array(repeating: " ", count: room - used))
            used = room
        }
        let (attrs, pair) = style(role)
        var wide = scalars.map { wchar_t(bitPattern: $0.value) }
        wide.append(0)
        _ = vt_put_text(Int32(y), Int32(x), wide, Int32(wide.count - 1), attrs, pair)
        return used
    }

    /// Fills `width` columns at (y, x) with spaces in the default colours.
    public func clear(y: Int, x: Int, width: Int) {
        text("", y: y, x: x, width: width, pad: true)
    }

    /// Draws a grid of cells with its top-left corner at (y, x), clipped to the screen and to
    /// `maxLines` lines.
    public func draw(_ grid: CellGrid, y: Int, x: Int, maxLines: Int = .max) {
        for row in 0..<min(grid.rows, max(0, maxLines)) where y + row >= 0 && y + row < lines {
            for column in 0..<grid.columns where x + column >= 0 && x + column < columns {
                let cell = grid[column, row]
                put(cell.glyph, y: y + row, x: x + column, foreground: cell.foreground, background: cell.background)
            }
        }
    }

    /// A one-column ASCII stand-in for the UI's own symbols in a locale without UTF-8.
    static func asciiFallback(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII { return scalar }
        switch scalar {
        case "▌": return "|"
        case "×": return "x"
        case "·": return "-"
        case "…": return "~"
        case "✗": return "X"
        default: return "?"
        }
    }

    /// Draws one glyph in the given colours (in `.none` mode, or without Unicode, a fallback).
    public func put(_ glyph: Unicode.Scalar, y: Int, x: Int, foreground: TerminalColor, background: TerminalColor, role: Role = .normal) {
        var g = glyph
        if !unicodeGlyphs && !g.isASCII { g = g == "▀" || g == "▄" ? " " : Self.asciiFallback(g) }
        let pair = colorMode == .none ? style(role).1 : pairFor(foreground, background)
        _ = vt_put_cell(Int32(y), Int32(x), wchar_t(bitPattern: g.value), style(role).0, pair)
    }

    /// Attributes and colour pair of a text role (the theme table).
    func style(_ role: Role) -> (attr_t, Int32) {
        switch role {
        case .normal: return (vt_a_normal(), 0)
        case .title: return (vt_a_bold(), 0)
        case .dim: return (vt_a_dim(), 0)
        case .selection: return (vt_a_reverse() | vt_a_bold(), 0)
        case .status: return (vt_a_reverse(), 0)
        case .error:
            return hasColors && colorMode != .none ? (vt_a_bold(), pairFor(.indexed(1), .terminalDefault)) : (vt_a_bold(), 0)
        case .spinner:
            return hasColors && colorMode != .none ? (vt_a_normal(), pairFor(.indexed(6), .terminalDefault)) : (vt_a_normal(), 0)
        case .match: return (vt_a_bold() | vt_a_underline(), 0)
        }
    }

    /// A colour pair for foreground and background, from ncurses's pair allocator
    /// (`alloc_pair`, which reuses the least recently used pair when the table is full).
    /// Extended pairs above 255 are passed as ints, never through `COLOR_PAIR()`.
    func pairFor(_ foreground: TerminalColor, _ background: TerminalColor) -> Int32 {
        guard hasColors else { return 0 }
        let fg = colorNumber(foreground)
        let bg = colorNumber(background)
        if fg == -1 && bg == -1 { return 0 }
        let pair = alloc_pair(fg, bg)
        return pair < 0 ? 0 : pair
    }

    private func colorNumber(_ color: TerminalColor) -> Int32 {
        switch color {
        case .terminalDefault:
            return -1
        case .rgb(let rgb):
            if directColor {
                // In direct-colour terminfo entries 0-7 still mean the basic palette.
                let value = Int32(rgb.r) << 16 | Int32(rgb.g) << 8 | Int32(rgb.b)
                return value < 8 ? 8 : value
            }
            // Only truecolor grids carry RGB; map a stray one onto the 6x6x6 cube.
            func level(_ v: UInt8) -> Int32 { Int32((Int(v) * 5 + 127) / 255) }
            return 16 + 36 * level(rgb.r) + 6 * level(rgb.g) + level(rgb.b)
        case .indexed(let index):
            let colors = max(1, Int(vt_colors()))
            return Int32(Int(index) < colors ? Int(index) : Int(index) % min(colors, 8))
        }
    }
}
