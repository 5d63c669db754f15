import Testing
@testable import HalfBlock

@Suite("HalfBlockRenderer: transparency and backgrounds")
struct TransparencyTests {
    @Test("A transparent top half gives ▄ over the default background")
    func transparentTop() {
        // Given a 1x2 image, transparent above an opaque red pixel
        let image = makeImage(1, 2, [.clear, .red])
        // When it is rendered onto the terminal's default background
        let grid = render(image, 1, 1)
        // Then the cell is ▄ in red over the default background
        #expect(grid[0, 0] == Cell(glyph: lower, foreground: rgb(255, 0, 0), background: .terminalDefault))
    }

    @Test("A transparent bottom half gives ▀ over the default background")
    func transparentBottom() {
        // Given a 1x2 image, opaque green above a transparent pixel
        let image = makeImage(1, 2, [.green, .clear])
        // When it is rendered onto the terminal's default background
        let grid = render(image, 1, 1)
        // Then the cell is ▀ in green over the default background
        #expect(grid[0, 0] == Cell(glyph: upper, foreground: rgb(0, 255, 0), background: .terminalDefault))
    }

    @Test("Both halves transparent give a blank cell")
    func bothTransparent() {
        // Given a fully transparent image hiding white
        let image = solidImage(2, 2, Pixel(255, 255, 255, 0))
        // When it is rendered onto the terminal's default background
        let grid = render(image, 2, 1)
        // Then both cells are blank in the default colours
        #expect(grid.cells == [.blank, .blank])
    }

    @Test("Alpha below the threshold counts as transparent")
    func nearlyTransparent() {
        // Given a white pixel at alpha 3/255 above opaque blue
        let image = makeImage(1, 2, [Pixel(255, 255, 255, 3), .blue])
        // When it is rendered onto the terminal's default background
        let grid = render(image, 1, 1)
        // Then the top half is left to the terminal
        #expect(grid[0, 0] == Cell(glyph: lower, foreground: rgb(0, 0, 255), background: .terminalDefault))
    }

    @Test("Half alpha is composited onto black in linear light")
    func partialAlphaOntoBlack() {
        // Given white at alpha 128 above opaque white
        let image = makeImage(1, 2, [Pixel(255, 255, 255, 128), .white])
        // When it is rendered onto the terminal's default background
        let grid = render(image, 1, 1)
        // Then the top is linear 128/255 of white: sRGB 188
        #expect(grid[0, 0] == Cell(glyph: upper, foreground: grey(188), background: grey(255)))
    }

    @Test("A known terminal background: partial alpha onto it in linear light, full transparency stays SGR 49")
    func knownTerminalBackground() {
        // Given white at alpha 128 above a fully transparent pixel, on a terminal whose
        // background is sRGB (40, 40, 40) (its answer to OSC 11)
        let image = makeImage(1, 2, [Pixel(255, 255, 255, 128), .clear])
        // When it is rendered
        let grid = render(image, 1, 1, RenderOptions(background: .terminal(RGB(40, 40, 40))))
        // Then the top is 128/255 white + 127/255 of linear 40 (0.0212): linear 0.5125, sRGB 190
        // and the bottom is left to the terminal
        #expect(grid[0, 0] == Cell(glyph: upper, foreground: grey(190), background: .terminalDefault))
        // And on a white terminal the same half-transparent white is white
        let onWhite = render(image, 1, 1, RenderOptions(background: .terminal(RGB(255, 255, 255))))
        #expect(onWhite[0, 0] == Cell(glyph: upper, foreground: grey(255), background: .terminalDefault))
    }

    @Test("A transparent pixel's hidden colour does not leak into its neighbour")
    func hiddenColourDoesNotLeak() {
        // Given opaque red beside a fully transparent pixel that hides pure green
        let image = makeImage(2, 1, [.red, Pixel(0, 255, 0, 0)])
        // When both are averaged into one cell
        let grid = render(image, 1, 1)
        // Then the result is half-covered red over black, with no green at all
        #expect(grid[0, 0] == space(rgb(188, 0, 0)))
    }

    @Test("A colour background composites partial alpha and never uses the default colour")
    func colourBackground() {
        // Given transparent pixels above blue at alpha 128
        let image = makeImage(1, 2, [.clear, Pixel(0, 0, 255, 128)])
        // When it is rendered onto red
        let grid = render(image, 1, 1, RenderOptions(background: .color(RGB(255, 0, 0))))
        // Then the top is the red background and the bottom a linear-light mix of red and blue
        #expect(grid[0, 0] == Cell(glyph: upper, foreground: rgb(255, 0, 0), background: rgb(187, 0, 188)))
    }

    @Test("The checker background has 8x8-pixel light and dark squares")
    func checkerBackground() {
        // Given a fully transparent 16x16 image
        let image = solidImage(16, 16, .clear)
        // When it is rendered onto the checker at 16x8 cells (16x16 pixels)
        let grid = render(image, 16, 8, RenderOptions(background: .checker))
        // Then pixels 0-7 are light, 8-15 dark, alternating by rows of squares too
        #expect(grid[0, 0] == space(grey(153)))
        #expect(grid[7, 3] == space(grey(153)))
        #expect(grid[8, 0] == space(grey(102)))
        #expect(grid[0, 4] == space(grey(102)))
        #expect(grid[15, 7] == space(grey(153)))
        #expect(!grid.cells.contains { $0.background == .terminalDefault })
    }

    @Test("Transparency in 256 colours keeps the default background half")
    func transparencyInPaletteMode() {
        // Given transparent above pure red
        let image = makeImage(1, 2, [.clear, .red])
        // When it is rendered in 256 colours with each dithering
        for dithering in Dithering.allCases {
            let grid = render(image, 1, 1, RenderOptions(colorMode: .palette256, dithering: dithering))
            // Then the cell is ▄ in palette red (196) over the default background
            #expect(grid[0, 0] == Cell(glyph: lower, foreground: .indexed(196), background: .terminalDefault))
        }
    }
}
