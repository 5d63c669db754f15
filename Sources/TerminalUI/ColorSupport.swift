import HalfBlock

/// Chooses the colour mode from the environment and what terminfo says, without touching the
/// terminal. Pure, so it is tested with made-up environments.
public enum ColorSupport {
    /// Terminfo facts the decision needs, read by `Screen` after `newterm`.
    public struct Terminal: Sendable, Equatable {
        /// terminfo `colors` (COLORS): 0/-1 none, 8, 16, 256, or 2^24 for direct colour.
        public var colors: Int
        /// terminfo `RGB` flag: the entry takes direct 24-bit colour values.
        public var rgbFlag: Bool
        public init(colors: Int, rgbFlag: Bool) {
            self.colors = colors
            self.rgbFlag = rgbFlag
        }
    }

    /// The mode for `terminal` under `environment`, honouring `NO_COLOR` (any non-empty value,
    /// per no-color.org) and an explicit `override` (`--colors`).
    public static func mode(
        terminal: Terminal, environment: [String: String], override: ColorMode? = nil
    ) -> ColorMode {
        if let override { return clamp(override, to: terminal) }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        if terminal.rgbFlag || terminal.colors >= 1 << 24 { return .truecolor }
        return clamp(.palette256, to: terminal)
    }

    /// The richest mode at most `wanted` that `terminal` can show.
    static func clamp(_ wanted: ColorMode, to terminal: Terminal) -> ColorMode {
        let direct = terminal.rgbFlag || terminal.colors >= 1 << 24
        switch wanted {
        case .truecolor where direct: return .truecolor
        case .truecolor, .palette256:
            if terminal.colors >= 256 { return .palette256 }
            return terminal.colors >= 8 ? .palette16 : .none
        case .palette16: return terminal.colors >= 8 ? .palette16 : .none
        case .none: return .none
        }
    }

    /// A direct-colour terminfo name to try when `COLORTERM` announces 24-bit colour but `TERM`
    /// names a 256-colour entry (`xterm-256color` → `xterm-direct`), or nil.
    public static func directVariant(term: String, environment: [String: String]) -> String? {
        let colorterm = environment["COLORTERM"]?.lowercased() ?? ""
        guard colorterm == "truecolor" || colorterm == "24bit" else { return nil }
        guard !term.hasSuffix("-direct") else { return nil }
        let base = term.split(separator: "-").first.map(String.init) ?? term
        return "\(base)-direct"
    }
}
