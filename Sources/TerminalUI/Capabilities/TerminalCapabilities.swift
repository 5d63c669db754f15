import HalfBlock

/// What the terminal can show, decided once at start-up from the environment, terminfo, tmux and
/// the terminal's own answers, with the reason for each decision (printed by `vitrine doctor`).
///
/// ``detect(_:)`` is pure: ``TerminalProbe`` gathers the facts (``Facts``) with real I/O, tests
/// pass recorded ones. `render` and the browser use the same result.
///
/// Order of evidence for the pixel protocol: an explicit `--pixels`; then the terminal's answers
/// (kitty graphics query `OK` → kitty; DA1 attribute 4 → sixel; XTVERSION naming iTerm2 or
/// WezTerm → iterm); then, only when the terminal could not be asked or did not finish
/// answering, the environment (`KITTY_WINDOW_ID`, `TERM=xterm-kitty`, `TERM_PROGRAM`,
/// `LC_TERMINAL`). Inside tmux a pixel protocol needs tmux's `allow-passthrough`; without it the
/// answer is half blocks (a forced one is kept, with ``pixelsHint`` saying tmux drops it). Output that is not a terminal gets half blocks unless `--pixels` says
/// otherwise.
public struct TerminalCapabilities: Sendable, Equatable {
    /// Everything detection looks at. Each field is optional evidence: nil means unknown.
    public struct Facts: Sendable, Equatable {
        /// The process environment (TERM, COLORTERM, TERM_PROGRAM, KITTY_WINDOW_ID, TMUX, NO_COLOR…).
        public var environment: [String: String]
        /// stdout is a terminal (nothing is asked otherwise).
        public var isTerminal: Bool
        /// terminfo for TERM: `colors`, and the `RGB` or `Tc` flag.
        public var terminfo: ColorSupport.Terminal?
        /// TIOCGWINSZ: size in cells and, when nonzero, the text area in pixels.
        public var windowSize: WindowSize?
        /// The replies to the queries; nil when none were sent.
        public var answers: TerminalAnswers?
        /// The probe saw every reply it waited for (the DA1 sentinel) before its deadline.
        public var answersComplete: Bool
        /// What tmux said, when inside tmux (`TMUX` set) and tmux could be asked.
        public var tmux: TmuxFacts?
        /// `--pixels`, `--colors`.
        public var pixelOverride: PixelProtocol?
        public var colorOverride: ColorMode?

        public init(
            environment: [String: String], isTerminal: Bool, terminfo: ColorSupport.Terminal? = nil,
            windowSize: WindowSize? = nil, answers: TerminalAnswers? = nil, answersComplete: Bool = false,
            tmux: TmuxFacts? = nil, pixelOverride: PixelProtocol? = nil, colorOverride: ColorMode? = nil
        ) {
            self.environment = environment
            self.isTerminal = isTerminal
            self.terminfo = terminfo
            self.windowSize = windowSize
            self.answers = answers
            self.answersComplete = answersComplete
            self.tmux = tmux
            self.pixelOverride = pixelOverride
            self.colorOverride = colorOverride
        }
    }

    /// The terminal's size from TIOCGWINSZ: cells, and pixels (0 when the terminal reports none).
    public struct WindowSize: Sendable, Equatable {
        public var columns: Int
        public var rows: Int
        public var pixelWidth: Int
        public var pixelHeight: Int
        public init(columns: Int, rows: Int, pixelWidth: Int = 0, pixelHeight: Int = 0) {
            self.columns = columns
            self.rows = rows
            self.pixelWidth = pixelWidth
            self.pixelHeight = pixelHeight
        }
    }

    /// tmux's own view: `allow-passthrough` in this pane and the attached client's
    /// `#{client_termfeatures}` / `#{client_termtype}` (tmux 3.2+; the outer terminal's
    /// XTVERSION, e.g. `kitty(0.26.5)`).
    public struct TmuxFacts: Sendable, Equatable {
        /// `on` or `all`: DCS `tmux;` passthrough reaches the outer terminal.
        public var passthrough: Bool
        /// Comma-separated features, e.g. `256,RGB,clipboard,…`.
        public var clientFeatures: [String]
        /// The outer terminal's name and version as tmux learned it, or empty.
        public var clientTermType: String
        public init(passthrough: Bool, clientFeatures: [String] = [], clientTermType: String = "") {
            self.passthrough = passthrough
            self.clientFeatures = clientFeatures
            self.clientTermType = clientTermType
        }
    }

    /// The protocol images are drawn with.
    public var pixels: PixelProtocol
    /// Why ``pixels`` was chosen, one line.
    public var pixelsReason: String
    /// The colour mode half-block art and the UI use.
    public var colorMode: ColorMode
    /// Why ``colorMode`` was chosen, one line.
    public var colorReason: String
    /// Cell size in pixels (TIOCGWINSZ, else `CSI 16 t`, else `CSI 14 t` over the cell count);
    /// nil when the terminal reports none.
    public var cellPixels: (width: Int, height: Int)?
    /// Where ``cellPixels`` came from.
    public var cellReason: String
    /// The terminal's default background (OSC 11), 8 bits a channel; nil when it did not say.
    /// Half-block art uses it to composite transparency and to pick palette colours.
    public var background: RGB?
    /// Inside tmux: pixel-protocol output must be wrapped in DCS `tmux;` passthrough.
    public var tmuxPassthrough: Bool
    /// The terminal's name from XTVERSION (inside tmux, tmux's client_termtype), or nil.
    public var terminalName: String?
    /// Why the pixel protocol `--pixels` forced will likely show nothing, a short line for the
    /// full view's status line (`doctor` gives it in ``pixelsReason``, with why); nil when
    /// nothing stands in its way. Set inside tmux
    /// when tmux's `allow-passthrough` is off (or tmux could not be asked): tmux then drops the
    /// protocol's escapes (nothing is written wrapped in DCS `tmux;`), so the full view stays
    /// blank. Not for sixel when tmux's client features list `sixel` (tmux 3.4+ built with sixel
    /// draws it itself). The forced protocol is kept all the same: it was asked for by name.
    public var pixelsHint: String?
    /// kitty only: how pixels reach the terminal (``KittyMedium``): shared memory when the
    /// terminal answered the `t=s` query with OK, else a temporary file when it answered the
    /// `t=t` one with OK, else direct (`t=d`, through the pty: ssh, another host, an error
    /// answer, no answer). `VITRINE_KITTY_MEDIUM` forces one. Direct for every other protocol.
    public var kittyMedium: KittyMedium = .direct
    /// Why ``kittyMedium`` was chosen, one line.
    public var kittyMediumReason = "not kitty graphics"

    public static func == (a: Self, b: Self) -> Bool {
        a.pixels == b.pixels && a.pixelsReason == b.pixelsReason && a.colorMode == b.colorMode
            && a.colorReason == b.colorReason && a.cellPixels?.width == b.cellPixels?.width
            && a.cellPixels?.height == b.cellPixels?.height && a.cellReason == b.cellReason
            && a.background == b.background && a.tmuxPassthrough == b.tmuxPassthrough
            && a.terminalName == b.terminalName && a.pixelsHint == b.pixelsHint
            && a.kittyMedium == b.kittyMedium && a.kittyMediumReason == b.kittyMediumReason
    }

    /// Cell height over cell width (2.0 when unknown): what half-block art needs for round circles.
    public var cellAspect: Double {
        guard let c = cellPixels, c.width > 0 else { return 2.0 }
        return Double(c.height) / Double(c.width)
    }

    /// Decides every capability from `facts`. Pure.
    public static func detect(_ facts: Facts) -> TerminalCapabilities {
        let env = facts.environment
        let insideTmux = !(env["TMUX"] ?? "").isEmpty
        let answers = facts.answers
        var name = answers?.version.flatMap { $0.isEmpty ? nil : $0 }
        if insideTmux, let type = facts.tmux?.clientTermType, !type.isEmpty { name = type }
        else if insideTmux, name?.hasPrefix("tmux") == true { name = nil }
        let passthrough = insideTmux && (facts.tmux?.passthrough ?? false)

        // Cell size.
        var cell: (width: Int, height: Int)?
        var cellReason = "unknown (the terminal reports no pixel size): half blocks assume cells twice as tall as wide"
        if let w = facts.windowSize, w.pixelWidth > 0, w.pixelHeight > 0, w.columns > 0, w.rows > 0 {
            cell = (w.pixelWidth / w.columns, w.pixelHeight / w.rows)
            cellReason = "TIOCGWINSZ: \(w.pixelWidth)x\(w.pixelHeight) pixels over \(w.columns)x\(w.rows) cells"
        } else if let c = answers?.cellPixels {
            cell = c
            cellReason = "the terminal's answer to CSI 16 t"
        } else if let t = answers?.textAreaPixels, let w = facts.windowSize, w.columns > 0, w.rows > 0 {
            cell = (t.width / w.columns, t.height / w.rows)
            cellReason = "the terminal's answer to CSI 14 t (\(t.width)x\(t.height) pixels) over \(w.columns)x\(w.rows) cells"
        }
        if let c = cell, c.width <= 0 || c.height <= 0 { cell = nil }

        // Pixel protocol.
        var (pixels, pixelsReason) = choosePixels(facts, name: name, insideTmux: insideTmux, passthrough: passthrough)
        let hint = forcedPixelsHint(facts, pixels: pixels, insideTmux: insideTmux, passthrough: passthrough)
        if let hint {
            let why = facts.tmux == nil ? "tmux could not be asked for allow-passthrough" : "tmux's allow-passthrough is off"
            pixelsReason += "; \(why): \(hint)"
        }

        // Colours.
        let (colorMode, colorReason) = chooseColors(facts, insideTmux: insideTmux)

        let background = answers?.background.map { RGB($0.r, $0.g, $0.b) }
        var result = TerminalCapabilities(
            pixels: pixels, pixelsReason: pixelsReason, colorMode: colorMode, colorReason: colorReason,
            cellPixels: cell, cellReason: cellReason, background: background,
            tmuxPassthrough: passthrough && pixels != .halfblock, terminalName: name, pixelsHint: hint)
        if pixels == .kitty { (result.kittyMedium, result.kittyMediumReason) = chooseKittyMedium(facts) }
        return result
    }

    /// ``kittyMedium`` and its reason for a kitty terminal: `VITRINE_KITTY_MEDIUM` when it names
    /// a medium, else what the probe found (an unknown value is said in the reason, not obeyed).
    static func chooseKittyMedium(_ facts: Facts) -> (KittyMedium, String) {
        let value = facts.environment["VITRINE_KITTY_MEDIUM"]
        if let forced = KittyMedium(environmentValue: value) {
            return (forced, "VITRINE_KITTY_MEDIUM=\(forced)")
        }
        let (medium, reason) = probedKittyMedium(facts)
        if let value, !value.isEmpty, value.lowercased() != "auto" {
            // Printable ASCII only, at most 40 characters: doctor prints the reason.
            let shown = String(value.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(40).map(Character.init))
            return (medium, "VITRINE_KITTY_MEDIUM=\(shown) is not direct, shared-memory, temp-file or auto: ignored; \(reason)")
        }
        return (medium, reason)
    }

    /// ``chooseKittyMedium(_:)`` from the probe's answers alone.
    private static func probedKittyMedium(_ facts: Facts) -> (KittyMedium, String) {
        let shm = facts.answers?.kittySharedMemory, file = facts.answers?.kittyTempFile
        if shm == "OK" { return (.sharedMemory, "the terminal read a shared memory object (t=s query: OK)") }
        if file == "OK" {
            return (.tempFile, "the terminal read a temporary file (t=t query: OK; t=s: \(shm ?? "no answer"))")
        }
        if shm == nil && file == nil {
            return (.direct, "no answer to the shared memory and temporary file queries: pixels go through the terminal (t=d)")
        }
        return (
            .direct,
            "the terminal could not read a shared memory object (\(shm ?? "no answer")) nor a temporary file (\(file ?? "no answer")), as over ssh: pixels go through the terminal (t=d)"
        )
    }

    /// ``pixelsHint`` for `pixels` as `--pixels` forced it: nil unless inside tmux without
    /// passthrough, a pixel protocol was forced, and (sixel) tmux does not draw it itself.
    static func forcedPixelsHint(
        _ facts: Facts, pixels: PixelProtocol, insideTmux: Bool, passthrough: Bool
    ) -> String? {
        guard facts.pixelOverride != nil, pixels != .halfblock, insideTmux, !passthrough else { return nil }
        if pixels == .sixel, facts.tmux?.clientFeatures.contains("sixel") == true { return nil }
        let what = switch pixels {
        case .kitty: "kitty graphics"
        case .sixel: "sixel"
        case .iterm: "iTerm2 images"
        case .halfblock: ""
        }
        return "tmux drops \(what) (set -g allow-passthrough on)"
    }

    static func choosePixels(
        _ facts: Facts, name: String?, insideTmux: Bool, passthrough: Bool
    ) -> (PixelProtocol, String) {
        let env = facts.environment
        if let forced = facts.pixelOverride { return (forced, "--pixels \(forced)") }
        guard facts.isTerminal else { return (.halfblock, "output is not a terminal (give --pixels to force one)") }
        if insideTmux && !passthrough {
            let why = facts.tmux == nil ? "tmux could not be asked" : "tmux's allow-passthrough is off"
            return (.halfblock, "inside tmux and \(why) (tmux set -g allow-passthrough on)")
        }
        let via = insideTmux ? " through tmux passthrough" : ""
        if let a = facts.answers {
            if a.kittyGraphics == true { return (.kitty, "the terminal answered the kitty graphics query with OK\(via)") }
            if a.sixel { return (.sixel, "the terminal's device attributes (CSI c) list 4, sixel\(via)") }
        }
        let lowerName = name?.lowercased() ?? ""
        if lowerName.hasPrefix("iterm2") || lowerName.hasPrefix("wezterm") {
            return (.iterm, "the terminal names itself \(name ?? "") (XTVERSION)\(via)")
        }
        let program = env["TERM_PROGRAM"] ?? ""
        if program == "iTerm.app" || env["LC_TERMINAL"] == "iTerm2" {
            return (.iterm, "TERM_PROGRAM/LC_TERMINAL say iTerm2\(via)")
        }
        // The environment speaks only when the terminal could not finish answering.
        if facts.answers == nil || !facts.answersComplete {
            let term = env["TERM"] ?? ""
            if !(env["KITTY_WINDOW_ID"] ?? "").isEmpty || term == "xterm-kitty" || program == "ghostty" {
                return (.kitty, "no complete answer from the terminal; KITTY_WINDOW_ID / TERM=xterm-kitty / TERM_PROGRAM=ghostty")
            }
            if program == "WezTerm" { return (.iterm, "no complete answer from the terminal; TERM_PROGRAM=WezTerm") }
            if term.hasPrefix("foot") || term.hasPrefix("mlterm") {
                return (.sixel, "no complete answer from the terminal; TERM=\(term) draws sixel")
            }
        }
        if facts.answers != nil && !facts.answersComplete {
            return (.halfblock, "the terminal did not answer within the deadline; no pixel protocol named by the environment")
        }
        return (.halfblock, "the terminal offers no pixel protocol (no kitty OK, no sixel in CSI c)")
    }

    static func chooseColors(_ facts: Facts, insideTmux: Bool) -> (ColorMode, String) {
        let env = facts.environment
        if let forced = facts.colorOverride { return (forced, "--colors \(forced.rawValue)") }
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return (.none, "NO_COLOR is set") }
        let colorterm = env["COLORTERM"]?.lowercased() ?? ""
        if colorterm == "truecolor" || colorterm == "24bit" { return (.truecolor, "COLORTERM=\(colorterm)") }
        if let t = facts.terminfo, t.rgbFlag || t.colors >= 1 << 24 {
            return (.truecolor, "terminfo for TERM=\(env["TERM"] ?? "") has the RGB or Tc flag")
        }
        if insideTmux, let tmux = facts.tmux, tmux.clientFeatures.contains("RGB") {
            return (.truecolor, "tmux's client features include RGB (its outer terminal takes 24-bit colour)")
        }
        let term = env["TERM"] ?? ""
        if term.hasSuffix("-direct") { return (.truecolor, "TERM=\(term) is a direct-colour entry") }
        if let t = facts.terminfo {
            if t.colors >= 256 { return (.palette256, "terminfo for TERM=\(term) has \(t.colors) colours") }
            if t.colors >= 8 { return (.palette16, "terminfo for TERM=\(term) has \(t.colors) colours") }
            return (.none, "terminfo for TERM=\(term) has no colours")
        }
        if term.contains("256color") { return (.palette256, "TERM=\(term)") }
        if term.isEmpty || term == "dumb" { return (.none, "TERM is \(term.isEmpty ? "unset" : "dumb")") }
        return (.palette16, "TERM=\(term) (no terminfo read)")
    }

    /// The `vitrine doctor` report: one `name: value (reason)` line per capability.
    public var report: String {
        var lines: [String] = []
        lines.append("terminal: \(terminalName ?? "unknown (no XTVERSION answer)")")
        lines.append("pixels: \(pixels) (\(pixelsReason))")
        lines.append("colors: \(colorMode.rawValue) (\(colorReason))")
        if let c = cellPixels {
            lines.append("cell: \(c.width)x\(c.height) pixels (\(cellReason))")
        } else {
            lines.append("cell: \(cellReason)")
        }
        if let b = background {
            lines.append("background: \(b.r),\(b.g),\(b.b) (OSC 11)")
        } else {
            lines.append("background: unknown (no OSC 11 answer)")
        }
        lines.append("tmux passthrough: \(tmuxPassthrough ? "yes" : "no")")
        if pixels == .kitty { lines.append("kitty medium: \(kittyMedium) (\(kittyMediumReason))") }
        return lines.joined(separator: "\n")
    }
}
