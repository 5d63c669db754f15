import Foundation
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// `vitrine doctor` (and `vitrine --version --verbose`): what the terminal was found to offer
/// and why, as `TerminalCapabilities` decided it: the pixel protocol `render` and the full view
/// use, the colour mode, the cell size in pixels, the background colour and tmux passthrough.
enum DoctorCommand {
    /// The report text: the version, then one `name: value (reason)` line per capability, then
    /// the window size and how long the terminal's answers took.
    static func report(options: DoctorOptions, environment: [String: String]) -> String {
        var override: PixelProtocol?
        if case .fixed(let p) = options.pixels { override = p }
        let start = Date()
        let facts = TerminalProbe.gather(
            environment: environment, pixelOverride: override, colorOverride: options.colors, controllingTerminal: true)
        let elapsed = Date().timeIntervalSince(start) * 1000
        let capabilities = TerminalCapabilities.detect(facts)
        var lines = [versionText, capabilities.report]
        if let w = facts.windowSize {
            lines.append("window: \(w.columns)x\(w.rows) cells, \(w.pixelWidth)x\(w.pixelHeight) pixels (TIOCGWINSZ)")
        }
        if facts.isTerminal {
            let answered = facts.answers == nil ? "not asked" : facts.answersComplete ? "complete" : "incomplete (deadline)"
            lines.append(String(format: "answers: %@ in %.0f ms (deadline %d ms)", answered, elapsed, TerminalProbe.defaultDeadlineMilliseconds))
        }
        return lines.joined(separator: "\n")
    }
}
