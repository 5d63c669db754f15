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
        (Pixel(0, 35, 149), 19),      // the French flag's blue: cube (0, 0, 3) = 0, 0, 175 (ΔE00 6.30;
                                      // 18, 0, 0, 135, is 6.78 and too dark in luma)
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
        #expect(RenderOptions(colorMode: .palette256).dithering == .structure)
        #expect(RenderOptions(colorMode: .palette16).dithering == .structure)
        #expect(RenderOptions(colorMode: .none).dithering == .none)
        #expect(RenderOptions(colorMode: .palette256, dithering: .ordered).dithering == .ordered)
        #expect(ColorMode(rawValue: "256") == .palette256 && ColorMode(rawValue: "16") == .palette16)
    }

    // The 16-colour search (nearest by CIEDE2000) is checked against the scorer's formula in
    // DeltaE16Tests.agreesWithReference.
    @Test("The vectorised search finds the same entry as a plain scan", arguments: [ColorMode.palette256])
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
                    // (1 - s)·|ΔOKLab|² + s·|ΔsRGB|² + w·(y - y')² / (y² + y'² + 0.01²), sRGB
                    // and Rec. 709 luma in 0...1)
                    let lab = OKLab(linear: linear)
                    let s = subset.srgbShare, t = subset.okTolerance, w = subset.lumaWeight
                    let y = (0.2126 * Float(r * 17) + 0.7152 * Float(g * 17) + 0.0722 * Float(b * 17)) / 255
                    func ok(_ offset: Int) -> Float { lab.distanceSquared(to: XtermPalette.oklab[subset.base + offset]) }
                    func distance(_ offset: Int) -> Float {
                        let member = XtermPalette.colors[subset.base + offset]
                        let dr = Float(Int(r * 17) - Int(member.r)) / 255
                        let dg = Float(Int(g * 17) - Int(member.g)) / 255
                        let db = Float(Int(b * 17) - Int(member.b)) / 255
                        let my = (0.2126 * Float(member.r) + 0.7152 * Float(member.g) + 0.0722 * Float(member.b)) / 255
                        let luma = w * (y - my) * (y - my) / (y * y + my * my + 1e-4)
                        return (1 - s) * ok(offset) + s * (dr * dr + dg * dg + db * db) + luma
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

    @Test("256 colours blend sRGB in near the OKLab optimum; 16 colours match by CIEDE2000")
    func distanceBlend() {
        // Given the two palette subsets
        #expect(XtermPalette.extended.srgbShare == 0.5 && XtermPalette.extended.okTolerance == 0.3)
        #expect(XtermPalette.extended.lumaWeight == 0.1)
        #expect(XtermPalette.ansi16.srgbShare == 0 && XtermPalette.ansi16.lumaWeight == 0)
        #expect(XtermPalette.ansi16.deltaEMembers != nil && XtermPalette.extended.deltaEMembers == nil)
        #expect(XtermPalette.ansi16OKLab.deltaEMembers == nil && XtermPalette.ansi16.oklabOnly.deltaEMembers == nil)
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

    @Test("256 colours: the flag and ColorChecker patches take the measured entries")
    func flatPatches() {
        // Given the 24 flag colours and the 24 ColorChecker patches of scripts/make-quality-images.py
        let flags: [(Pixel, Int)] = [
            (Pixel(0, 35, 149), 19), (Pixel(237, 41, 57), 196), (Pixel(255, 255, 255), 231), (Pixel(0, 0, 0), 16),
            (Pixel(221, 0, 0), 160), (Pixel(255, 206, 0), 220), (Pixel(0, 146, 70), 29), (Pixel(206, 43, 55), 160),
            (Pixel(1, 33, 105), 18), (Pixel(200, 16, 46), 160), (Pixel(60, 59, 110), 238), (Pixel(178, 34, 52), 124),
            (Pixel(188, 0, 45), 124), (Pixel(0, 106, 167), 25), (Pixel(254, 204, 0), 220), (Pixel(0, 51, 153), 19),
            (Pixel(0, 156, 59), 35), (Pixel(255, 223, 0), 220), (Pixel(216, 43, 29), 160), (Pixel(0, 56, 147), 19),
            (Pixel(255, 153, 51), 208), (Pixel(19, 136, 8), 28), (Pixel(174, 28, 40), 124), (Pixel(33, 70, 139), 24),
        ]
        let checker: [(Pixel, Int)] = [
            (Pixel(115, 82, 68), 240), (Pixel(194, 150, 130), 138), (Pixel(98, 122, 157), 67), (Pixel(87, 108, 67), 59),
            (Pixel(133, 128, 177), 103), (Pixel(103, 189, 170), 73), (Pixel(214, 126, 44), 172), (Pixel(80, 91, 166), 61),
            (Pixel(193, 90, 99), 131), (Pixel(94, 60, 108), 239), (Pixel(157, 188, 64), 142), (Pixel(224, 163, 46), 178),
            (Pixel(56, 61, 150), 60), (Pixel(70, 148, 73), 65), (Pixel(175, 54, 60), 124), (Pixel(231, 199, 31), 184),
            (Pixel(187, 86, 149), 132), (Pixel(8, 133, 161), 31), (Pixel(243, 243, 242), 255), (Pixel(200, 200, 200), 251),
            (Pixel(160, 160, 160), 247), (Pixel(122, 122, 121), 243), (Pixel(85, 85, 85), 240), (Pixel(52, 52, 52), 236),
        ]
        // When each is rendered flat in 256 colours; Then it is the entry the quality table was
        // measured with (docs/PERFORMANCE.md): the French red 196, never the hot pink 197
        for (pixel, expected) in flags + checker {
            #expect(index(of: pixel, .palette256) == .indexed(UInt8(expected)), "\(pixel)")
        }
    }

    @Test("256 colours: the luma term keeps a dark blue on the brighter of two entries")
    func lumaTerm() {
        // Given the French blue (0, 35, 149), luma 0.140: entry 19 (0, 0, 175), its OKLab-nearest,
        // has luma 0.050, entry 18 (0, 0, 135), nearer in sRGB, 0.038
        let linear = LinearLight.linear(RGB(0, 35, 149))
        // When matched without and with the luma term (same tolerance and sRGB share)
        let without = XtermPalette.Subset(16..<256, srgbShare: 0.5, okTolerance: 0.3)
        // Then the blend without it moves to 18; with it the choice stays on plain OKLab's 19
        #expect(XtermPalette.Subset(16..<256).nearestIndex(linear: linear) == 19)
        #expect(without.nearestIndex(linear: linear) == 18)
        #expect(XtermPalette.extended.nearestIndex(linear: linear) == 19)
    }
}
