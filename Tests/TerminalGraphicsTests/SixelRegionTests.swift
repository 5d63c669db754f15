import Foundation
import HalfBlock
import Testing
import TestSupport

@testable import TerminalGraphics
@testable import TerminalUI

/// Sixel's pan region: a step cut from the region's indices is the same picture as dithering
/// the visible rectangle alone with the region's palette (the dither anchored at the region's
/// top-left), read back by ImageMagick.
@Suite("SixelRegion")
struct SixelRegionTests {
    let decode = SixelPresenterTests().decodeWithImageMagick

    /// The rectangle `x, y, w, h` of `image`.
    static func crop(_ image: RGBAImage, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> RGBAImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(w * h * 4)
        for row in y..<(y + h) { pixels += image.pixels[((row * image.width + x) * 4)..<((row * image.width + x + w) * 4)] }
        return RGBAImage(width: w, height: h, pixels: pixels)
    }

    @Test(
        "a step from the region (odd offsets, the edges, not whole bands) decodes to the pixels of the rectangle dithered alone in the region's palette",
        arguments: [(0, 0), (1, 1), (3, 5), (7, 13), (57, 41), (120, 90)])
    func stepMatchesDirect(offset: (x: Int, y: Int)) throws {
        // Given a 177x131 region and a 57x40 view (40 rows: six bands and four rows), at most at
        // the region's right and bottom edges
        let image = Pictures.smooth(width: 177, height: 131)
        let region = try #require(SixelRegion(pixels: image, background: RGB(0, 0, 0)))
        let w = 57, h = 40
        let x = min(offset.x, 177 - w), y = min(offset.y, 131 - h)
        // When the step is cut from the region
        let step = region.sixel(Viewport.PixelRect(x: x, y: y, width: w, height: h))
        // Then it is the rectangle dithered alone with its offset as the dither's origin, in
        // the same bytes
        let alone = Self.crop(image, x, y, w, h)
        let direct = region.palette.encode(alone, background: RGB(0, 0, 0), amplitude: SixelRegion.ditherAmplitude, origin: (x, y))
        #expect(step == direct, "(\(x), \(y))")
        // And ImageMagick reads both back at the rectangle's size to the same pixels
        let a = try decode(step), b = try decode(direct)
        #expect(a.width == w && a.height == h)
        let differing = (0..<(w * h)).filter { a.pixels[4 * $0..<4 * $0 + 3] != b.pixels[4 * $0..<4 * $0 + 3] }.count
        #expect(differing == 0, "(\(x), \(y)): \(differing) pixels differ")
        #expect(psnr(alone, a) > 28, "(\(x), \(y)): PSNR \(psnr(alone, a)) dB")
    }

    @Test("the dither is anchored to the region: a rectangle at an offset other than a multiple of 8, dithered from its own corner, gets other indices")
    func ditherAnchored() throws {
        let image = Pictures.smooth(width: 120, height: 80)
        let region = try #require(SixelRegion(pixels: image, background: RGB(0, 0, 0)))
        let alone = Self.crop(image, 3, 5, 60, 30)
        let anchored = region.palette.indices(alone, background: RGB(0, 0, 0), amplitude: SixelRegion.ditherAmplitude, origin: (3, 5))
        let ownCorner = region.palette.indices(alone, background: RGB(0, 0, 0), amplitude: SixelRegion.ditherAmplitude)
        var cut: [UInt8] = []
        for row in 5..<35 { cut += region.indices[(row * 120 + 3)..<(row * 120 + 63)] }
        #expect(anchored == cut)
        #expect(ownCorner != cut)
        // A multiple of 8 is the same tile position.
        let eight = Self.crop(image, 16, 8, 60, 30)
        #expect(
            region.palette.indices(eight, background: RGB(0, 0, 0), amplitude: SixelRegion.ditherAmplitude, origin: (16, 8))
                == region.palette.indices(eight, background: RGB(0, 0, 0), amplitude: SixelRegion.ditherAmplitude))
    }

    @Test("the whole region as one rectangle is the region's own encoding; a rectangle past the edges is clipped to the region")
    func wholeAndClipped() throws {
        let image = Pictures.smooth(width: 64, height: 50)
        let region = try #require(SixelRegion(pixels: image, background: RGB(0, 0, 0)))
        #expect(region.width == 64 && region.height == 50 && region.opaque)
        let whole = region.sixel(Viewport.PixelRect(x: 0, y: 0, width: 64, height: 50))
        #expect(whole == region.palette.encode(image, background: RGB(0, 0, 0), amplitude: SixelRegion.ditherAmplitude))
        let clipped = region.sixel(Viewport.PixelRect(x: 40, y: 30, width: 100, height: 100))
        #expect(String(decoding: clipped, as: UTF8.self).hasPrefix("\u{1B}Pq\"1;1;24;20"))
        // The encoder's picture carries the clipped size, wrapped for tmux when asked.
        let tmux = PresenterContext(cellWidth: 10, cellHeight: 20, tmuxPassthrough: true)
        let picture = PictureEncoder(.sixel, context: tmux).encode(
            region: region, rect: Viewport.PixelRect(x: 40, y: 30, width: 100, height: 100))
        #expect(picture.width == 24 && picture.height == 20)
        guard case .sequence(let bytes) = picture.payload else {
            Issue.record("not a sequence")
            return
        }
        #expect(bytes.starts(with: Array("\u{1B}Ptmux;".utf8)))
    }
    @Test("a zoom step's draft: the rectangle scaled by nearest neighbour on the indices, in the region's palette; at its own size it is the step")
    func scaledDraft() throws {
        let image = Pictures.smooth(width: 120, height: 90)
        let region = try #require(SixelRegion(pixels: image, background: RGB(0, 0, 0)))
        let rect = Viewport.PixelRect(x: 10, y: 7, width: 40, height: 30)
        // At its own size: the same bytes as the step.
        #expect(region.sixel(scaling: rect, to: PixelSize(width: 40, height: 30)) == region.sixel(rect))
        // At 150% (60x45): each output pixel takes the index under its centre.
        var expected: [UInt8] = []
        for oy in 0..<45 {
            for ox in 0..<60 { expected.append(region.indices[(7 + (2 * oy + 1) * 30 / 90) * 120 + 10 + (2 * ox + 1) * 40 / 120]) }
        }
        let draft = region.sixel(scaling: rect, to: PixelSize(width: 60, height: 45))
        #expect(draft == region.palette.encode(indices: expected, stride: 60, x: 0, y: 0, width: 60, height: 45))
        // ImageMagick reads it back at 60x45, near the rectangle enlarged.
        let decoded = try decode(draft)
        #expect(decoded.width == 60 && decoded.height == 45)
        var near: [UInt8] = []
        for oy in 0..<45 {
            for ox in 0..<60 {
                let p = ((7 + oy * 2 / 3) * 120 + 10 + ox * 2 / 3) * 4
                near += image.pixels[p..<p + 4]
            }
        }
        #expect(psnr(RGBAImage(width: 60, height: 45, pixels: near), decoded) > 22)
        // The encoder's picture has the draft's size.
        let picture = PictureEncoder(.sixel, context: PresenterContext(cellWidth: 10, cellHeight: 20))
            .encode(region: region, scaling: rect, to: PixelSize(width: 60, height: 45))
        #expect(picture.width == 60 && picture.height == 45 && picture.opaque)
    }
}

