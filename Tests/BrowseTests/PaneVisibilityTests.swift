import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI
import Testing

@testable import Browse

/// Inside tmux a kitty picture is the outer terminal's: when tmux shows another window the
/// full view takes it off (placement deleted, image kept by id) and puts it back by id when the
/// pane shows again; tmux is asked only while such a picture is up, and focus reports are never
/// keys.
@Suite("Full view inside tmux: the pane off screen")
@MainActor
struct PaneVisibilityTests {
    let pixels = FullViewPixelsTests()

    /// A harness whose full view draws kitty through tmux passthrough, counting questions to tmux.
    func harness() -> (Harness, Counter) {
        let h = Harness(count: 5, lines: 24, columns: 80)
        var context = FullViewPixelsTests.context
        context.tmuxPassthrough = true
        h.app.pixels = (.kitty, context)
        let asked = Counter()
        h.app.askPaneVisibility = { asked.value += 1 }
        return (h, asked)
    }

    final class Counter { var value = 0 }

    @Test("tmux says another window shows: the placement comes off with its data kept, nothing is drawn; back: placed by id, no pixels")
    func offScreenAndBack() {
        let (h, asked) = harness()
        #expect(h.app.paneCheckDue == nil)  // the gallery: nothing to ask
        let view = pixels.openAndLoad(h)
        // The outer terminal's cursor goes to the area's cell first (column 9, row 0), through
        // passthrough: tmux writes passthrough where the outer cursor is.
        #expect(pixels.turn(h).after.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}[1;10H\u{1B}\\\u{1B}7\u{1B}[1;10H\u{1B}Ptmux;\u{1B}\u{1B}_Ga=T,f=24"))
        // While the picture is up, tmux is asked: once at a time, then not before the interval.
        let now = ContinuousClock.now
        #expect(h.app.paneCheckDue != nil)
        h.app.checkPane(now: now + .seconds(1))
        #expect(asked.value == 1 && h.app.paneCheckDue == nil)
        h.app.checkPane(now: now + .seconds(2))
        #expect(asked.value == 1)
        h.app.paneVisibilityAnswered(true, now: now)
        #expect(h.app.paneCheckDue == now + .milliseconds(App.paneAskInterval))
        #expect(pixels.turn(h) == ("", ""))
        // Another window: the placement is deleted (d=i keeps the data), wrapped for tmux.
        h.app.checkPane(now: now + .seconds(1))
        h.app.paneVisibilityAnswered(false, now: now)
        let hidden = pixels.turn(h)
        #expect(hidden.before == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=i,i=1000,q=2\u{1B}\u{1B}\\\u{1B}\\")
        #expect(hidden.after.isEmpty)
        // ^L while off screen draws curses's cells but no picture.
        h.app.handle(.control("L"))
        #expect(pixels.turn(h).after.isEmpty)
        #expect(h.app.paneCheckDue != nil)  // asked again until it shows
        // Back: the same image placed again by id, no pixels sent (the pane now right of a
        // split and below a status line: its origin is added to the cursor move).
        h.app.tmuxPaneOrigin = (41, 1)
        h.app.checkPane(now: now + .seconds(1))
        h.app.paneVisibilityAnswered(true, now: now)
        let back = pixels.turn(h)
        #expect(back.before.isEmpty)
        #expect(back.after.contains("a=p,i=1000,p=1") && !back.after.contains("a=T"))
        #expect(back.after.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}[2;51H\u{1B}\\"))
        #expect(pixels.turn(h) == ("", ""))
        #expect(h.app.top === view)
    }

    @Test("focus reports: focus out asks tmux at once, focus in puts the picture back and stops asking; neither acts as a key")
    func focusReports() {
        let (h, asked) = harness()
        let view = pixels.openAndLoad(h)
        _ = pixels.turn(h)
        h.app.handle(.focusIn)
        // Focused: asked once (the pane's origin, the client's tty), then no more.
        #expect(h.app.paneFocused == true && h.app.paneCheckDue != nil)
        h.app.checkPane(now: .now + .seconds(1))
        h.app.paneVisibilityAnswered(true)
        #expect(h.app.paneCheckDue == nil)
        // Focus out (another window, or only another pane of a split window): asked now.
        h.app.handle(.focusOut)
        let now = ContinuousClock.now
        #expect(h.app.paneCheckDue.map { $0 <= now } == true)
        h.app.checkPane(now: now)
        #expect(asked.value == 2)
        h.app.paneVisibilityAnswered(false, now: now)
        #expect(pixels.turn(h).before.contains("a=d,d=i,i=1000"))
        // Focus in: visible at once, placed again without asking.
        h.app.handle(.focusIn)
        #expect(h.app.paneVisible && h.app.paneCheckDue == nil)
        #expect(pixels.turn(h).after.contains("a=p,i=1000,p=1"))
        // Still the same view, no count, no note: the reports were not keys.
        #expect(h.app.top === view && h.app.count == nil && h.app.message == nil)
        h.app.handle(.character("q"))
        h.app.handle(.focusOut)
        h.app.handle(.focusIn)
        #expect(h.app.top === h.gallery && h.app.gallery.selected == 0)
    }

    @Test("outside tmux (nothing to ask) focus reports change nothing")
    func outsideTmux() {
        let h = Harness(count: 5, lines: 24, columns: 80)
        h.app.pixels = (.kitty, FullViewPixelsTests.context)
        _ = pixels.openAndLoad(h)
        _ = pixels.turn(h)
        h.app.handle(.focusOut)
        #expect(h.app.paneVisible && h.app.paneFocused == nil && h.app.paneCheckDue == nil)
        #expect(pixels.turn(h) == ("", ""))
    }
}
