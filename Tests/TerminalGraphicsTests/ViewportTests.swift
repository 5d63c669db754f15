import HalfBlock
import Testing

@testable import TerminalGraphics

@Suite("Viewport")
struct ViewportTests {
    /// A 4000x3000 photo in 120x40 cells of 10x20 pixels (1200x800 screen pixels).
    func photo() -> Viewport {
        Viewport(image: PixelSize(width: 4000, height: 3000), columns: 120, rows: 40, cell: PixelSize(width: 10, height: 20))
    }

    @Test("fit: the whole image, shrunk on load by 2 (4000/2 >= 1067), centred in the area")
    func fit() {
        let v = photo()
        #expect(abs(v.scale - 800.0 / 3000) < 1e-9)
        let f = v.frame
        #expect(f.region.x == 0 && f.region.y == 0 && f.region.width == 4000 && f.region.height == 3000)
        #expect(f.display == PixelSize(width: 1067, height: 800))
        #expect(f.shrink == 2)
        #expect(f.offset.columns == (120 - 107) / 2 && f.offset.rows == 0)
        #expect(v.statusText == "fit 27% · 0,0 4000x3000 of 4000x3000")
    }

    @Test("zoom in walks the ladder from the fit: 1/3, 1/2, 2/3, 1:1 … 16, then stays")
    func zoomInSteps() {
        var v = photo()
        var seen: [Double] = []
        for _ in 0..<20 {
            v.zoomIn()
            seen.append(v.scale)
        }
        let firstFour: [Double] = [1.0 / 3, 1.0 / 2, 2.0 / 3, 1]
        #expect(Array(seen.prefix(4)) == firstFour)
        #expect(seen.last == 16)
        #expect(Set(seen.suffix(5)) == [16])
    }

    @Test("1:1 shows a 1200x800 region at full resolution from the centre; zoom out returns to fit")
    func actualSize() {
        var v = photo()
        v.actualSize()
        let f = v.frame
        #expect(f.region.x == 1400 && f.region.y == 1100 && f.region.width == 1200 && f.region.height == 800)
        #expect(f.display == PixelSize(width: 1200, height: 800))
        #expect(f.shrink == 1)
        #expect(v.statusText == "100% · 1400,1100 1200x800 of 4000x3000")
        for _ in 0..<10 { v.zoomOut() }
        #expect(v.zoom == .fit)
    }

    @Test("at 1/4 the decode shrinks by 4; at 1/3 by 2; past 1:1 by 1 (the region is enlarged)")
    func shrinkFactors() {
        var v = photo()
        v.zoomIn()  // 1/3
        #expect(v.frame.shrink == 2)
        var small = Viewport(image: PixelSize(width: 16000, height: 12000), columns: 120, rows: 40, cell: PixelSize(width: 10, height: 20))
        #expect(small.frame.shrink == 8)  // fit 1/15: capped at libjpeg's 8
        small.zoomIn()  // 1/12
        #expect(small.frame.shrink == 8)
        var big = photo()
        big.actualSize()
        big.zoomIn()  // 1.5
        #expect(big.frame.shrink == 1)
        #expect(big.frame.region.width == 800 && big.frame.display.width == 1200)
    }

    @Test("pan moves by cells in source pixels at the scale, clamped to the image edges")
    func pan() {
        var v = photo()
        v.actualSize()
        v.pan(columns: 10, rows: -5)  // 100 px right, 100 px up at 1:1
        #expect(v.frame.region.x == 1500 && v.frame.region.y == 1000)
        v.pan(columns: 10_000, rows: 10_000)
        #expect(v.frame.region.x == 4000 - 1200 && v.frame.region.y == 3000 - 800)
        v.pan(columns: -10_000, rows: -10_000)
        #expect(v.frame.region.x == 0 && v.frame.region.y == 0)
        // At 2x a cell is half as many source pixels
        v.actualSize()
        v.zoomIn()
        v.zoomIn()  // 2
        let before = v.frame.region.x
        v.pan(columns: 10, rows: 0)
        #expect(v.frame.region.x == before + 50)
    }

    @Test("a small image is not enlarged at fit and cannot pan; a resize keeps zoom and clamps")
    func smallAndResize() {
        var flag = Viewport(image: PixelSize(width: 16, height: 11), columns: 80, rows: 24, cell: PixelSize(width: 10, height: 20))
        #expect(flag.scale == 1)
        #expect(flag.frame.display == PixelSize(width: 16, height: 11))
        flag.pan(columns: 5, rows: 5)
        #expect(flag.frame.region.x == 0 && flag.frame.region.y == 0)
        flag.zoomIn()
        #expect(flag.scale == 1.5)
        var v = photo()
        v.actualSize()
        v.pan(columns: 1000, rows: 1000)
        v.resize(columns: 200, rows: 60)
        let f = v.frame
        #expect(f.region.width == 2000 && f.region.height == 1200)
        #expect(f.region.x == 2000 && f.region.y == 1800)
        #expect(v.zoom == .scale(1))
    }
}

@Suite("Viewport frame pixels")
struct ViewportPixelsTests {
    /// A 400x300 image whose every pixel encodes its own coordinates (r = x % 256, g = y % 256,
    /// b = x / 256 * 16 + y / 256).
    func coordinates() -> RGBAImage {
        var p = [UInt8](repeating: 255, count: 400 * 300 * 4)
        for y in 0..<300 {
            for x in 0..<400 {
                let i = 4 * (y * 400 + x)
                p[i] = UInt8(x % 256)
                p[i + 1] = UInt8(y % 256)
                p[i + 2] = UInt8(x / 256 * 16 + y / 256)
            }
        }
        return RGBAImage(width: 400, height: 300, pixels: p)
    }

    func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [UInt8] {
        let i = 4 * (y * image.width + x)
        return Array(image.pixels[i..<(i + 4)])
    }

    @Test("at 1:1 a pan step is a crop of the decode: each pixel is the source pixel it shows")
    func crop() {
        var v = Viewport(image: PixelSize(width: 400, height: 300), columns: 10, rows: 5, cell: PixelSize(width: 10, height: 20))
        v.actualSize()
        v.pan(columns: 3, rows: 1)
        let f = v.frame
        let out = f.pixels(from: coordinates(), decodedShrink: 1)
        #expect(out.width == 100 && out.height == 100)
        for (x, y) in [(0, 0), (99, 0), (50, 77), (99, 99)] {
            let sx = f.region.x + x, sy = f.region.y + y
            #expect(pixel(out, x, y) == [UInt8(sx % 256), UInt8(sy % 256), UInt8(sx / 256 * 16 + sy / 256), 255])
        }
    }

    @Test("past 1:1 each source pixel becomes a block (nearest); at fit the decode is averaged down")
    func resample() {
        var v = Viewport(image: PixelSize(width: 400, height: 300), columns: 10, rows: 5, cell: PixelSize(width: 10, height: 20))
        v.actualSize()
        v.zoomIn()
        v.zoomIn()  // 2x: a 50x50 region on 100x100 pixels
        let f = v.frame
        #expect(f.region.width == 50 && f.display.width == 100)
        let out = f.pixels(from: coordinates(), decodedShrink: 1)
        #expect(pixel(out, 0, 0) == pixel(out, 1, 1))
        #expect(pixel(out, 21, 41)[0] == UInt8((f.region.x + 10) % 256))
        v.fit()
        let fit = v.frame
        let small = fit.pixels(from: coordinates(), decodedShrink: 1)
        #expect(small.width == fit.display.width && small.height == fit.display.height)
        // From a decode already shrunk by 2 the same frame comes out the same size
        let half = Viewport.Frame.crop(coordinates(), x: 0, y: 0, width: 400, height: 300)
        let shrunk = Viewport.Frame.nearest(half, width: 200, height: 150)
        #expect(fit.pixels(from: shrunk, decodedShrink: 2).width == fit.display.width)
    }
}
