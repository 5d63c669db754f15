import Foundation
import HalfBlock
import ImagePipeline
import TerminalUI
import Testing

@testable import Browse

/// A `LoopScreen` over a `TestCanvas`: keys come from a script, refreshes are counted.
@MainActor
final class ScriptedScreen: LoopScreen {
    let canvas: TestCanvas
    var keys: [[Key]] = []
    var refreshes = 0
    var repaints = 0
    /// The size `updateSize` reads (a resize).
    var size: (lines: Int, columns: Int)

    init(lines: Int, columns: Int) {
        canvas = TestCanvas(lines: lines, columns: columns)
        size = (lines, columns)
    }

    var lines: Int { canvas.lines }
    var columns: Int { canvas.columns }
    var unicodeGlyphs: Bool { true }
    func text(_ text: String, y: Int, x: Int, width: Int, role: Screen.Role, pad: Bool) -> Int {
        canvas.text(text, y: y, x: x, width: width, role: role, pad: pad)
    }
    func put(_ glyph: Unicode.Scalar, y: Int, x: Int, foreground: TerminalColor, background: TerminalColor, role: Screen.Role) {
        canvas.put(glyph, y: y, x: x, foreground: foreground, background: background, role: role)
    }
    func updateSize() { canvas.resize(lines: size.lines, columns: size.columns) }
    func repaintAll() { repaints += 1 }
    func refresh() { refreshes += 1 }
    func pendingKeys() -> [Key] { keys.isEmpty ? [] : keys.removeFirst() }
}

@Suite("MainLoop: the browser's loop with a scripted wait")
@MainActor
struct MainLoopTests {
    @Test("a burst of finished loads is drawn in one frame; keys, a resize and ^L are applied; q ends the loop and withdraws loads")
    func turns() {
        let h = Harness(count: 500, lines: 24, columns: 80, mode: .grid)
        let screen = ScriptedScreen(lines: 24, columns: 80)
        var timeouts: [Int?] = []
        var step = 0
        var written: [[UInt8]] = []
        var afterFrames = 0
        var refreshesAtWait: [Int] = []
        var drawnAfterBurst = false
        let loop = MainLoop(
            app: h.app, screen: screen,
            wait: { timeout in
                timeouts.append(timeout)
                refreshesAtWait.append(screen.refreshes)
                step += 1
                if step == 3 {
                    drawnAfterBurst = (0..<4).contains { y in screen.canvas.cells[y][1..<10].contains { $0.background != .terminalDefault } }
                }
                switch step {
                case 1: return EventLoop.Wake(posted: false)  // the timeout: idle: a slice of the search index
                case 2: return EventLoop.Wake(posted: true)  // the 40 thumbnails finish at once
                case 3: screen.keys = [[.character("l"), .control("L")]]
                case 4:
                    screen.size = (30, 100)
                    screen.keys = [[.resize]]
                case 5: screen.keys = [[.character("q")]]
                default: Issue.record("the loop went on after q")
                }
                return EventLoop.Wake()
            },
            deliver: {
                // Every load in flight answers at once (no frame here: the loop draws them)
                for (_, ticket) in h.loader.tickets { h.app.apply(ticket, .success(ThumbnailLoaderTests.image)) }
                h.loader.tickets.removeAll()
            }, write: { written.append($0) }, afterFrame: { afterFrames += 1 },
            stopRequested: { false })
        loop.run()
        // Turns: the first screen, the idle slice, the 40 loads, l and ^L, the resize; then q
        // ended it. The 40 loads that arrived together were drawn in one frame, the next turn's
        #expect(step == 5)
        #expect(refreshesAtWait[0] == 1)
        #expect(refreshesAtWait[2] == refreshesAtWait[1] + 1)
        #expect(drawnAfterBurst)
        #expect(screen.refreshes == loop.frames && afterFrames == 5)
        // Until the index is built the wait does not sleep; the idle turn built it (500 items)
        #expect(timeouts[0] == 0)
        #expect(!h.model.list.needsIndexing)
        // While thumbnails load the spinner sets a timeout; once all are in, the loop sleeps
        #expect(timeouts[1] != nil && timeouts[1]! <= Spinner.interval)
        #expect(timeouts[2] == nil)
        #expect(h.gallery.selected == 1)
        #expect(screen.repaints == 1)
        #expect(h.gallery.layout.columns == 100 && h.gallery.layout.lines == 30)
        #expect(screen.canvas.row(29).contains("2/500"))
        #expect(!h.app.running)
        // At the end the loads in flight (the resize's new look-ahead) were withdrawn
        #expect(!h.loader.cancelled.isEmpty)
        #expect(h.model.thumbnails.counts.loading == 0)
        // Half blocks: nothing outside the canvas
        #expect(written.allSatisfy { $0.isEmpty })
    }

    @Test("a termination request ends the loop after the wait, before the keys it brought")
    func stops() {
        let h = Harness(count: 10)
        let screen = ScriptedScreen(lines: 24, columns: 80)
        var stop = false
        let loop = MainLoop(
            app: h.app, screen: screen,
            wait: { _ in
                stop = true
                screen.keys = [[.character("j")]]
                return EventLoop.Wake()
            },
            deliver: {}, write: { _ in }, stopRequested: { stop })
        loop.run()
        #expect(loop.frames == 1)
        #expect(h.gallery.selected == 0)
        #expect(h.app.running)
    }
}
