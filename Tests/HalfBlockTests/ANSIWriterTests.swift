import Testing
@testable import HalfBlock

@Suite("ANSIWriter")
struct ANSIWriterTests {
    let red = RGB(255, 0, 0), blue = RGB(0, 0, 255), green = RGB(0, 255, 0)

    func grid(_ columns: Int, _ rows: Int, _ cells: [Cell]) -> CellGrid {
        CellGrid(columns: columns, rows: rows, cells: cells)
    }

    @Test("One truecolor cell: fg and bg share one SGR, one reset, one newline")
    func truecolorCell() {
        // Given one ▀ cell, red over blue
        let g = grid(1, 1, [Cell(glyph: upper, foreground: .rgb(red), background: .rgb(blue))])
        // When written in truecolor
        let s = ANSIWriter.string(for: g, colorMode: .truecolor)
        // Then it is exactly one combined SGR, the glyph, a reset and a newline
        #expect(s == "\(ESC)[38;2;255;0;0;48;2;0;0;255m▀\(ESC)[0m\n")
    }

    @Test("Unchanged colours are not repeated; a lone change sets only that colour")
    func noRepeatedSGR() {
        // Given three identical cells, then one whose background alone changes
        let a = Cell(glyph: upper, foreground: .rgb(red), background: .rgb(blue))
        let b = Cell(glyph: upper, foreground: .rgb(red), background: .rgb(green))
        let g = grid(4, 1, [a, a, a, b])
        // When written in truecolor
        let s = ANSIWriter.string(for: g, colorMode: .truecolor)
        // Then there is one SGR for the first three and a background-only SGR for the fourth
        #expect(s == "\(ESC)[38;2;255;0;0;48;2;0;0;255m▀▀▀\(ESC)[48;2;0;255;0m▀\(ESC)[0m\n")
    }

    @Test("A space sets no foreground")
    func spaceSkipsForeground() {
        // Given a space in blue after a red-over-green cell, then a space in green
        let g = grid(3, 1, [Cell(glyph: upper, foreground: .rgb(red), background: .rgb(green)),
                            space(.rgb(blue)), space(.rgb(green))])
        // When written in 256-colour form of truecolor cells
        let s = ANSIWriter.string(for: g, colorMode: .truecolor)
        // Then only backgrounds change after the first cell
        #expect(s == "\(ESC)[38;2;255;0;0;48;2;0;255;0m▀\(ESC)[48;2;0;0;255m \(ESC)[48;2;0;255;0m \(ESC)[0m\n")
    }

    @Test("▀ is written as ▄ with swapped colours when that avoids an SGR")
    func swapsOrientation() {
        // Given red over blue, then blue over red
        let g = grid(2, 1, [Cell(glyph: upper, foreground: .rgb(red), background: .rgb(blue)),
                            Cell(glyph: upper, foreground: .rgb(blue), background: .rgb(red))])
        // When written
        let s = ANSIWriter.string(for: g, colorMode: .truecolor)
        // Then the second cell needs no SGR: it is ▄ in the current colours
        #expect(s == "\(ESC)[38;2;255;0;0;48;2;0;0;255m▀▄\(ESC)[0m\n")
    }

    @Test("Default colours: 39/49, never swapped into the foreground")
    func defaultColours() {
        // Given ▄ red over the default background, then ▀ blue over red, then a blank cell
        let g = grid(3, 1, [Cell(glyph: lower, foreground: .rgb(red), background: .terminalDefault),
                            Cell(glyph: upper, foreground: .rgb(blue), background: .rgb(red)),
                            .blank])
        // When written
        let s = ANSIWriter.string(for: g, colorMode: .truecolor)
        // Then the default background needs no SGR at the start, the second cell becomes ▄ red
        // under blue (one change instead of two), and 49 restores the default at the end
        #expect(s == "\(ESC)[38;2;255;0;0m▄\(ESC)[48;2;0;0;255m▄\(ESC)[49m \(ESC)[0m\n")
    }

    @Test("A half in the default colour is never moved into the foreground")
    func defaultNeverForeground() {
        // Given blue over red, then red over the default background (swapping would save an SGR)
        let g = grid(3, 1, [Cell(glyph: upper, foreground: .rgb(blue), background: .rgb(red)),
                            Cell(glyph: upper, foreground: .rgb(red), background: .terminalDefault),
                            .blank])
        // When written
        let s = ANSIWriter.string(for: g, colorMode: .truecolor)
        // Then the second cell keeps ▀ with the default background (49); the blank needs no SGR
        #expect(s == "\(ESC)[38;2;0;0;255;48;2;255;0;0m▀\(ESC)[38;2;255;0;0;49m▀ \(ESC)[0m\n")
    }

    @Test("256 colours use 38;5 and 48;5")
    func palette256() {
        // Given palette red over palette blue
        let g = grid(1, 1, [Cell(glyph: upper, foreground: .indexed(196), background: .indexed(21))])
        // When written in 256 colours
        let s = ANSIWriter.string(for: g, colorMode: .palette256)
        // Then
        #expect(s == "\(ESC)[38;5;196;48;5;21m▀\(ESC)[0m\n")
    }

    @Test("16 colours use 3X/9X and 4X/10X")
    func palette16() {
        // Given red (1) over blue (4), then bright red (9) over bright blue (12)
        let g = grid(2, 1, [Cell(glyph: upper, foreground: .indexed(1), background: .indexed(4)),
                            Cell(glyph: upper, foreground: .indexed(9), background: .indexed(12))])
        // When written in 16 colours
        let s = ANSIWriter.string(for: g, colorMode: .palette16)
        // Then
        #expect(s == "\(ESC)[31;44m▀\(ESC)[91;104m▀\(ESC)[0m\n")
    }

    @Test("Each row starts from the defaults and ends with one reset")
    func rows() {
        // Given two rows of the same red space, and a third row of blanks
        let g = grid(1, 3, [space(.rgb(red)), space(.rgb(red)), .blank])
        // When written
        let s = ANSIWriter.string(for: g, colorMode: .truecolor)
        // Then each coloured row sets its colour again; the blank row has no escapes
        let line = "\(ESC)[48;2;255;0;0m \(ESC)[0m\n"
        #expect(s == line + line + " \n")
    }

    @Test("Colourless output has no escape sequences")
    func colourless() {
        // Given a rendered gradient in colourless mode, and a coloured grid
        let image = makeImage(8, 8) { x, y in Pixel(UInt8(x * 32), UInt8(y * 32), 0) }
        let shaded = render(image, 8, 4, RenderOptions(colorMode: .none))
        let coloured = grid(1, 1, [space(.rgb(red))])
        // When written with colorMode .none
        let a = ANSIWriter.string(for: shaded, colorMode: .none)
        let b = ANSIWriter.string(for: coloured, colorMode: .none)
        // Then only glyphs and newlines come out
        #expect(!a.contains(ESC) && a.split(separator: "\n").count == 4)
        #expect(b == " \n")
    }

    @Test("A rendered photo-like image never sets a colour that is already set")
    func compactOnRealRender() {
        // Given a noisy gradient rendered in each colour mode
        let image = makeImage(64, 48) { x, y in Pixel(UInt8(x * 4), UInt8((x * y) % 256), UInt8(y * 5)) }
        for mode in [ColorMode.truecolor, .palette256, .palette16] {
            let s = ANSIWriter.string(for: render(image, 32, 12, RenderOptions(colorMode: mode)), colorMode: mode)
            // When the output is replayed
            var redundant = 0, sequences = 0
            for line in s.split(separator: "\n") {
                var fg = "39", bg = "49"
                for part in line.split(separator: "\u{1B}").dropFirst() {
                    guard let m = part.firstIndex(of: "m") else { continue }
                    let params = String(part[part.index(after: part.startIndex)..<m])
                    if params == "0" { continue }
                    sequences += 1
                    let (newFg, newBg) = Self.apply(params, fg: fg, bg: bg)
                    if (newFg == fg && newBg == bg) || (params.contains(";48") && newFg == fg) { redundant += 1 }
                    fg = newFg
                    bg = newBg
                }
                // Then each line ends with exactly one reset
                #expect(line.hasSuffix("\(ESC)[0m"))
            }
            // Then no SGR repeats the current colours
            #expect(sequences > 0)
            #expect(redundant == 0)
        }
    }

    /// Applies SGR parameters to a (foreground, background) state kept as parameter strings.
    static func apply(_ params: String, fg: String, bg: String) -> (String, String) {
        var fg = fg, bg = bg
        var p = params.split(separator: ";").map(String.init)[...]
        while let first = p.popFirst() {
            switch first {
            case "38", "48":
                let kind = p.popFirst() ?? ""
                let n = kind == "2" ? 3 : 1
                let value = ([first, kind] + p.prefix(n)).joined(separator: ";")
                p = p.dropFirst(n)
                if first == "38" { fg = value } else { bg = value }
            default:
                if let v = Int(first), (30...39).contains(v) || (90...97).contains(v) { fg = first } else { bg = first }
            }
        }
        return (fg, bg)
    }
}
