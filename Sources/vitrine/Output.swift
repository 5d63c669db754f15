import Foundation
import Gallery
import TerminalUI

/// The output boundary: every byte `vitrine` prints goes through here.
///
/// Messages quote text from galleries, servers and file names (a redirect's `Location`, a next
/// link, a libvips hint), so each is passed through ``DisplayText/sanitizeMessage(_:)`` first:
/// no escape sequence, C0 or C1 control (U+009B and U+009D included), DEL or bidi control
/// reaches stdout or stderr, whichever path produced the text. Terminal control that Vitrine
/// writes itself (the progress note's `\r` and `ESC [K`) goes through ``control(_:)``, which
/// takes only a fixed ``Control`` value, never text.
enum Output {
    /// Writes `text` to stdout, sanitized, as it is (add the line feed yourself).
    static func out(_ text: String) {
        write(1, DisplayText.sanitizeMessage(text))
    }

    /// Writes `text` to stderr, sanitized.
    static func err(_ text: String) {
        write(2, DisplayText.sanitizeMessage(text))
    }

    /// Terminal controls Vitrine itself writes to stderr.
    enum Control: String {
        /// Back to the start of the line (`\r`).
        case lineStart = "\r"
        /// Erase to the end of the line (`ESC [ K`).
        case eraseLine = "\u{1B}[K"
    }

    /// Writes one of Vitrine's own controls to stderr.
    static func control(_ control: Control) {
        write(2, control.rawValue)
    }

    /// Writes already sanitized bytes to stdout (``ListCommand`` sanitizes field by field and
    /// writes in 64 KiB chunks).
    static func outSanitized(_ bytes: [UInt8]) {
        // EPIPE (the reader went away) and other failures end the write silently.
        try? POSIX.writeAll(1, bytes)
    }

    /// Writes a picture to stdout: escape sequences and cells Vitrine made itself from pixels
    /// (half blocks, kitty, sixel, iTerm2), with no text from outside in them.
    static func picture(_ bytes: [UInt8]) {
        try? POSIX.writeAll(1, bytes)
    }

    private static func write(_ fd: Int32, _ text: String) {
        try? POSIX.writeAll(fd, text)
    }
}
