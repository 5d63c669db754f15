import HalfBlock
import TerminalUI
import Testing

@testable import TerminalGraphics

/// kitty's pan region: the part of the image sent once (Viewport.panRegion), the source
/// rectangle of each pan step inside it (Viewport.sourceRect), and the placement that shows it.
@Suite("Pan region: kitty pans by placement")
struct PanRegionTests {
    /// 4000x3000 at 1:1 in 80x23 cells of 10x20 pixels (800x460).
    func oneToOne() -> Viewport {
        var v = Viewport(image: PixelSize(width: 4000, height: 3000), columns: 80, rows: 23, cell: PixelSize(width: 10, height: 20))
        v.actualSize()
        return v
    }

    @Test("the region is the visible one with a margin of one visible region each side, clipped to the image")
    func margins() {
        var v = oneToOne()
        let r = v.panRegion(maxPixels: 8_000_000)
        #expect(r.region.x == 800 && r.region.y == 810 && r.region.width == 2400 && r.region.height == 1380)
        #expect(r.display == PixelSize(width: 2400, height: 1380))
        #expect(v.sourceRect(in: r) == Viewport.PixelRect(x: 800, y: 460, width: 800, height: 460))
        // A pan step right (10 columns: 100 pixels) moves the source rectangle only.
        v.pan(columns: 10, rows: 0)
        #expect(v.sourceRect(in: r) == Viewport.PixelRect(x: 900, y: 460, width: 800, height: 460))
        // Past the region's right edge: none.
        v.pan(columns: 80, rows: 0)
        #expect(v.sourceRect(in: r) == nil)
        // At the image's corner the region is clipped to it.
        v.pan(columns: -1000, rows: -1000)
        let corner = v.panRegion(maxPixels: 8_000_000)
        #expect(corner.region.x == 0 && corner.region.y == 0 && corner.region.width == 1600 && corner.region.height == 920)
        #expect(v.sourceRect(in: corner) == Viewport.PixelRect(x: 0, y: 0, width: 800, height: 460))
    }

    @Test("nearsEdge(eighths:): within that many eighths of a visible region (2: a quarter, sixel's prefetch)")
    func nearsEdgeEighths() {
        var v = oneToOne()
        // Visible 800 wide in a region with 800 to spare each side.
        let r = v.panRegion(maxPixels: 8_000_000)
        // 600 pixels right: 200 to spare, a quarter of 800: not under it; near at half.
        v.pan(columns: 60, rows: 0)
        #expect(!v.nearsEdge(of: r, eighths: 2))
        #expect(v.nearsEdge(of: r, eighths: 4))
        // 610: 190 to spare, under a quarter.
        v.pan(columns: 1, rows: 0)
        #expect(v.nearsEdge(of: r, eighths: 2))
        #expect(!v.nearsEdge(of: r, eighths: 1))
    }

    @Test("nearsEdge: within half a visible region of a region edge that is not the image's")
    func nearsEdge() {
        var v = oneToOne()
        // Visible 1600,1270 800x460 in the region 800,810 2400x1380: 800 and 460 to spare.
        let r = v.panRegion(maxPixels: 8_000_000)
        #expect(!v.nearsEdge(of: r))
        // 3 steps right (300 pixels): 500 to spare on the right, over half of 800.
        v.pan(columns: 30, rows: 0)
        #expect(!v.nearsEdge(of: r))
        // 4 steps: 400, not under half: still not; 5 steps: 300, near.
        v.pan(columns: 10, rows: 0)
        #expect(!v.nearsEdge(of: r))
        v.pan(columns: 10, rows: 0)
        #expect(v.nearsEdge(of: r))
        // Down by 240 pixels (12 rows): 220 to spare below, under half of 460.
        var w = oneToOne()
        w.pan(columns: 0, rows: 12)
        #expect(w.nearsEdge(of: r))
        // Outside the region: false (the caller asks for a region anyway).
        v.pan(columns: 80, rows: 0)
        #expect(!v.nearsEdge(of: r))
        // At the image's corner the region ends where the image does: no edge to near there.
        v.pan(columns: -1000, rows: -1000)
        let corner = v.panRegion(maxPixels: 8_000_000)
        #expect(!v.nearsEdge(of: corner))
    }

    @Test("the byte cap shrinks the margins, never below the visible region")
    func cap() {
        let v = oneToOne()
        // 2400x1380 is 3.3 Mpx; a cap of 2 Mpx: margins of 5/8 of the region (500, 287).
        let r = v.panRegion(maxPixels: 2_000_000)
        #expect(r.display.width * r.display.height <= 2_000_000)
        #expect(r.region.width > 800 && r.region.height > 460)
        #expect(v.sourceRect(in: r) != nil)
        let tiny = v.panRegion(maxPixels: 1)
        #expect(tiny == v.frame)
    }

    @Test("at 2x the region picture is twice its source pixels, and the rectangle is in them")
    func scaled() {
        var v = oneToOne()
        v.zoomIn()
        v.zoomIn()
        #expect(v.scale == 2)
        let r = v.panRegion(maxPixels: 8_000_000)
        #expect(r.display.width == r.region.width * 2 && r.display.height == r.region.height * 2)
        let rect = v.sourceRect(in: r)!
        #expect(rect.x == (v.frame.region.x - r.region.x) * 2 && rect.width == 800 && rect.height == 460)
    }

    @Test("kitty: a region is sent once with its source rectangle; a step is only a placement; remove deletes it")
    func kittyPlacement() {
        let context = PresenterContext(cellWidth: 10, cellHeight: 20)
        var kitty = KittyPresenter(context: context, firstID: 7)
        let image = RGBAImage(width: 30, height: 20, pixels: [UInt8](repeating: 255, count: 30 * 20 * 4))
        let area = CellArea(origin: (2, 1), columns: 1, rows: 1)
        #expect(kitty.showPart(Viewport.PixelRect(x: 0, y: 0, width: 1, height: 1), in: area) == nil)
        let sent = String(decoding: kitty.showReplacing(encoded: kitty.encoder.encode(image), in: area,
            source: Viewport.PixelRect(x: 10, y: 0, width: 10, height: 20)), as: UTF8.self)
        #expect(sent.hasPrefix("\u{1B}7\u{1B}[2;3H\u{1B}_Ga=T,f=24,s=30,v=20,i=7,p=1,x=10,y=0,w=10,h=20,C=1,q=2;"))
        let step = kitty.showPart(Viewport.PixelRect(x: 20, y: 0, width: 10, height: 20), in: area)!
        #expect(String(decoding: step, as: UTF8.self) == "\u{1B}7\u{1B}[2;3H\u{1B}_Ga=p,i=7,p=1,x=20,y=0,w=10,h=20,C=1,q=2\u{1B}\\\u{1B}8")
        // Put back after a repaint: the same part.
        #expect(String(decoding: kitty.replace(in: area), as: UTF8.self).contains("a=p,i=7,p=1,x=20,y=0,w=10,h=20,C=1"))
        // The next region is placed, then the old image deleted with its data.
        let next = String(decoding: kitty.showReplacing(encoded: kitty.encoder.encode(image), in: area,
            source: Viewport.PixelRect(x: 0, y: 0, width: 10, height: 20)), as: UTF8.self)
        #expect(next.contains("i=8,p=1,x=0,y=0,w=10,h=20") && next.hasSuffix("\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\\"))
        #expect(String(decoding: kitty.remove(from: area), as: UTF8.self) == "\u{1B}_Ga=d,d=I,i=8,q=2\u{1B}\\")
        #expect(kitty.shownSource == nil)
    }
    @Test("scaledSourceRect: a new zoom's view in the region of another, whole cells, undistorted; nil past its edge")
    func scaledSourceRect() {
        var v = oneToOne()
        let r = v.panRegion(maxPixels: 8_000_000)  // 800,810 2400x1380 at 1:1
        // 150%: the view 1734,1347 533x306 (display 800x459: 80x23 cells, 800x460 screen
        // pixels, so 533x307 pixels of the 1:1 region, from 934,537).
        v.zoomIn()
        #expect(v.scale == 1.5)
        #expect(v.frame.display == PixelSize(width: 800, height: 459))
        let part = v.scaledSourceRect(in: r, regionScale: 1)
        #expect(part?.rect == Viewport.PixelRect(x: 934, y: 537, width: 533, height: 307))
        #expect(part?.columns == 80 && part?.rows == 23)
        // 2/3 from the same region: 1200x690 source pixels, the whole cells' 1200x690 of it.
        v.actualSize()
        v.zoomOut()
        #expect(v.scale == 2.0 / 3)
        let out = v.scaledSourceRect(in: r, regionScale: 1)
        #expect(out?.rect == Viewport.PixelRect(x: 600, y: 345, width: 1200, height: 690))
        // The region at 2/3 seen from 1:1 (regionScale 2/3): the view's 800x460 source pixels
        // are 533x307 of its picture.
        v.actualSize()
        let small = Viewport.Frame(region: (0, 0, 4000, 3000), display: PixelSize(width: 2667, height: 2000), shrink: 1, offset: (0, 0))
        #expect(v.scaledSourceRect(in: small, regionScale: 2.0 / 3)?.rect == Viewport.PixelRect(x: 1067, y: 847, width: 533, height: 307))
        // Past the region's edge: none.
        v.pan(columns: 200, rows: 0)
        #expect(v.scaledSourceRect(in: r, regionScale: 1) == nil)
    }
}

