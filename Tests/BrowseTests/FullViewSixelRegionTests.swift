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

    /// With a worker: the full view opened on the photo (Enter, the decode applied, its
    /// picture's answer run and drawn), then `=` (1:1) with its region made and drawn. `clock`
    /// is the view's clock from before the first turn.
    func atActualSizeWithWorker(
        lines: Int = 24, columns: Int = 80, clock: (() -> ContinuousClock.Instant)? = nil
    ) throws -> (h: Harness, view: ImageView, posts: Posts) {
        let posts = Posts()
        let h = pixels.harness(.sixel, lines: lines, columns: columns)
        h.app.pictureWorker = PictureWorker(post: posts.post)
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        if let clock { view.clock = clock }
        _ = pixels.turn(h)
        h.app.apply(view.ticket!, .success(FullViewPixelsTests.photo))
        _ = pixels.turn(h)
        try run(posts)
        _ = pixels.turn(h)
        h.app.handle(.character("="))
        _ = pixels.turn(h)
        try run(posts)
        _ = pixels.turn(h)
        return (h, view, posts)
    }

    @Test("1:1 makes one region around the view; pan steps inside it write the region's sixel of the visible rectangle; a zoom step makes a new region")
    func steps() throws {
        let h = pixels.harness(.sixel)
        let view = pixels.openAndLoad(h)
        _ = pixels.turn(h)
        #expect(view.sixelRegionCounts == (0, 0, 0))
        // The fit goes through libsixel: no region.
        #expect(view.heldSixelRegion == nil)
        h.app.handle(.character("="))
        _ = pixels.turn(h)
        #expect(view.sixelRegionCounts == (0, 1, 0))
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
        #expect(view.sixelRegionCounts == (4, 1, 0))
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
        #expect(view.sixelRegionCounts == (5, 2, 0))
        // Back to the fit: libsixel again, the region's count unchanged.
        h.app.handle(.character("w"))
        let fit = pixels.turn(h)
        #expect(fit.after.contains("\u{1B}P"))
        #expect(view.sixelRegionCounts.regions == 2)
    }

    @Test("with the worker, a straight pan asks for the next region on its third step, beside the steps; the fifth step, past the first region, is cut from it")
    func prefetch() throws {
        // 1:1 in 1200x780: a region of 2400x1560 (half a view each side: a whole one would pass
        // the 4 Mpx cap), made with the step.
        let (h, view, posts) = try atActualSizeWithWorker(lines: 40, columns: 120)
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
        #expect(view.sixelRegionCounts == (5, 2, 0))
        #expect(view.sixelPrefetches == 1)
        #expect(posts.count == 0)
    }

    /// The sixel of the view at `viewport` with a palette of its own, as the settled picture is
    /// made (the frame cut from the decode, libsixel's median cut for it, Vitrine's encoder).
    func ownPaletteSixel(_ viewport: Viewport) throws -> String {
        let frame = viewport.frame.pixels(from: FullViewPixelsTests.photo.bitmap, imageSize: viewport.image)
        let background = FullViewPixelsTests.context.background
        let palette = try #require(SixelPalette(choosingFor: frame, background: background))
        return String(decoding: palette.encode(frame, background: background), as: UTF8.self)
    }

    @Test("sixel past the fit settles: settleDelay after the last step the view is drawn again with a palette of its own, over the region's step (no blank), once")
    func settles() throws {
        let h = pixels.harness(.sixel)
        let view = pixels.openAndLoad(h)
        let start = ContinuousClock.now
        var now = start
        view.clock = { now }
        _ = pixels.turn(h)
        #expect(h.app.frameDue == nil)
        // 1:1, then a pan step 100 ms later: steps from the region; the settle moves with each.
        h.app.handle(.character("="))
        _ = pixels.turn(h)
        #expect(h.app.frameDue == start + ImageView.settleDelay)
        now = start + .milliseconds(100)
        h.app.handle(.character("l"))
        let step = pixels.turn(h)
        let held = try #require(view.heldSixelRegion)
        let v = try #require(view.viewport)
        let rect = try #require(v.sourceRect(in: held.frame))
        let regionSixel = String(decoding: held.region.sixel(rect), as: UTF8.self)
        #expect(step.after.contains(regionSixel))
        let due = try #require(h.app.frameDue)
        #expect(due == now + ImageView.settleDelay)
        #expect(view.sixelRegionCounts == (1, 1, 0))
        // Before it is due nothing changes.
        h.app.advanceFrames(now: due - .milliseconds(1))
        #expect(pixels.turn(h) == ("", ""))
        // Due: the same view with its own palette, drawn over the step (nothing before the
        // refresh, no ECH), not from the region.
        h.app.advanceFrames(now: due)
        let settled = pixels.turn(h)
        #expect(settled.before.isEmpty)
        #expect(!settled.after.contains("\u{1B}[80X"))
        let own = try ownPaletteSixel(v)
        #expect(own != regionSixel)
        #expect(settled.after.contains(own))
        #expect(!settled.after.contains(regionSixel))
        #expect(view.sixelRegionCounts == (1, 1, 0))
        #expect(h.app.frameDue == nil)
        // Once: nothing more is sent, not even after another due time.
        h.app.advanceFrames(now: due + .seconds(1))
        #expect(pixels.turn(h) == ("", ""))
        // The next step is from the region again (kept through the settle), and settles again.
        now = due + .seconds(2)
        h.app.handle(.character("h"))
        let back = pixels.turn(h)
        let v2 = try #require(view.viewport)
        #expect(back.after.contains(String(decoding: held.region.sixel(try #require(v2.sourceRect(in: held.frame))), as: UTF8.self)))
        #expect(h.app.frameDue == now + ImageView.settleDelay)
        // Back to the fit: libsixel at once, nothing to settle.
        h.app.handle(.character("w"))
        _ = pixels.turn(h)
        #expect(h.app.frameDue == nil)
    }

    @Test("with the worker, a key during the settled picture's encode makes it stale: its answer is dropped and the new step's region picture shown")
    func keyDropsSettle() throws {
        let start = ContinuousClock.now
        var now = start
        let (h, view, posts) = try atActualSizeWithWorker(clock: { now })
        let held = try #require(view.heldSixelRegion)
        // The settle is due: its encode is asked of the worker, and made, but before its
        // answer is taken a pan key comes.
        let due = try #require(h.app.frameDue)
        now = due
        let steps = view.sixelRegionCounts.steps
        h.app.advanceFrames(now: due)
        #expect(pixels.turn(h) == ("", ""))
        // (Not a step from the region: the view alone, its own palette.)
        #expect(view.sixelRegionCounts.steps == steps)
        let settle = try #require(posts.next())
        let stale = view.staleAnswers
        h.app.handle(.character("l"))
        _ = pixels.turn(h)
        settle()
        #expect(view.staleAnswers == stale + 1)
        #expect(pixels.turn(h) == ("", ""))
        // The step's answer: the region's rectangle, not the settled palette.
        try run(posts)
        let step = pixels.turn(h)
        let v = try #require(view.viewport)
        let rect = try #require(v.sourceRect(in: held.frame))
        #expect(step.after.contains(String(decoding: held.region.sixel(rect), as: UTF8.self)))
        #expect(h.app.frameDue == now + ImageView.settleDelay)
        #expect(posts.count == 0)
    }

    @Test("with the worker, a zoomed view drawn at rest with no region for its basis (the full-size decode landing after the settle) asks for the region ahead; the next step is cut from it")
    func regionAtRest() throws {
        let start = ContinuousClock.now
        var now = start
        // 1:1 (the step makes a region from the screen's decode), then the settle.
        let (h, view, posts) = try atActualSizeWithWorker(clock: { now })
        #expect(view.sixelRegionCounts == (0, 1, 0))
        let due = try #require(h.app.frameDue)
        now = due
        h.app.advanceFrames(now: due)
        _ = pixels.turn(h)
        try run(posts)
        _ = pixels.turn(h)
        // A settled view whose region is held asks for none.
        #expect(view.sixelPrefetches == 0)
        // The full-size decode lands at rest: a new basis; the view is drawn with its own
        // palette and the region around it is asked beside it (two posts, either order).
        var pixels2 = [UInt8](repeating: 255, count: 2000 * 1500 * 4)
        for i in stride(from: 0, to: pixels2.count, by: 4) { pixels2[i] = UInt8(i / 4 % 2000 * 255 / 1999) }
        let detail = DecodedImage(bitmap: RGBAImage(width: 2000, height: 1500, pixels: pixels2), sourceWidth: 4000, sourceHeight: 3000)
        h.app.apply(try #require(view.detailTicket), .success(detail))
        _ = pixels.turn(h)
        #expect(view.sixelPrefetches == 1)
        #expect(h.app.frameDue == nil)
        try run(posts)
        try run(posts)
        _ = pixels.turn(h)
        let held = try #require(view.heldSixelRegion)
        let v = try #require(view.viewport)
        #expect(held.frame == v.panRegion(maxPixels: ImageView.maxSixelRegionPixels))
        #expect(view.sixelRegionCounts == (0, 2, 0))
        // The next step is cut from it: no region made with it.
        now = due + .seconds(1)
        h.app.handle(.character("l"))
        _ = pixels.turn(h)
        try run(posts)
        let step = pixels.turn(h)
        let moved = try #require(view.viewport)
        let rect = try #require(moved.sourceRect(in: held.frame))
        #expect(step.after.contains(String(decoding: held.region.sixel(rect), as: UTF8.self)))
        #expect(view.sixelRegionCounts == (1, 2, 0))
        #expect(view.sixelPrefetches == 1)
        #expect(posts.count == 0)
    }
    @Test("with the worker, a zoom step with the last zoom's region held is a draft scaled from it, and the new zoom's region is made beside it; the next step is cut from that")
    func zoomDraft() throws {
        let (h, view, posts) = try atActualSizeWithWorker()
        let held = try #require(view.heldSixelRegion)
        #expect(view.sixelRegionCounts == (0, 1, 0))
        // + (150%): the view's part of the 1:1 region, enlarged to the view's cells.
        h.app.handle(.character("+"))
        _ = pixels.turn(h)
        let zoomed = try #require(view.viewport)
        #expect(zoomed.scale == 1.5)
        let part = try #require(zoomed.scaledSourceRect(in: held.frame, regionScale: 1))
        let size = PixelSize(width: part.columns * 10, height: part.rows * 20)
        #expect(view.sixelRegionCounts == (0, 1, 1) && view.sixelPrefetches == 1)
        // (the draft and the region made beside it: two posts, either order)
        try run(posts)
        try run(posts)
        let draft = pixels.turn(h)
        #expect(draft.after.contains(String(decoding: held.region.sixel(scaling: part.rect, to: size), as: UTF8.self)))
        let next = try #require(view.heldSixelRegion)
        #expect(next.frame == zoomed.panRegion(maxPixels: ImageView.maxSixelRegionPixels))
        #expect(view.sixelRegionCounts == (0, 2, 1))
        // The next step is cut from the 150% region.
        h.app.handle(.character("l"))
        _ = pixels.turn(h)
        try run(posts)
        let step = pixels.turn(h)
        let moved = try #require(view.viewport)
        let rect = try #require(moved.sourceRect(in: next.frame))
        #expect(step.after.contains(String(decoding: next.region.sixel(rect), as: UTF8.self)))
        #expect(view.sixelRegionCounts == (1, 2, 1) && view.sixelPrefetches == 1)
        #expect(posts.count == 0)
    }
}

