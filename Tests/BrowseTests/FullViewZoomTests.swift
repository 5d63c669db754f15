import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI
import Testing

@testable import Browse

/// Zoom and pan keys in the full view: key → viewport, the status line's zoom text, the detail
/// decode a step asks for, and what is drawn (half blocks on the canvas, kitty bytes).
@Suite("Full view: zoom and pan")
@MainActor
struct FullViewZoomTests {
    func open(_ h: Harness) -> ImageView {
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        h.app.apply(view.ticket!, .success(FullViewPixelsTests.photo))
        h.frame()
        return view
    }

    @Test("half blocks: + zooms a step, = is 1:1 and asks for the full-size decode once, h j k l pan, 0 fits")
    func halfBlocks() {
        let h = Harness(count: 3)
        let view = open(h)
        // 4000x3000 in 80x23 cells of 1x2 half-block pixels: fit is 46/3000.
        #expect(view.viewport?.zoom == .fit)
        #expect(h.status.contains("fit "))
        let requests = h.loader.requested.count
        h.type("+")
        #expect(view.viewport?.scale == 1.0 / 16)
        #expect(h.status.contains("6% · "))
        // The decode in memory (400x300, a tenth) has enough for 1/16: nothing more is asked.
        #expect(h.loader.requested.count == requests)
        h.type("=")
        #expect(view.viewport?.scale == 1)
        // 1:1 needs the full size: one decode of 4000x3000 through the pipeline, and "…" until
        // it arrives; meanwhile the frame is drawn from what is there.
        #expect(h.loader.requested.count == requests + 1)
        #expect(h.loader.requested.last!.width == 4000 && h.loader.requested.last!.height == 3000)
        #expect(h.status.contains("100% · 1960,1477 80x46 of 4000x3000 …"))
        let coloured = h.canvas.cells.prefix(23).joined().filter { $0.background != .terminalDefault }.count
        #expect(coloured == 80 * 23)
        // The detail decode arrives: the zoom and position stay.
        let detail = DecodedImage(
            bitmap: RGBAImage(width: 4000, height: 3000, pixels: [UInt8](repeating: 200, count: 4000 * 3000 * 4)),
            sourceWidth: 4000, sourceHeight: 3000)
        h.app.apply(view.detailTicket!, .success(detail))
        h.frame()
        #expect(view.detailTicket == nil)
        #expect(h.status.contains("100% · 1960,1477 80x46 of 4000x3000") && !h.status.contains("4000x3000 …"))
        // Pans: an eighth of the area a step (10 columns = 10 pixels at 1:1, 2 rows = 4 pixels);
        // a count repeats.
        h.type("l")
        #expect(h.status.contains("1970,1477 "))
        h.type("3j")
        #expect(h.status.contains("1970,1489 "))
        h.type(.left)
        h.type(.up)
        #expect(h.status.contains("1960,1485 "))
        // Clamped at the edges.
        h.type("999h")
        #expect(h.status.contains("100% · 0,1485 "))
        // Zoom out steps, then 0 fits again; q still goes back; n still moves on.
        h.type("-")
        #expect(view.viewport?.scale == 2.0 / 3)
        h.type("0")
        #expect(view.viewport?.zoom == .fit)
        h.type("n")
        #expect(view.item == ItemID(1))
        #expect(view.viewport == nil)
        h.type("q")
        #expect(h.app.top === h.gallery)
    }

    @Test("at fit, pans do nothing; zoom keys are full-view keys only")
    func bindings() {
        #expect(Bindings.action(for: .character("+"), in: .image)?.action == .zoomIn)
        #expect(Bindings.action(for: .character("-"), in: .image)?.action == .zoomOut)
        #expect(Bindings.action(for: .character("0"), in: .image)?.action == .zoomFit)
        #expect(Bindings.action(for: .character("="), in: .image)?.action == .actualSize)
        #expect(Bindings.action(for: .character("h"), in: .image)?.action == .left)
        #expect(Bindings.action(for: .down, in: .image)?.action == .down)
        #expect(Bindings.action(for: .backspace, in: .image)?.action == .back)
        #expect(Bindings.action(for: .character("+"), in: .grid)?.action == .bigger)
        let h = Harness(count: 3)
        let view = open(h)
        let before = view.viewport
        for key in [Key.character("h"), .character("j"), .right, .up] { h.app.handle(key) }
        #expect(view.viewport == before)
    }

    @Test("kitty: a zoom step replaces the picture (deleted before the refresh, sent after) and the status says where")
    func kitty() {
        let h = Harness(count: 3)
        h.app.pixels = (.kitty, FullViewPixelsTests.context)
        let view = open(h)
        _ = h.app.pixelOutputBeforeRefresh()
        let first = String(decoding: h.app.pixelOutputAfterRefresh(), as: UTF8.self)
        #expect(first.contains("a=T,f=24,s=613,v=460,i=1000"))
        // Zoom in: 800x460 pixels of screen; fit 0.153 → next step 1/6.
        h.app.handle(.character("+"))
        #expect(view.viewport?.scale == 1.0 / 6)
        let before = String(decoding: h.app.pixelOutputBeforeRefresh(), as: UTF8.self)
        h.app.draw(on: h.canvas)
        let after = String(decoding: h.app.pixelOutputAfterRefresh(), as: UTF8.self)
        #expect(before == "\u{1B}_Ga=d,d=I,i=1000,q=2\u{1B}\\")
        // The visible region 4000x2760 at 1/6 is 667x460 pixels on screen; kitty gets the pan
        // region around it (the whole image here, 667x500) with a new id and shows the visible
        // part of it (a source rectangle).
        #expect(after.contains("a=T,f=24,s=667,v=500,i=1001,p=1,x=0,y=20,w=667,h=460,C=1"))
        #expect(h.status.contains("17% · 0,120 4000x2760 of 4000x3000"))
    }

    @Test("a new cell size (a resize that reports other pixels per cell) keeps the zoom and the centre")
    func cellSizeKeepsZoom() {
        let h = Harness(count: 3)
        h.app.pixels = (.kitty, FullViewPixelsTests.context)
        let view = open(h)
        h.app.handle(.character("+"))
        h.app.handle(.character("+"))
        let scale = view.viewport?.scale
        #expect(scale != nil && scale! > view.viewport!.fitScale)
        h.app.handle(.character("l"))
        let center = view.viewport!.center
        h.app.updateCellPixels(width: 9, height: 19)
        #expect(view.viewport?.cell == PixelSize(width: 9, height: 19))
        #expect(view.viewport?.scale == scale)
        #expect(view.viewport?.center.x == center.x && view.viewport?.center.y == center.y)
    }

    /// One key, then the bytes written after curses's refresh (and those before it).
    func step(_ h: Harness, _ key: Character) -> (before: String, after: String) {
        h.app.handle(.character(key))
        let before = String(decoding: h.app.pixelOutputBeforeRefresh(), as: UTF8.self)
        h.app.draw(on: h.canvas)
        return (before, String(decoding: h.app.pixelOutputAfterRefresh(), as: UTF8.self))
    }

    @Test("kitty: a pan step inside the pan region is a placement with a source rectangle, no pixels; leaving it sends a new region")
    func kittyPanRegion() {
        let h = Harness(count: 3)
        h.app.pixels = (.kitty, FullViewPixelsTests.context)
        let view = open(h)
        _ = h.app.pixelOutputBeforeRefresh()
        _ = h.app.pixelOutputAfterRefresh()
        // 1:1 on 800x460 pixels of screen: the visible region 1600,1270 800x460; the pan region
        // has a margin of one visible region each side: 800,810 2400x1380, sent once.
        let zoom = step(h, "=")
        #expect(h.status.contains("100% · 1600,1270 800x460 of 4000x3000"))
        #expect(zoom.after.contains("a=T,f=24,s=2400,v=1380,i=1001,p=1,x=800,y=460,w=800,h=460,C=1"))
        #expect(view.panCounts.regions == 1 && view.panCounts.placed == 0)
        // A pan step (10 columns: 100 pixels at 1:1): the same image and placement, moved.
        let pan = step(h, "l")
        #expect(pan.before.isEmpty)
        #expect(pan.after == "\u{1B}7\u{1B}[1;1H\u{1B}_Ga=p,i=1001,p=1,x=900,y=460,w=800,h=460,C=1,q=2\u{1B}\\\u{1B}8")
        #expect(pan.after.utf8.count < 64)
        let down = step(h, "j")
        #expect(down.after == "\u{1B}7\u{1B}[1;1H\u{1B}_Ga=p,i=1001,p=1,x=900,y=500,w=800,h=460,C=1,q=2\u{1B}\\\u{1B}8")
        // A full repaint puts the same part back.
        h.app.draw(on: h.canvas)
        #expect(String(decoding: view.terminalOutput(fullRepaint: true), as: UTF8.self).contains("a=p,i=1001,p=1,x=900,y=500,w=800,h=460"))
        // 7 more columns steps: 2400,1310, the region's right edge (3200) still inside.
        let seven = step(h, "7")
        _ = seven
        let edge = step(h, "l")
        #expect(h.status.contains("100% · 2400,1310 "))
        #expect(edge.after.contains("a=p,i=1001,p=1,x=1600,y=500,w=800,h=460"))
        #expect(!edge.after.contains("a=T"))
        #expect(view.panCounts.regions == 1 && view.panCounts.placed == 3)
        // One more leaves it: a new region around 2500,1310 (1700,850 2300x1380, clipped at the
        // image's right edge), placed, then the old image deleted.
        let out = step(h, "l")
        #expect(h.status.contains("100% · 2500,1310 "))
        #expect(out.after.contains("a=T,f=24,s=2300,v=1380,i=1002,p=1,x=800,y=460,w=800,h=460,C=1"))
        #expect(out.after.hasSuffix("\u{1B}_Ga=d,d=I,i=1001,q=2\u{1B}\\"))
        #expect(view.panCounts.regions == 2)
        // Zoom out: a new region at 2/3 (the old image deleted after it is placed).
        let zoomOut = step(h, "-")
        #expect(zoomOut.after.contains("i=1003"))
        #expect(zoomOut.after.hasSuffix("\u{1B}_Ga=d,d=I,i=1002,q=2\u{1B}\\"))
    }

    @Test("= and pans typed while the decode loads take effect when it arrives; another item drops them")
    func zoomWhileLoading() {
        let h = Harness(count: 3)
        h.app.pixels = (.kitty, FullViewPixelsTests.context)
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        h.frame()
        h.type("=")
        h.type("l")
        #expect(view.viewport == nil)
        #expect(h.status.contains("zoom when loaded"))
        h.app.apply(view.ticket!, .success(FullViewPixelsTests.photo))
        h.frame()
        // 1:1 on 800x460 pixels, then one step right (10 columns: 100 pixels).
        #expect(view.viewport?.scale == 1)
        #expect(h.status.contains("100% · 1700,1270 800x460 of 4000x3000"))
        // Keys for one item are not applied to the next.
        h.type("n")
        h.type("+")
        h.type("p")
        h.app.apply(view.ticket!, .success(FullViewPixelsTests.photo))
        h.frame()
        #expect(view.viewport?.zoom == .fit)
    }
}
