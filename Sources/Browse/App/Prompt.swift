import TerminalUI

/// The line being typed after `/` (search) or `&` (filter), shown in the status line.
struct Prompt {
    enum Kind {
        case search, filter

        var sigil: String { self == .search ? "/" : "&" }
    }

    /// What an edit did.
    enum Edit {
        /// The text changed.
        case changed
        /// Enter: keep the result.
        case accepted
        /// Esc, or Backspace on an empty line: put things back.
        case cancelled
        case ignored
    }

    let kind: Kind
    var text = ""
    /// The selected position when the prompt opened (search starts there; cancel returns).
    let origin: Int
    /// The search or filter before the prompt (cancel restores it).
    let previous: String?

    mutating func edit(_ key: Key) -> Edit {
        switch key {
        case .character(let c):
            text.append(c)
            return .changed
        case .backspace:
            if text.isEmpty { return .cancelled }
            text.removeLast()
            return .changed
        case .control("U"):
            text = ""
            return .changed
        case .enter: return .accepted
        case .escape: return .cancelled
        default: return .ignored
        }
    }
}
