import Foundation
import HalfBlock
import Testing
import TestSupport

@testable import TerminalGraphics
@testable import TerminalUI

/// Vitrine's own sixel encoder (pan and zoom steps), read back by an
/// independent decoder (ImageMagick) as the libsixel presenter's tests do.
@Suite("SixelPalette")
struct SixelPaletteTests {
    let decode = SixelPresenterTests().decodeWithImageMagick

    @Test("two exact colours: every pixel of a checkerboard of odd size (13x17, not whole bands) decodes back exactly")
    func exact() throws {
        // Red and blue are 100% and 0% in sixel's percent registers: they survive exactly.
        let palette = SixelPalette(colors: [255, 0, 0, 0, 0, 255])
        var pixels = [UInt8](repeating: 255, count: 13 * 17 * 4)
        for y in 0..<17 {
            for x in 0..<13 {
                let blue = (x / 2 + y / 3) % 2 == 1
                pixels[4 * (y * 13 + x)] = blue ? 0 : 255
                pixels[4 * (y * 13 + x) + 1] = 0
                pixels[4 * (y * 13 + x) + 2] = blue ? 255 : 0
            }
        }
        let image = RGBAImage(width: 13, height: 17, pixels: pixels)
        let sixel = palette.encode(image, background: RGB(0, 0, 0), amplitude: 0)
        let text = String(decoding: sixel, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}Pq\"1;1;13;17#0;2;100;0;0#1;2;0;0;100"), "\(text.prefix(40))")
        #expect(text.hasSuffix("\u{1B}\\"))
        // Three bands (6 + 6 + 5 rows): two `-`.
        #expect(text.filter { $0 == "-" }.count == 2)
        let decoded = try decode(sixel)
        #expect(decoded.width == 13 && decoded.height == 17)
        #expect(psnr(image, decoded) == .infinity)
    }

    @Test("one colour across a row is one run: `!width~` for a band of six set rows")
    func runs() {
        let palette = SixelPalette(colors: [0, 255, 0])
        let image = RGBAImage(width: 200, height: 6, pixels: [UInt8](repeating: 255, count: 200 * 6 * 4).enumerated().map { $0.offset % 4 == 0 || $0.offset % 4 == 2 ? 0 : 255 })
        let text = String(decoding: palette.encode(image, background: RGB(0, 0, 0)), as: UTF8.self)
        #expect(text == "\u{1B}Pq\"1;1;200;6#0;2;0;100;0#0!200~\u{1B}\\")
    }

    @Test("overdraw: the colour with most entries goes first as one run across the band, painting over a one-column gap that a later colour draws")
    func overdraw() {
        // Green everywhere but column 50, red: green's pass is `!200~` (over column 50), then
        // red draws its column.
        let palette = SixelPalette(colors: [0, 255, 0, 255, 0, 0])
        var pixels = [UInt8](repeating: 255, count: 200 * 6 * 4)
        for y in 0..<6 {
            for x in 0..<200 {
                let i = 4 * (y * 200 + x)
                (pixels[i], pixels[i + 1], pixels[i + 2]) = x == 50 ? (255, 0, 0) : (0, 255, 0)
            }
        }
        let text = String(decoding: palette.encode(RGBAImage(width: 200, height: 6, pixels: pixels), background: RGB(0, 0, 0)), as: UTF8.self)
        #expect(text == "\u{1B}Pq\"1;1;200;6#0;2;0;100;0#1;2;100;0;0#0!200~$#1!50?~\u{1B}\\")
    }

    @Test("overdraw decodes to the same pixels as each colour drawing only its own (ImageMagick, a dithered 241x163 photo-like picture), in fewer bytes")
    func overdrawSamePixels() throws {
        let image = Pictures.smooth(width: 241, height: 163)
        let palette = try #require(SixelPalette(choosingFor: image, background: RGB(0, 0, 0)))
        let index = palette.indices(image, background: RGB(0, 0, 0))
        let ours = palette.encode(image, background: RGB(0, 0, 0))
        // The plain encoding: per band, each colour's own pixels, one character a column.
        var plain = Array("\u{1B}Pq\"1;1;241;163".utf8) + palette.definitions
        for y0 in stride(from: 0, to: 163, by: 6) {
            if y0 > 0 { plain.append(UInt8(ascii: "-")) }
            var first = true
            for c in 0..<palette.count {
                var row: [UInt8] = []
                for x in 0..<241 {
                    var mask = 0
                    for bit in 0..<min(6, 163 - y0) where index[(y0 + bit) * 241 + x] == c { mask |= 1 << bit }
                    row.append(UInt8(63 + mask))
                }
                guard row.contains(where: { $0 != 63 }) else { continue }
                if !first { plain.append(UInt8(ascii: "$")) }
                first = false
                plain += Array("#\(c)".utf8) + row
            }
        }
        plain += [0x1B, UInt8(ascii: "\\")]
        let a = try decode(ours), b = try decode(plain)
        #expect(a.width == 241 && a.height == 163)
        let differing = (0..<(241 * 163)).filter { a.pixels[4 * $0..<4 * $0 + 4] != b.pixels[4 * $0..<4 * $0 + 4] }.count
        #expect(differing == 0, "\(differing) pixels differ")
        #expect(ours.count < plain.count / 2, "\(ours.count) against \(plain.count) bytes")
    }

    @Test("a photo-like picture in the palette chosen for it: PSNR over 30 dB, within 1.5 dB of libsixel's Atkinson")
    func quality() throws {
        // Given a smooth 240x160 picture and the palette libsixel's median cut chooses for it
        let image = Pictures.smooth(width: 240, height: 160)
        let palette = try #require(SixelPalette(choosingFor: image, background: RGB(0, 0, 0)))
        #expect(palette.count > 16 && palette.count <= 256)
        // When both encoders write it
        let ours = palette.encode(image, background: RGB(0, 0, 0))
        let libsixel = SixelPresenter.encode(image, background: RGB(0, 0, 0))
        // Then ImageMagick reads ours back at its size, as close to the source as libsixel's
        let decoded = try decode(ours)
        #expect(decoded.width == 240 && decoded.height == 160)
        let score = psnr(image, decoded), reference = psnr(image, try decode(libsixel))
        #expect(score > 30, "PSNR \(score) dB")
        #expect(score > reference - 1.5, "PSNR \(score) dB against libsixel's \(reference)")
    }

    @Test("the lookup's green-ordered search finds a nearest colour for each 5-bit cell (the distance a full search finds; every 5th of the 32768 checked)")
    func lookup() {
        var generator = SystemRandomNumberGenerator()
        let colors = (0..<(200 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let palette = SixelPalette(colors: colors)
        // One pixel at the centre of each 5-bit cell.
        var pixels = [UInt8](repeating: 255, count: 32768 * 4)
        for key in 0..<32768 {
            pixels[4 * key] = UInt8((key >> 10) << 3 | 4)
            pixels[4 * key + 1] = UInt8(((key >> 5) & 31) << 3 | 4)
            pixels[4 * key + 2] = UInt8((key & 31) << 3 | 4)
        }
        let index = palette.indices(RGBAImage(width: 256, height: 128, pixels: pixels), background: RGB(0, 0, 0), amplitude: 0)
        func distance(_ key: Int, _ c: Int) -> Int {
            (0..<3).reduce(0) { sum, k in
                let d = Int(palette.colors[3 * c + k]) - Int(pixels[4 * key + k])
                return sum + d * d
            }
        }
        var wrong = 0
        // Every 5th cell checked against a full search (all of them take 15 s in a debug build).
        for key in stride(from: 0, to: 32768, by: 5) {
            var best = Int.max
            for c in 0..<palette.count { best = min(best, distance(key, c)) }
            if distance(key, Int(index[key])) != best { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test("bands written in concurrent parts join to the same bytes as one pass (300 rows: 50 bands, 3 parts)")
    func parts() throws {
        let image = Pictures.smooth(width: 97, height: 300)
        let palette = try #require(SixelPalette(choosingFor: image, background: RGB(0, 0, 0)))
        let index = palette.indices(image, background: RGB(0, 0, 0))
        let one = SixelPalette.encodeBands(index, width: 97, height: 300, definitions: palette.definitions, parts: 1)
        let three = SixelPalette.encodeBands(index, width: 97, height: 300, definitions: palette.definitions, parts: 3)
        #expect(one == three)
        #expect(String(decoding: one, as: UTF8.self).filter { $0 == "-" }.count == 49)
        #expect(psnr(image, try decode(one)) > 30)
    }

    @Test("transparency is composited over the background; the lookup maps a colour to its nearest entry")
    func background() throws {
        let palette = SixelPalette(colors: [0, 0, 0, 200, 30, 90, 255, 255, 255])
        let clear = RGBAImage(width: 4, height: 4, pixels: [UInt8](repeating: 0, count: 64))
        #expect(palette.indices(clear, background: RGB(200, 30, 90), amplitude: 0) == [UInt8](repeating: 1, count: 16))
        let grey = RGBAImage(width: 2, height: 1, pixels: [40, 40, 40, 255, 230, 230, 230, 255])
        #expect(palette.indices(grey, background: RGB(0, 0, 0), amplitude: 0) == [0, 2])
    }

    @Test("the fast sixel encoder is the palette chosen for each picture, encoded by SixelPalette; without it, libsixel's bytes")
    func encoder() throws {
        let context = PresenterContext()
        for image in [Pictures.smooth(width: 60, height: 40), Pictures.fading(Pictures.smooth(width: 30, height: 30))] {
            let palette = try #require(SixelPalette(choosingFor: image, background: context.background))
            guard case .sequence(let fast) = PictureEncoder(.sixel, context: context, fastSixel: true).encode(image).payload,
                case .sequence(let full) = PictureEncoder(.sixel, context: context).encode(image).payload
            else {
                Issue.record("not a sequence")
                return
            }
            #expect(fast == palette.encode(image, background: context.background))
            let again = SixelPresenter.encode(image, background: context.background)
            #expect(full == again, "\(image.width): \(full.count) against \(again.count) bytes")
            #expect(fast != full)
        }
    }
}
