import Testing
@testable import HalfBlock

@Suite("Colourless mode: shading glyphs")
struct ShadingTests {
    @Test("Luminance picks the shading glyph", arguments: [
        (Pixel(0, 0, 0), " "),
        (Pixel(255, 255, 255), "\u{2588}"),   // █
        (Pixel(128, 128, 128), "\u{2591}"),   // ░: L 0.60 is nearest 25 % coverage (0.63)
        (Pixel(190, 190, 190), "\u{2592}"),   // ▒: Y 0.51, L 0.80
        (Pixel(225, 225, 225), "\u{2593}"),   // ▓: Y 0.75, L 0.91
    ] as [(Pixel, Unicode.Scalar)])
    func glyphForLuminance(_ pixel: Pixel, _ glyph: Unicode.Scalar) {
        // Given a solid grey
        let image = solidImage(2, 2, pixel)
        // When rendered without colour
        let grid = render(image, 1, 1, RenderOptions(colorMode: .none))
        // Then the cell is the expected glyph in the terminal's default colours
        #expect(grid[0, 0] == Cell(glyph: glyph, foreground: .terminalDefault, background: .terminalDefault))
    }

    @Test("Colour is reduced to luminance; transparency stays blank")
    func colourAndTransparency() {
        // Given pure green (luminance 0.7152) beside a transparent column
        let image = makeImage(2, 2, [.green, .clear, .green, .clear])
        // When rendered without colour
        let grid = render(image, 2, 1, RenderOptions(colorMode: .none))
        // Then green is ▓ and the transparent cell is blank
        #expect(grid.cells == [Cell(glyph: "\u{2593}", foreground: .terminalDefault, background: .terminalDefault), .blank])
    }

    @Test("A cell with one transparent half counts that half as black")
    func halfTransparent() {
        // Given white above a transparent pixel
        let image = makeImage(1, 2, [.white, .clear])
        // When rendered without colour
        let grid = render(image, 1, 1, RenderOptions(colorMode: .none))
        // Then the mean luminance is 0.5: ▒
        #expect(grid[0, 0].glyph == "\u{2592}")
    }
}
