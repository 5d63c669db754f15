import Testing
@testable import HalfBlock

@Suite("Palette modes: 256 and 16 colours")
struct PaletteTests {
    /// The index a solid colour renders to (one cell, both halves the same).
    func index(of pixel: Pixel, _ mode: ColorMode, _ dithering: Dithering = Dithering.none) -> TerminalColor {
        let grid = render(solidImage(1, 2, pixel), 1, 1, RenderOptions(colorMode: mode, dithering: dithering))
        #expect(grid[0, 0].glyph == " ")
        return grid[0, 0].background
    }

    @Test("256 colours: exact palette members map to themselves, never to 0-15", arguments: [
        (Pixel(255, 0, 0), 196),      // pure red: cube (5, 0, 0)
        (Pixel(128, 128, 128), 244),  // mid grey: ramp step 12 (8 + 10 * 12)
        (Pixel(0, 0, 0), 16),         // black: cube origin, not index 0
        (Pixel(255, 255, 255), 231),  // white: cube corner, not index 15
        (Pixel(0, 95, 175), 25),      // cube (0, 1, 3)
        (Pixel(238, 238, 238), 255),  // lightest ramp grey
    ])
    func exactMembers(_ pixel: Pixel, _ expected: Int) {
        // Given a solid colour; When rendered in 256 colours without dithering
        // Then it is that palette entry
        #expect(index(of: pixel, .palette256) == .indexed(UInt8(expected)))
    }

    @Test("256 colours: nearest in OKLab", arguments: [
        (Pixel(100, 100, 100), 241),  // grey 98 on the ramp beats the cube's 95 and 135
        (Pixel(250, 130, 5), 208),    // orange: cube (5, 2, 0) = 255, 135, 0
        (Pixel(25, 25, 25), 234),     // near black: ramp grey 28, not cube black
        (Pixel(237, 41, 57), 196),    // the French flag's red: red (255, 0, 0), not hot pink 197
        (Pixel(0, 35, 149), 18),      // the French flag's blue: cube (0, 0, 2) = 0, 0, 135
    ])
    func nearest(_ pixel: Pixel, _ expected: Int) {
        // Given an off-palette colour; When rendered in 256 colours
        // Then it takes the perceptually nearest entry
        #expect(index(of: pixel, .palette256) == .indexed(UInt8(expected)))
    }

    @Test("16 colours: xterm's default ANSI palette", arguments: [
        (Pixel(255, 0, 0), 9),        // bright red
        (Pixel(200, 0, 0), 1),        // red (205, 0, 0)
        (Pixel(0, 0, 238), 4),        // blue
        (Pixel(128, 128, 128), 8),    // bright black (127)
        (Pixel(0, 0, 0), 0),
        (Pixel(255, 255, 255), 15),
        (Pixel(230, 230, 230), 7),
    ])
    func sixteen(_ pixel: Pixel, _ expected: Int) {
        // Given a solid colour; When rendered in 16 colours without dithering
        // Then it is the expected ANSI colour
        #expect(index(of: pixel, .palette16) == .indexed(UInt8(expected)))
    }

    @Test("Palette lookup table matches xterm")
    func paletteTable() {
        // Given the xterm palette; Then spot entries have xterm's values
        #expect(XtermPalette.colors.count == 256)
        #expect(XtermPalette.colors[12] == RGB(92, 92, 255))
        #expect(XtermPalette.colors[16] == RGB(0, 0, 0))
        #expect(XtermPalette.colors[196] == RGB(255, 0, 0))
        #expect(XtermPalette.colors[232] == RGB(8, 8, 8))
        #expect(XtermPalette.colors[255] == RGB(238, 238, 238))
    }

    @Test("Ordered dithering mixes neighbouring entries on a flat in-between colour")
    func orderedMixes() {
        // Given a flat colour between cube levels (sRGB 115 lies between 95 and 135)
        let image = solidImage(8, 8, Pixel(115, 0, 0))
        // When rendered in 256 colours, undithered and ordered
        let plain = render(image, 8, 4, RenderOptions(colorMode: .palette256, dithering: Dithering.none))
        let ordered = render(image, 8, 4, RenderOptions(colorMode: .palette256, dithering: .ordered))
        // Then undithered uses one colour and ordered uses at least two
        let plainColours = Set(plain.cells.flatMap { [$0.foreground, $0.background] })
        let orderedColours = Set(ordered.cells.flatMap { [$0.foreground, $0.background] })
        #expect(plainColours.count == 1)
        #expect(orderedColours.count >= 2)
    }

    @Test("Error diffusion keeps the mean colour of a flat area")
    func diffusionKeepsMean() {
        // Given a flat dark teal that no 16-colour entry matches
        let pixel = Pixel(0, 90, 90)
        let image = solidImage(32, 32, pixel)
        // When rendered in 16 colours with diffusion
        let grid = render(image, 32, 16, RenderOptions(colorMode: .palette16, dithering: .diffusion))
        // Then the mean linear colour of all half pixels is close to the original's
        var sum = SIMD3<Float>.zero
        for cell in grid.cells {
            for c in cell.glyph == " " ? [cell.background, cell.background] : [cell.foreground, cell.background] {
                guard case .indexed(let n) = c else { Issue.record("expected an index"); return }
                #expect(n < 16)
                sum += XtermPalette.linear[Int(n)]
            }
        }
        let mean = sum / Float(grid.cells.count * 2)
        let target = LinearLight.linear(RGB(pixel.r, pixel.g, pixel.b))
        #expect(abs(mean.y - target.y) < 0.02 && abs(mean.z - target.z) < 0.02 && mean.x < 0.02)
    }

    @Test("Error diffusion leaves a flat colour close to a palette entry flat", arguments: [ColorMode.palette16, .palette256])
    func diffusionKeepsCloseColoursFlat(_ mode: ColorMode) {
        // Given a flat red 5 codes away from xterm red (205, 0, 0) and cube red 160 (215, 0, 0),
        // beside a colour far from every entry whose error would otherwise spill into it
        var pixels = [Pixel]()
        for _ in 0..<16 { pixels += Array(repeating: Pixel(0, 90, 90), count: 8) + Array(repeating: Pixel(210, 3, 3), count: 24) }
        let image = RGBAImage(width: 32, height: 16, pixels: pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] })
        // When rendered with diffusion
        let grid = render(image, 32, 8, RenderOptions(colorMode: mode, dithering: .diffusion))
        // Then every half pixel of the red area (away from the boundary column) has one colour
        var reds = Set<TerminalColor>()
        for row in 0..<8 {
            for column in 10..<32 {
                reds.insert(grid[column, row].foreground)
                reds.insert(grid[column, row].background)
            }
        }
        #expect(reds.count == 1)
    }

    @Test("Default dithering per mode")
    func defaults() {
        // Given options built for each mode; Then dithering is the measured default
        #expect(RenderOptions().dithering == .none)
        #expect(RenderOptions(colorMode: .palette256).dithering == .none)
        #expect(RenderOptions(colorMode: .palette16).dithering == .structure)
        #expect(RenderOptions(colorMode: .none).dithering == .none)
        #expect(RenderOptions(colorMode: .palette256, dithering: .ordered).dithering == .ordered)
        #expect(ColorMode(rawValue: "256") == .palette256 && ColorMode(rawValue: "16") == .palette16)
    }

    @Test("The vectorised search finds the same entry as a plain scan", arguments: [ColorMode.palette256, .palette16])
    func vectorisedSearchIsExact(_ mode: ColorMode) {
        // Given 4096 colours spread over the sRGB cube (16 levels per channel)
        let subset = XtermPalette.subset(for: mode.paletteIndices!)
        var mismatches = 0
        for r in 0..<16 {
            for g in 0..<16 {
                for b in 0..<16 {
                    let linear = LinearLight.linear(RGB(UInt8(r * 17), UInt8(g * 17), UInt8(b * 17)))
                    // When the nearest entry is found both ways: a plain scan of the rule
                    // (within (1 + t)² of the OKLab-nearest squared distance, the smallest
                    // (1 - s)·|ΔOKLab|² + s·|ΔsRGB|², sRGB in 0...1)
                    let lab = OKLab(linear: linear)
                    let s = subset.srgbShare, t = subset.okTolerance
                    func ok(_ offset: Int) -> Float { lab.distanceSquared(to: XtermPalette.oklab[subset.base + offset]) }
                    func distance(_ offset: Int) -> Float {
                        let member = XtermPalette.colors[subset.base + offset]
                        let dr = Float(Int(r * 17) - Int(member.r)) / 255
                        let dg = Float(Int(g * 17) - Int(member.g)) / 255
                        let db = Float(Int(b * 17) - Int(member.b)) / 255
                        return (1 - s) * ok(offset) + s * (dr * dr + dg * dg + db * db)
                    }
                    let nearestOK = (0..<subset.count).min { ok($0) < ok($1) }!
                    let scan: Int
                    if s == 0 || t == 0 {
                        scan = subset.base + nearestOK
                    } else {
                        let reach = (1 + t) * (1 + t) * ok(nearestOK)
                        scan = subset.base + (0..<subset.count).filter { ok($0) <= reach }.min { distance($0) < distance($1) }!
                    }
                    if subset.nearestIndex(linear: linear) != scan { mismatches += 1 }
                }
            }
        }
        // Then they always agree
        #expect(mismatches == 0)
    }

    @Test("256 colours blend sRGB in near the OKLab optimum; 16 colours match in plain OKLab")
    func distanceBlend() {
        // Given the two palette subsets
        #expect(XtermPalette.extended.srgbShare == 0.3 && XtermPalette.extended.okTolerance == 0.4)
        #expect(XtermPalette.ansi16.srgbShare == 0)
        // When 18³ colours over the sRGB cube are matched with plain OKLab and with the blend
        var disagreements = 0
        let plain = XtermPalette.Subset(16..<256)
        for r in stride(from: 0, through: 255, by: 15) {
            for g in stride(from: 0, through: 255, by: 15) {
                for b in stride(from: 0, through: 255, by: 15) {
                    let linear = LinearLight.linear(RGB(UInt8(r), UInt8(g), UInt8(b)))
                    if plain.nearestIndex(linear: linear) != XtermPalette.extended.nearestIndex(linear: linear) {
                        disagreements += 1
                    }
                }
            }
        }
        // Then the blend changes some choices but not most (palette members map to themselves)
        #expect(disagreements > 0 && disagreements < 18 * 18 * 18 / 4)
        for index in 16..<256 {
            #expect(XtermPalette.extended.nearestIndex(linear: XtermPalette.linear[index]) == index
                || XtermPalette.colors[XtermPalette.extended.nearestIndex(linear: XtermPalette.linear[index])] == XtermPalette.colors[index])
        }
    }
}
