import Testing
@testable import HalfBlock

@Suite("16 colours: nearest colour that keeps local luma detail")
struct StructureTests {
    /// Every half pixel's palette index, row-major on the `columns` x `2 * rows` grid.
    func halfPixels(_ grid: CellGrid) -> [Int] {
        var all = [Int](repeating: -1, count: grid.columns * grid.rows * 2)
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let cell = grid[column, row]
                let colours = cell.glyph == " " ? [cell.background, cell.background] : [cell.foreground, cell.background]
                for (half, colour) in colours.enumerated() {
                    if case .indexed(let n) = colour { all[(2 * row + half) * grid.columns + column] = Int(n) }
                }
            }
        }
        return all
    }

    @Test("16 colours default to the structure-preserving choice")
    func defaultMode() {
        #expect(Dithering.recommended(for: .palette16) == .structure)
        #expect(RenderOptions(colorMode: .palette16).dithering == .structure)
        #expect(RenderOptions(colorMode: .palette16, dithering: Dithering.none).dithering == Dithering.none)
        #expect(RenderOptions(colorMode: .palette256).dithering == .structure)
    }

    @Test("A flat colour between entries renders with no dither noise", arguments: [
        Pixel(0, 90, 90), Pixel(120, 140, 160), Pixel(237, 41, 57), Pixel(150, 150, 150),
    ])
    func flatStaysFlat(_ pixel: Pixel) {
        // Given a flat colour that no 16-colour entry matches
        let image = solidImage(40, 40, pixel)
        // When rendered in 16 colours with the default and with plain nearest colour
        let structured = halfPixels(render(image, 40, 20, RenderOptions(colorMode: .palette16)))
        let nearest = halfPixels(render(image, 40, 20, RenderOptions(colorMode: .palette16, dithering: Dithering.none)))
        // Then every half pixel is the one nearest entry: no pattern is added
        #expect(Set(structured).count == 1)
        #expect(structured == nearest)
    }

    @Test("Flat patches side by side stay flat inside, away from their edges")
    func patchesStayFlat() {
        // Given a teal and a red patch, 24 pixels each
        let image = makeImage(48, 24) { x, _ in x < 24 ? Pixel(0, 90, 90) : Pixel(175, 54, 60) }
        // When rendered in 16 colours
        let pixels = halfPixels(render(image, 48, 12, RenderOptions(colorMode: .palette16)))
        // Then each patch's interior (more than the 3-pixel window from the edge) has one index,
        // the patch's nearest entry
        let nearest = XtermPalette.ansi16.nearestIndex(linear: LinearLight.linear(RGB(0, 90, 90)))
        let nearestRed = XtermPalette.ansi16.nearestIndex(linear: LinearLight.linear(RGB(175, 54, 60)))
        for y in 0..<24 {
            for x in 0..<20 { #expect(pixels[y * 48 + x] == nearest) }
            for x in 28..<48 { #expect(pixels[y * 48 + x] == nearestRed) }
        }
    }

    @Test("Blue-grey stripes that fall inside one entry are drawn as a known pair: blue 12 and grey 8")
    func stripesKeepDetail() {
        // Given 2-pixel blue-grey stripes, (90, 110, 130) and (150, 170, 190): both nearest
        // (CIEDE2000) to grey 8 (127)
        let image = makeImage(32, 32) { x, _ in (x / 2) % 2 == 0 ? Pixel(90, 110, 130) : Pixel(150, 170, 190) }
        // When rendered with plain nearest colour and with the default
        let nearest = halfPixels(render(image, 32, 16, RenderOptions(colorMode: .palette16, dithering: Dithering.none)))
        let structured = halfPixels(render(image, 32, 16, RenderOptions(colorMode: .palette16)))
        // Then plain nearest loses the stripes (one colour) and the default keeps them: dark
        // stripes take blue 12 (92, 92, 255; luma 0.41, under grey 8's 0.50), bright ones stay 8
        // (columns 0-23; the raster-order sweeps draw the bright pair at 26-27 in cyan 6)
        #expect(Set(nearest) == [8])
        for y in 0..<32 {
            for x in 0..<24 { #expect(structured[y * 32 + x] == ((x / 2) % 2 == 0 ? 12 : 8), "pixel \(x),\(y)") }
        }
    }

    @Test("Grey stripes inside grey 8 stay grey: no hue is added to a grey texture")
    func greyStripesStayGrey() {
        // Given 2-pixel grey stripes, sRGB 100 and 160, both nearest to grey 8 (127)
        let image = makeImage(32, 32) { x, _ in (x / 2) % 2 == 0 ? Pixel(100, 100, 100) : Pixel(160, 160, 160) }
        // When rendered in 16 colours by default
        let structured = halfPixels(render(image, 32, 16, RenderOptions(colorMode: .palette16)))
        // Then every half pixel is grey 8: by CIEDE2000 the cyan 6 (0, 205, 205) that the OKLab
        // data term took for the bright stripes is 25.0 away from grey 160 (grey 8: 11.2), more
        // than the detail it would bring back is worth
        #expect(Set(structured) == [8])
    }

    @Test("Asked for in 256 colours (15 groups of 16 members), a flat French red stays 196")
    func palette256FlatRed() {
        // Given the French flag's red, flat, and a grey stripe pattern beside it
        let image = makeImage(32, 16) { x, _ in x < 16 ? Pixel(237, 41, 57) : ((x / 2) % 2 == 0 ? Pixel(100, 100, 100) : Pixel(160, 160, 160)) }
        // When rendered in 256 colours with the structure-preserving choice
        let pixels = halfPixels(render(image, 32, 8, RenderOptions(colorMode: .palette256, dithering: .structure)))
        // Then the red, farther than 6 pixels (two 3-pixel window radii) from the stripes, is
        // index 196 (255, 0, 0), and every index is in 16-255
        for y in 0..<16 {
            for x in 0..<10 { #expect(pixels[y * 32 + x] == 196) }
        }
        #expect(pixels.allSatisfy { (16..<256).contains($0) })
        // And a picture of that red alone is 196 to its borders: the local mean is the Gaussian
        // renormalised to the picture, so a border is no detail
        let flat = halfPixels(render(solidImage(24, 24, Pixel(237, 41, 57)), 24, 12, RenderOptions(colorMode: .palette256, dithering: .structure)))
        #expect(Set(flat) == [196])
    }

    @Test("With no weight on detail the choice is plain nearest colour (ΔE00 in 16 colours)")
    func zeroWeightIsNearest() {
        // Given a picture with every kind of colour
        let image = makeImage(24, 24) { x, y in Pixel(UInt8(x * 11), UInt8(y * 11), UInt8((x * y) % 256)) }
        let composited = Compositor.composite(
            BoxFilter.resize(image, width: 24, height: 24), onto: .terminalDefault, threshold: HalfBlockRenderer.transparencyThreshold)
        // When quantised with weight 0, and plainly
        let structured = PaletteQuantizer.structured(composited, palette: XtermPalette.ansi16, weight: 0, sweeps: 2)
        let nearest = PaletteQuantizer.nearest(composited, palette: XtermPalette.ansi16)
        // Then they agree everywhere
        #expect(structured == nearest)
    }

    @Test("Transparent half cells stay transparent in the structure-preserving choice")
    func transparentStays() {
        // Given fine grey detail with a fully transparent left half
        let image = makeImage(16, 16) { x, y in x < 8 ? Pixel.clear : ((x + y) % 2 == 0 ? Pixel(105, 105, 105) : Pixel(150, 150, 150)) }
        // When rendered in 16 colours
        let grid = render(image, 16, 8, RenderOptions(colorMode: .palette16))
        // Then the left half is blank (the terminal's background) and the right half indexed
        for row in 0..<8 {
            for column in 0..<8 { #expect(grid[column, row] == .blank) }
            for column in 8..<16 { #expect(grid[column, row] != .blank) }
        }
    }
}
