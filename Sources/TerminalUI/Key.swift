import CNcursesw

/// One decoded key press (or a terminal event that arrives like one), made from ncurses's
/// `wget_wch` codes inside TerminalUI so no raw curses code leaves it.
public enum Key: Hashable, Sendable {
    /// A printable character (space included).
    case character(Character)
    /// Ctrl with a letter: `.control("L")` is ^L.
    case control(Character)
    case enter, escape, backspace, tab
    case up, down, left, right, pageUp, pageDown, home, end
    /// F1-F12.
    case function(Int)
    /// The terminal changed size (ncurses's KEY_RESIZE after SIGWINCH).
    case resize
    /// A mouse report.
    case mouse(MouseEvent)
    /// The terminal (inside tmux: the pane) got or lost the focus: focus reporting (DECSET
    /// 1004, ``Screen/enableFocusEvents(_:)``) sends `CSI I` and `CSI O`. Never a key press:
    /// the app's focus handling takes them, no binding sees them.
    case focusIn, focusOut

    /// The key codes ``Screen/enableFocusEvents(_:)`` binds `CSI I` and `CSI O` to with
    /// ncurses's `define_key` (far above KEY_MAX and the codes ncurses gives terminfo's
    /// extended keys, within the 16 bits its key tries hold).
    public static let focusInCode: UInt32 = 0x7E00
    public static let focusOutCode: UInt32 = 0x7E01

    /// Decodes what `wget_wch` returned.
    /// - Parameters:
    ///   - code: the wide character, or the KEY_* code when `isKeyCode`.
    ///   - isKeyCode: `wget_wch` returned KEY_CODE_YES.
    /// - Returns: nil for codes Vitrine has no use for (KEY_MOUSE is read with `getmouse` by
    ///   `Screen`, never decoded here).
    public static func decode(_ code: UInt32, isKeyCode: Bool) -> Key? {
        if isKeyCode {
            switch Int32(bitPattern: code) {
            case KEY_UP: return .up
            case KEY_DOWN: return .down
            case KEY_LEFT: return .left
            case KEY_RIGHT: return .right
            case KEY_PPAGE: return .pageUp
            case KEY_NPAGE: return .pageDown
            case KEY_HOME: return .home
            case KEY_END: return .end
            case KEY_ENTER: return .enter
            case KEY_BACKSPACE: return .backspace
            case vt_key_resize(): return .resize
            case Int32(focusInCode): return .focusIn
            case Int32(focusOutCode): return .focusOut
            case let c where c > KEY_F0 && c <= KEY_F0 + 12: return .function(Int(c - KEY_F0))
            default: return nil
            }
        }
        switch code {
        case 10, 13: return .enter
        case 9: return .tab
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(code) + 64)))
        case 0, 28...31: return nil
        default:
            guard let scalar = Unicode.Scalar(code), !DisplayWidth.isUnsafe(scalar) else { return nil }
            return .character(Character(scalar))
        }
    }
}

/// A mouse report in screen cells (line `y`, column `x`, from the top left).
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// Button 1 went down (a click; double clicks are timed by the receiver).
        case press
        case wheelUp
        case wheelDown
    }

    public var kind: Kind
    public var y: Int
    public var x: Int

    public init(_ kind: Kind, y: Int, x: Int) {
        self.kind = kind
        self.y = y
        self.x = x
    }
}
