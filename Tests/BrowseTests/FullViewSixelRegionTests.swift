import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI
import Testing

@testable import Browse

/// Sixel pan steps from a pan region (``SixelRegion``): the first step past the fit makes the
/// region, the steps inside it are cut from its indices, a zoom makes another.
@Suite("Full view: sixel pan region")
@MainActor
struct FullViewSixelRegionTests {
    let pixels = FullViewPixelsTests()

    /// Runs the next work the worker posted (waiting for it).
    func run(_ posts: Posts) throws {
        let work = try #require(posts.next())
        work()
    }

    @Test("1:1 makes one region around the view; pan steps inside it write the region's sixel of the visible rectangle; a zoom step makes a new region")
    func steps() throws {
        let h = pixels.harness(.sixel)
        let view = pixels.openAndLoad(h)
        _ = pixels.turn(h)
        #expect(view.sixelRegionCounts == (0, 0))
        // The fit goes through libsixel: no region.
        #expect(view.heldSixelRegion == nil)
        h.app.handle(.character("="))
        _ = pixels.turn(h)
        #expect(view.sixelRegionCounts == (0, 1))
        let held = try #require(view.heldSixelRegion)
        let viewport = try #require(view.viewport)
        // The region is larger than the view (800x460 at 1:1), within the cap.
        #expect(held.frame.display.width > 800 && held.frame.display.height > 460)
        #expect(held.frame.display.width * held.frame.display.height <= ImageView.maxSixelRegionPixels)
        #expect(held.region.width == held.frame.display.width && held.region.height == held.frame.display.height)
        _ = viewport
        for key in ["l", "l", "j", "h"] {
            h.app.handle(.character(Character(key)))
            let step = pixels.turn(h)
            let v = try #require(view.viewport)
            let rect = try #require(v.sourceRect(in: held.frame))
            let expected = String(decoding: held.region.sixel(rect), as: UTF8.self)
            #expect(step.after.contains(expected), "\(key)")
            #expect(rect.width == 800 && rect.height == 460)
        }
        #expect(view.sixelRegionCounts == (4, 1))
        // A zoom step: another basis, another region.
        h.app.handle(.character("+"))
        _ = pixels.turn(h)
        #expect(view.sixelRegionCounts.regions == 2)
        let zoomed = try #require(view.heldSixelRegion)
        #expect(zoomed.frame != held.frame)
        // At 150% a pan step is cut from that region too.
        h.app.handle(.character("l"))
        let step = pixels.turn(h)
        let v = try #require(view.viewport)
        let rect = try #require(v.sourceRect(in: zoomed.frame))
        #expect(step.after.contains(String(decoding: zoomed.region.sixel(rect), as: UTF8.self)))
        #expect(view.sixelRegionCounts == (5, 2))
        // Back to the fit: libsixel again, the region's count unchanged.
        h.app.handle(.character("w"))
        let fit = pixels.turn(h)
        #expect(fit.after.contains("\u{1B}P"))
        #expect(view.sixelRegionCounts.regions == 2)
    }

    @Test("with the worker, a straight pan asks for the next region on its third step, beside the steps; the fifth step, past the first region, is cut from it")
    func prefetch() throws {
        let posts = Posts()
        let worker = PictureWorker(post: posts.post)
        let h = pixels.harness(.sixel, lines: 40, columns: 120)
        h.app.pictureWorker = worker
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        _ = pixels.turn(h)
        h.app.apply(view.ticket!, .success(FullViewPixelsTests.photo))
        _ = pixels.turn(h)
        try run(posts)
        _ = pixels.turn(h)
        // 1:1 in 1200x780: a region of 2400x1560 (half a view each side: a whole one would pass
        // the 4 Mpx cap), made with the step.
        h.app.handle(.character("="))
        _ = pixels.turn(h)
        try run(posts)
        _ = pixels.turn(h)
        let first = try #require(view.heldSixelRegion)
        #expect(first.frame.display == PixelSize(width: 2400, height: 1560))
        // Steps of 150 px: 450 and 300 px from the region's right edge, no prefetch.
        for _ in 0..<2 {
            h.app.handle(.character("l"))
            _ = pixels.turn(h)
            try run(posts)
        }
        #expect(view.sixelPrefetches == 0)
        // The third, 150 px from it (under a quarter of the view): the next region is asked
        // beside the step (two answers, in either order).
        h.app.handle(.character("l"))
        _ = pixels.turn(h)
        let third = try #require(view.viewport)
        #expect(view.sixelPrefetches == 1)
        try run(posts)
        try run(posts)
        let next = try #require(view.heldSixelRegion)
        #expect(next.frame == third.panRegion(maxPixels: ImageView.maxSixelRegionPixels))
        #expect(next.frame != first.frame)
        #expect(view.sixelRegionCounts.regions == 2)
        // The fourth and fifth steps (the fifth past the first region) are cut from it: no new
        // region is made, and the fifth asks for no other prefetch yet (300 px from the edge).
        for _ in 0..<2 {
            h.app.handle(.character("l"))
            let out = pixels.turn(h)
            #expect(out.before.isEmpty)
            try run(posts)
        }
        let v = try #require(view.viewport)
        #expect(first.frame.region.x + first.frame.region.width < v.frame.region.x + v.frame.region.width)
        let step = pixels.turn(h)
        let rect = try #require(v.sourceRect(in: next.frame))
        #expect(step.after.contains(String(decoding: next.region.sixel(rect), as: UTF8.self)))
        #expect(view.sixelRegionCounts == (5, 2))
        #expect(view.sixelPrefetches == 1)
        #expect(posts.count == 0)
    }
}
