/// The colourless mode: one shading character per cell, chosen from luminance.
///
/// The five glyphs " ░▒▓█" cover about 0, 25, 50, 75 and 100 % of the cell with the
/// foreground colour, so a cell of mean linear luminance `Y` (CIE 1931 Y from Rec. 709 / sRGB
/// primaries) takes the glyph whose coverage is nearest in perceived lightness: OKLab L, which
/// for a grey is the cube root of `Y` (Ottosson 2020). Light cells get dense glyphs, as a
/// terminal's usual light-on-dark default colours show them.
enum Shading {
    /// The glyphs from empty to full.
    static let glyphs: [Unicode.Scalar] = [" ", "\u{2591}", "\u{2592}", "\u{2593}", "\u{2588}"]

    /// OKLab lightness of each glyph's coverage (0, 0.25, 0.5, 0.75, 1 of full luminance).
    static let glyphLightness: [Float] = [0, 0.25, 0.5, 0.75, 1].map { OKLab.lightness(ofLuminance: $0) }

    /// Relative luminance of a linear-light sRGB colour (Rec. 709 / sRGB primaries, D65).
    @inline(__always)
    static func luminance(_ c: SIMD3<Float>) -> Float {
        0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z
    }

    /// The glyph for a mean linear luminance `y` (0...1).
    static func glyph(forLuminance y: Float) -> Unicode.Scalar {
        let l = OKLab.lightness(ofLuminance: y)
        var best = 0
        var bestDistance = Float.infinity
        for (i, g) in glyphLightness.enumerated() where abs(g - l) < bestDistance {
            bestDistance = abs(g - l)
            best = i
        }
        return glyphs[best]
    }

    /// Cells for `image` (`columns` x `2 * rows` pixels): each cell's glyph comes from the mean
    /// luminance of its two pixels (a transparent pixel counts as black); both pixels transparent
    /// give a blank. All colours are the terminal's defaults.
    static func cells(_ image: CompositedImage, columns: Int, rows: Int) -> [Cell] {
        var cells = [Cell]()
        cells.reserveCapacity(columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                let top = (2 * row) * columns + column
                let bottom = top + columns
                if image.transparent[top] && image.transparent[bottom] {
                    cells.append(.blank)
                    continue
                }
                let yTop = image.transparent[top] ? 0 : luminance(image.colors[top])
                let yBottom = image.transparent[bottom] ? 0 : luminance(image.colors[bottom])
                cells.append(Cell(glyph: glyph(forLuminance: (yTop + yBottom) / 2),
                                  foreground: .terminalDefault, background: .terminalDefault))
            }
        }
        return cells
    }
}
