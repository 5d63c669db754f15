import Testing
@testable import HalfBlock

@Suite("HalfBlockRenderer: cells in truecolor")
struct HalfBlockRendererTests {
    @Test("A 2x2 image becomes 2x1 cells with the exact pixel colours")
    func twoByTwoIsExact() {
        // Given a 2x2 image with four different opaque colours
        let image = makeImage(2, 2, [.red, .green, .blue, Pixel(10, 20, 30)])
        // When it is rendered into 2x1 cells (2x2 half-block pixels, no resampling)
        let grid = render(image, 2, 1)
        // Then each cell is ▀ with the top pixel in front and the bottom pixel behind
        #expect(grid.columns == 2 && grid.rows == 1)
        #expect(grid[0, 0] == Cell(glyph: upper, foreground: rgb(255, 0, 0), background: rgb(0, 0, 255)))
        #expect(grid[1, 0] == Cell(glyph: upper, foreground: rgb(0, 255, 0), background: rgb(10, 20, 30)))
    }

    @Test("Every 8-bit value survives the linear-light round trip")
    func identityRoundTrip() {
        // Given a 256x2 image holding every byte value in each channel
        let image = makeImage(256, 2) { x, y in
            Pixel(UInt8(x), UInt8(255 - x), UInt8(y == 0 ? x : (x * 7) % 256))
        }
        // When it is rendered at its own size
        let grid = render(image, 256, 1)
        // Then every cell holds the original bytes
        for x in 0..<256 {
            let top = rgb(UInt8(x), UInt8(255 - x), UInt8(x))
            let bottom = rgb(UInt8(x), UInt8(255 - x), UInt8((x * 7) % 256))
            let cell = grid[x, 0]
            if top == bottom {
                #expect(cell == space(top))
            } else {
                #expect(cell == Cell(glyph: upper, foreground: top, background: bottom))
            }
        }
    }

    @Test("Equal halves become a space in that colour")
    func equalHalvesAreASpace() {
        // Given a 1x2 image, both pixels the same orange
        let image = solidImage(1, 2, Pixel(255, 128, 0))
        // When it is rendered into one cell
        let grid = render(image, 1, 1)
        // Then the cell is a space whose background (and foreground) is that colour
        #expect(grid[0, 0] == space(rgb(255, 128, 0)))
    }

    @Test("A 1-px black/white checker averages to grey 188, not 127")
    func checkerAveragesInLinearLight() {
        // Given a 4x4 one-pixel black/white checkerboard
        let image = makeImage(4, 4) { x, y in (x + y) % 2 == 0 ? .black : .white }
        // When it is rendered into 2x1 cells (each half pixel averages a 2x2 block)
        let grid = render(image, 2, 1)
        // Then every half is linear 0.5, which is sRGB 188
        #expect(grid.cells == [space(grey(188)), space(grey(188))])
    }

    @Test("Downscaling weighs fractional coverage: 5 rows to 2 pixels")
    func fractionalCoverage() {
        // Given a 1x5 image: red, green, blue, white, black from top to bottom
        let image = makeImage(1, 5, [.red, .green, .blue, .white, .black])
        // When it is rendered into one cell (2 pixels, each covering 2.5 rows)
        let grid = render(image, 1, 1)
        // Then top = (red + green + blue/2) / 2.5 and bottom = (blue/2 + white + black) / 2.5, in linear light
        #expect(grid[0, 0] == Cell(glyph: upper, foreground: rgb(170, 170, 124), background: rgb(170, 170, 203)))
    }

    @Test("Upscaling an odd height (3 rows to 4 pixels) is a box filter")
    func oddHeightUpscale() {
        // Given a 1x3 image: red, green, blue
        let image = makeImage(1, 3, [.red, .green, .blue])
        // When it is rendered into 1x2 cells (4 pixels, each covering 0.75 rows)
        let grid = render(image, 1, 2)
        // Then the middle pixels mix their neighbours by coverage (1/3 : 2/3 in linear light)
        #expect(grid[0, 0] == Cell(glyph: upper, foreground: rgb(255, 0, 0), background: rgb(156, 213, 0)))
        #expect(grid[0, 1] == Cell(glyph: upper, foreground: rgb(0, 213, 156), background: rgb(0, 0, 255)))
    }

    @Test("A 1x1 image fills any box")
    func singlePixel() {
        // Given a single pixel
        let image = solidImage(1, 1, Pixel(1, 2, 3))
        // When it is rendered into 1x1 and 3x2 cells
        let one = render(image, 1, 1)
        let six = render(image, 3, 2)
        // Then every cell is a space of that colour
        #expect(one.cells == [space(rgb(1, 2, 3))])
        #expect(six.cells == Array(repeating: space(rgb(1, 2, 3)), count: 6))
    }

    @Test("A 4000x1 strip becomes one row of 80 cells")
    func wideStrip() {
        // Given a 4000x1 image, black on the left half and white on the right
        let image = makeImage(4000, 1) { x, _ in x < 2000 ? .black : .white }
        // When it is fitted into 80x40 and rendered
        let size = HalfBlockRenderer.fittedSize(imageWidth: 4000, imageHeight: 1, maxColumns: 80, maxRows: 40)
        let grid = render(image, size.columns, size.rows)
        // Then it is 80x1 cells, 40 black then 40 white
        #expect(size.columns == 80 && size.rows == 1)
        #expect(grid.cells == Array(repeating: space(grey(0)), count: 40) + Array(repeating: space(grey(255)), count: 40))
    }

    @Test("A 1x4000 strip becomes one column of 40 cells")
    func tallStrip() {
        // Given a 1x4000 image, red on top and blue below
        let image = makeImage(1, 4000) { _, y in y < 2000 ? .red : .blue }
        // When it is fitted into 80x40 and rendered
        let size = HalfBlockRenderer.fittedSize(imageWidth: 1, imageHeight: 4000, maxColumns: 80, maxRows: 40)
        let grid = render(image, size.columns, size.rows)
        // Then it is 1x40 cells, 20 red then 20 blue
        #expect(size.columns == 1 && size.rows == 40)
        #expect(grid.cells == Array(repeating: space(rgb(255, 0, 0)), count: 20) + Array(repeating: space(rgb(0, 0, 255)), count: 20))
    }

    @Test("An odd-sized photo-like image renders every cell without transparency")
    func oddSizes() {
        // Given a 7x13 gradient
        let image = makeImage(7, 13) { x, y in Pixel(UInt8(x * 36), UInt8(y * 19), 200) }
        // When it is rendered into 3x5 cells
        let grid = render(image, 3, 5)
        // Then the grid has 15 cells and none uses the default colours
        #expect(grid.cells.count == 15)
        #expect(grid.cells.allSatisfy { $0.foreground != .terminalDefault && $0.background != .terminalDefault })
    }

    @Test("A box of zero cells gives an empty grid")
    func emptyBox() {
        // Given any image
        let image = solidImage(2, 2, .red)
        // When it is rendered into 0 columns
        let grid = render(image, 0, 5)
        // Then nothing is drawn
        #expect(grid.columns == 0 && grid.rows == 0 && grid.cells.isEmpty)
    }
}
