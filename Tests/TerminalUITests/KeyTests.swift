import CNcursesw
import Testing

@testable import TerminalUI

@Suite("Key: decoding wget_wch codes")
struct KeyTests {
    @Test("function keys, Enter, Esc, Backspace and Ctrl letters decode to their keys")
    func specialKeys() {
        #expect(Key.decode(UInt32(KEY_UP), isKeyCode: true) == .up)
        #expect(Key.decode(UInt32(KEY_NPAGE), isKeyCode: true) == .pageDown)
        #expect(Key.decode(UInt32(KEY_F0 + 1), isKeyCode: true) == .function(1))
        #expect(Key.decode(UInt32(vt_key_resize()), isKeyCode: true) == .resize)
        #expect(Key.decode(UInt32(KEY_BACKSPACE), isKeyCode: true) == .backspace)
        #expect(Key.decode(10, isKeyCode: false) == .enter)
        #expect(Key.decode(13, isKeyCode: false) == .enter)
        #expect(Key.decode(27, isKeyCode: false) == .escape)
        #expect(Key.decode(127, isKeyCode: false) == .backspace)
        #expect(Key.decode(12, isKeyCode: false) == .control("L"))
        #expect(Key.decode(4, isKeyCode: false) == .control("D"))
    }

    @Test("the codes focus reports are bound to decode as focus events; nothing else does")
    func focusCodes() {
        #expect(Key.decode(Key.focusInCode, isKeyCode: true) == .focusIn)
        #expect(Key.decode(Key.focusOutCode, isKeyCode: true) == .focusOut)
        // Above KEY_MAX and every code ncurses gives terminfo's extended keys (a few hundred).
        #expect(Key.focusInCode > UInt32(KEY_MAX) + 1000)
        #expect(Key.decode(Key.focusInCode, isKeyCode: false) != .focusIn)
        #expect(Key.decode(UInt32(KEY_MAX) + 1, isKeyCode: true) == nil)
    }

    @Test("characters decode as typed, non-ASCII included; control and bidi scalars never do")
    func characters() {
        #expect(Key.decode(UInt32(UInt8(ascii: "j")), isKeyCode: false) == .character("j"))
        #expect(Key.decode(32, isKeyCode: false) == .character(" "))
        #expect(Key.decode(0xE9, isKeyCode: false) == .character("é"))
        #expect(Key.decode(0x9B, isKeyCode: false) == nil)      // C1 CSI
        #expect(Key.decode(0x202E, isKeyCode: false) == nil)    // right-to-left override
        #expect(Key.decode(0, isKeyCode: false) == nil)
    }
}
