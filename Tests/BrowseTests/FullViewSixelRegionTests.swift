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
        #expect(view.heldSixelRegion?.frame != held.frame)
        // Back to the fit: libsixel again, the region's count unchanged.
        h.app.handle(.character("w"))
        let fit = pixels.turn(h)
        #expect(fit.after.contains("\u{1B}P"))
        #expect(view.sixelRegionCounts.regions == 2)
    }
}
