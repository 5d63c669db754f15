import TerminalUI

/// The line being typed after `/` (search), `?` (backward search) or `&` (filter), shown in
/// the status line.
struct Prompt {
    enum Kind {
        case search, backwardSearch, filter

        var sigil: String {
            switch self {
            case .search: return "/"
            case .backwardSearch: return "?"
            case .filter: return "&"
            }
        }
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
    /// The selected item when the prompt opened (a filter keeps the selection on it, or on
    /// the nearest item it shows).
    var originItem: ItemID? = nil
    /// The search or filter before the prompt (cancel restores it).
    let previous: String?
    /// The search's direction before the prompt (cancel restores it).
    var previousForward = true

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
