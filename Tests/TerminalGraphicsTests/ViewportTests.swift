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
