import Testing
@testable import HalfBlock

@Suite("256 colours: greys that keep their local luma detail")
struct GreyStructureTests {
    /// Every half pixel's palette index, row-major on the `columns` x `2 * rows` grid.
    func halfPixels(_ grid: CellGrid) -> [Int] {
        StructureTests().halfPixels(grid)
    }

    /// `image` resized to `width` x `height` and composited, as the renderer quantises it.
    func composited(_ image: RGBAImage, _ width: Int, _ height: Int) -> CompositedImage {
        Compositor.composite(
            BoxFilter.resize(image, width: width, height: height), onto: .terminalDefault,
            threshold: HalfBlockRenderer.transparencyThreshold)
    }

    @Test("A flat grey with a few codes of noise across a ramp midpoint is drawn in one grey")
    func noisyFlatGrey() {
        // Given grey 161 with every 7th pixel at 163, the kind of noise a decode leaves in a flat
        // area: 161 is ramp grey 158 (247); 163, halfway to 168 (248), is 248 by the rule, with
        // 247 a candidate too (within the OKLab tolerance; for 164 and 162 only one entry is)
        let image = makeImage(48, 48) { x, y in (x + 3 * y) % 7 == 0 ? Pixel(163, 163, 163) : Pixel(161, 161, 161) }
        // When rendered in 256 colours with plain nearest colour and with the default
        let nearest = halfPixels(render(image, 48, 24, RenderOptions(colorMode: .palette256, dithering: Dithering.none)))
        let structured = halfPixels(render(image, 48, 24, RenderOptions(colorMode: .palette256)))
        // Then plain nearest draws the noise as scattered steps of a whole ramp step (248 among
        // 247), and the default draws the flat grey in its one entry
        #expect(Set(nearest) == [247, 248])
        #expect(Set(structured) == [247])
    }

    @Test("Grey stripes keep their two entries", arguments: [(150, 172), (98, 108), (60, 200)])
    func stripesKept(_ dark: Int, _ bright: Int) {
        // Given 2-pixel grey stripes, each shade near its own grey entry
        let image = makeImage(32, 32) { x, _ in
            let v = UInt8((x / 2) % 2 == 0 ? dark : bright)
            return Pixel(v, v, v)
        }
        // When rendered in 256 colours with plain nearest colour and with the default
        let nearest = halfPixels(render(image, 32, 16, RenderOptions(colorMode: .palette256, dithering: Dithering.none)))
        let structured = halfPixels(render(image, 32, 16, RenderOptions(colorMode: .palette256)))
        // Then the detail is the picture's own and stays as it is: two entries, as plain nearest
        #expect(Set(nearest).count == 2)
        #expect(structured == nearest)
    }

    @Test("Coloured pixels keep the palette rule's entry; with no weight on detail nothing moves")
    func colouredPixelsStay() {
        // Given every kind of colour, with grey columns of fine luma detail among them
        let image = makeImage(40, 40) { x, y in
            if x % 5 == 0 { let v = UInt8(100 + (x * 7 + y * 13) % 90); return Pixel(v, v, v) }
            return Pixel(UInt8(x * 6), UInt8(y * 6), UInt8((x * y) % 256))
        }
        let picture = composited(image, 40, 40)
        let palette = XtermPalette.extended
        // When quantised by the rule alone, by the default, and by the default with weight 0
        let nearest = PaletteQuantizer.nearest(picture, palette: palette)
        let structured = PaletteQuantizer.quantize(picture, palette: palette, dithering: .structure, tuning: PaletteQuantizer.tuning256)
        let unweighted = PaletteQuantizer.greysStructured(picture, palette: palette, weight: 0, sweeps: 2)
        // Then with weight 0 the blended costs of the grey lanes agree with the search's, so no
        // pixel moves
        #expect(unweighted == nearest)
        // And the default moves only pixels drawn in a grey, and only to another grey
        let greys = Set(palette.greyOffsets.map { palette.base + $0 })
        #expect(greys.count == 30)
        var moved = 0
        for i in nearest.indices where structured[i] != nearest[i] {
            moved += 1
            #expect(greys.contains(Int(nearest[i])) && greys.contains(Int(structured[i])), "pixel \(i)")
        }
        #expect(moved < nearest.count / 10)
    }

    @Test("Transparent half cells stay transparent")
    func transparentStays() {
        // Given noisy grey with a fully transparent left half
        let image = makeImage(16, 16) { x, y in x < 8 ? Pixel.clear : ((x + y) % 5 == 0 ? Pixel(163, 163, 163) : Pixel(161, 161, 161)) }
        // When rendered in 256 colours by default
        let grid = render(image, 16, 8, RenderOptions(colorMode: .palette256))
        // Then the left half is blank and the right half one grey (247)
        for row in 0..<8 {
            for column in 0..<8 { #expect(grid[column, row] == .blank) }
            for column in 8..<16 { #expect(grid[column, row] == space(.indexed(247))) }
        }
    }
}
