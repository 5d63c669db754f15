import TerminalUI

/// The key help (`H` or F1; `?` in the full view): a box over the view, generated from `Bindings` for that view alone.
/// On a screen too small for every line it scrolls (↓ ↑ j k PgDn PgUp Space); any other key
/// closes it.
@MainActor
public final class HelpView: BrowseView {
    /// The view whose keys are listed.
    public let listed: ViewKind
    let bindings: [Binding]
    /// First binding shown.
    public private(set) var offset = 0
    private var lines = 24, columns = 80

    public init(for view: ViewKind) {
        listed = view
        bindings = Bindings.bindings(in: view)
    }

    public var kind: ViewKind { listed }
    public var isOverlay: Bool { true }

    public func layout(lines: Int, columns: Int) {
        self.lines = max(1, lines)
        self.columns = max(1, columns)
        offset = min(offset, maxOffset)
    }

    /// Lines of bindings that fit in the box.
    var room: Int { max(1, min(lines - 1, bindings.count + 4) - 4) }
    var maxOffset: Int { max(0, bindings.count - room) }

    /// Scrolls on movement keys; any other key closes.
    public func handleKey(_ key: Key) -> Reaction {
        switch key {
        case .down, .character("j"): offset = min(maxOffset, offset + 1)
        case .up, .character("k"): offset = max(0, offset - 1)
        case .pageDown, .character(" "): offset = min(maxOffset, offset + room)
        case .pageUp, .character("b"): offset = max(0, offset - room)
        case .resize: return .none
        default: return .pop
        }
        return .redrawAll
    }

    public func handle(_ action: Action, count: Int?) -> Reaction { .pop }

    public func draw(on canvas: any Canvas, items: Set<ItemID>?) {
        let keysWidth = bindings.map { DisplayWidth.width($0.label) }.max() ?? 0
        let textWidth = bindings.map { DisplayWidth.width($0.help) }.max() ?? 0
        let width = min(columns, keysWidth + textWidth + 6)
        let height = min(lines - 1, bindings.count + 4)
        let x0 = max(0, (columns - width) / 2)
        let y0 = max(0, (lines - 1 - height) / 2)
        for line in 0..<height {
            canvas.text("", y: y0 + line, x: x0, width: width, role: .status, pad: true)
        }
        let title = maxOffset > 0 ? " Vitrine keys (\(offset + 1)-\(min(bindings.count, offset + room)) of \(bindings.count), ↓↑ scroll) " : " Vitrine keys "
        canvas.text(title, y: y0, x: x0 + 2, width: width - 4, role: .selection)
        for (i, binding) in bindings.dropFirst(offset).prefix(room).enumerated() {
            canvas.text(binding.label, y: y0 + 2 + i, x: x0 + 2, width: keysWidth, role: .status)
            canvas.text(binding.help, y: y0 + 2 + i, x: x0 + 4 + keysWidth, width: width - keysWidth - 6, role: .status)
        }
    }

    public func status() -> (left: String, right: String) { (" keys for the \(listed.rawValue)", "any other key closes") }
}
