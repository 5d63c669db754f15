import HalfBlock
import Testing

@testable import vitrine

@Suite("vitrine render: default colour mode")
struct RenderCommandTests {
    @Test("from the environment, as the browser: NO_COLOR, COLORTERM, TERM")
    func defaultColors() {
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"]) == .none)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"]) == .truecolor)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm-direct"]) == .truecolor)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "tmux-256color"]) == .palette256)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm"]) == .palette16)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "dumb"]) == .none)
        #expect(RenderCommand.defaultColorMode(environment: [:]) == .none)
    }
}
