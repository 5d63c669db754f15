/// How an image reaches the screen: one of the terminal graphics protocols, or half-block text.
///
/// Names follow `--pixels`: `kitty` (the kitty graphics protocol, also WezTerm, Ghostty,
/// Konsole), `sixel` (DEC sixel: xterm -ti vt340, foot, mlterm, WezTerm), `iterm` (iTerm2's
/// OSC 1337 inline images, also WezTerm) and `halfblock` (U+2580 cells, every terminal).
public enum PixelProtocol: String, Sendable, CaseIterable, CustomStringConvertible {
    case kitty, sixel, iterm, halfblock

    public var description: String { rawValue }
}

/// A `--pixels` request: a fixed protocol, or `auto` (detect; the default on a terminal).
public enum PixelChoice: Sendable, Equatable {
    case auto
    case fixed(PixelProtocol)

    /// Parses `auto`, `kitty`, `sixel`, `iterm` (or `iterm2`), `halfblock` (or `half`, `blocks`).
    public init?(argument: String) {
        switch argument.lowercased() {
        case "auto": self = .auto
        case "iterm2": self = .fixed(.iterm)
        case "half", "blocks", "half-block": self = .fixed(.halfblock)
        default:
            guard let p = PixelProtocol(rawValue: argument.lowercased()) else { return nil }
            self = .fixed(p)
        }
    }
}
