import Foundation
import Gallery
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// `vitrine pick GALLERY…`: the browser as a picker for scripts, as `nsxiv -o` and fzf are.
/// Quitting (`q`, `Q`) prints the marked items, else the selected one, one per line, to the
/// standard output the program was started with (the screen is on `/dev/tty`, see
/// ``ControllingTerminal``); `^C` (or any termination signal) prints nothing.
enum Picker {
    /// The status line's hint while picking.
    static let hint = "pick: q prints, ^C cancels"

    /// The line printed for `item`: a `file:` URL as its plain path, any other URL as it is;
    /// nil for an item with no URL (a row that only says why it failed).
    ///
    /// A path holding a control character, DEL or a bidi control (a hostile file name) is
    /// printed as its percent-encoded `file:` URL instead, so no such byte reaches stdout and
    /// a line is always one item.
    static func line(for item: GalleryItem) -> String? {
        guard let string = item.imageURLString ?? item.thumbnailURLString else { return nil }
        guard let url = URL(string: string), url.isFileURL else {
            // `URL.absoluteString` is already percent-encoded: no control byte survives in it.
            return DisplayText.sanitizeMessage(string) == string ? string : nil
        }
        let path = url.path
        let control = path.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        if path.isEmpty || control || DisplayText.sanitizeMessage(path) != path { return url.absoluteString }
        return path
    }

    /// Writes the lines for `items` to `fd` in one go (EINTR retried; a reader gone away ends
    /// the write).
    /// - Returns: the number of lines written.
    @discardableResult
    static func write(_ items: [GalleryItem], to fd: Int32) -> Int {
        let lines = items.compactMap(line(for:))
        try? POSIX.writeAll(fd, lines.map { $0 + "\n" }.joined())
        return lines.count
    }
}
