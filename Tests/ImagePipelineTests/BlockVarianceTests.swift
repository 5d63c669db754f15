import CImageCodecs
import Foundation
import HalfBlock
import Testing

@testable import ImagePipeline

/// The 1/8 picture from the DCT coefficients (`CCODEC_JPEG_BLOCK_VARIANCE`, jpeg_blocks.c):
/// each block's linear-light mean from its mean and deviation, against libjpeg's own 1/8
/// decode and against the exact block means of the full decode, on real JPEG fixtures
/// (scripts/make-fixtures.sh) and Debian's LadyBird.jpg.
@Suite("JPEG at 1/8: block means and deviations from the coefficients")
struct BlockVarianceTests {
    static let folder = FormatFixtureTests.folder

    struct Decoded {
        var rc: Int32
        var width: Int
        var height: Int
        var pixels: [UInt8]
        var blockVariance: Bool
        var iccApplied: Bool
        var message: String
    }

    func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Self.folder.appendingPathComponent(name))
    }

    /// `ccodec_jpeg_decode_flags` for a need of `need` x `need` pixels (1: the 1/8 scale; 0:
    /// the full image).
    func decode(_ data: Data, flags: Int32, need: Int32 = 1) -> Decoded {
        var out = ccodec_image()
        var message = [CChar](repeating: 0, count: 256)
        let rc = data.withUnsafeBytes { raw in
            ccodec_jpeg_decode_flags(raw.baseAddress, raw.count, need, need, 0, flags, &out, &message, message.count)
        }
        var pixels: [UInt8] = []
        if rc == 0, let p = out.pixels {
            pixels = Array(UnsafeBufferPointer(start: p, count: out.length))
            ccodec_free(p)
        }
        return Decoded(
            rc: rc, width: Int(out.width), height: Int(out.height), pixels: pixels,
            blockVariance: out.block_variance != 0, iccApplied: out.icc_applied != 0,
            message: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    static let variance = Int32(CCODEC_JPEG_BLOCK_VARIANCE)
    static let means = Int32(CCODEC_JPEG_BLOCK_MEANS)

    /// The largest difference of any byte, or nil when the sizes differ.
    func maxDifference(_ a: Decoded, _ b: Decoded) -> Int? {
        guard a.width == b.width, a.height == b.height, a.pixels.count == b.pixels.count else { return nil }
        return zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    static func linear(_ code: UInt8) -> Double {
        let v = Double(code) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    @Test("with the deviation at 0 the coefficient path gives libjpeg's own 1/8 pixels (4:2:0, 4:4:4, grey)", arguments: [
        "/usr/share/backgrounds/mate/nature/LadyBird.jpg", "zone-plate.jpg", "zone-plate-grey.jpg", "flat-420.jpg",
    ])
    func meansMatchLibjpeg(_ name: String) throws {
        // Given a baseline JPEG (LadyBird: 2560x1600, 4:2:0)
        let data = name.hasPrefix("/") ? try Data(contentsOf: URL(fileURLWithPath: name)) : try fixture(name)
        // When it is decoded at 1/8 by libjpeg and by the coefficient path without deviations
        let plain = decode(data, flags: 0)
        let blocks = decode(data, flags: Self.means)
        // Then the coefficient path was taken, and every byte is within 1 of libjpeg's
        #expect(plain.rc == 0 && blocks.rc == 0)
        #expect(!plain.blockVariance && blocks.blockVariance)
        #expect(maxDifference(plain, blocks).map { $0 <= 1 } == true, "\(name): \(String(describing: maxDifference(plain, blocks)))")
    }

    @Test("a flat image has no deviation: the variance path equals the plain 1/8 decode")
    func flatImage() throws {
        // Given a flat colour in 4:2:0 whose size is not a multiple of the MCU
        let data = try fixture("flat-420.jpg")
        // When it is decoded at 1/8 with and without the block variance
        let plain = decode(data, flags: 0)
        let spread = decode(data, flags: Self.variance)
        // Then both are 13x8 pixels of the same colour (within 1)
        #expect(spread.blockVariance && spread.width == 13 && spread.height == 8)
        #expect(maxDifference(plain, spread).map { $0 <= 1 } == true)
        #expect(abs(Int(spread.pixels[0]) - 200) <= 2 && abs(Int(spread.pixels[1]) - 60) <= 2 && abs(Int(spread.pixels[2]) - 40) <= 2)
    }

    @Test("on a zone plate each block's linear-light mean comes out right, where the DC alone is too dark",
          arguments: ["zone-plate.jpg", "zone-plate-grey.jpg"])
    func zonePlate(_ name: String) throws {
        // Given a 256x192 zone plate (fine detail up to 0.5 cycles per pixel)
        let data = try fixture(name)
        // When it is decoded whole, at 1/8 by libjpeg, and at 1/8 with the block variance
        let full = decode(data, flags: 0, need: 0)
        let dc = decode(data, flags: 0)
        let spread = decode(data, flags: Self.variance)
        try #require(full.rc == 0 && dc.rc == 0 && spread.rc == 0)
        #expect(full.width == 256 && dc.width == 32 && spread.width == 32 && spread.height == 24)
        #expect(spread.blockVariance)
        // Then against the exact linear mean of each 8x8 block of the full decode (red and green
        // channels; grey: all equal), the variance path's error is a small part of the DC's
        var errorDC = 0.0, errorSpread = 0.0, total = 0.0, sumDC = 0.0, sumSpread = 0.0
        for by in 0..<24 {
            for bx in 0..<32 {
                for channel in 0..<2 {
                    var exact = 0.0
                    for y in 0..<8 {
                        for x in 0..<8 {
                            exact += Self.linear(full.pixels[((by * 8 + y) * 256 + bx * 8 + x) * 4 + channel])
                        }
                    }
                    exact /= 64
                    let i = (by * 32 + bx) * 4 + channel
                    errorDC += abs(Self.linear(dc.pixels[i]) - exact)
                    errorSpread += abs(Self.linear(spread.pixels[i]) - exact)
                    total += exact
                    sumDC += Self.linear(dc.pixels[i])
                    sumSpread += Self.linear(spread.pixels[i])
                }
            }
        }
        let blocks = Double(24 * 32 * 2)
        #expect(errorSpread < errorDC / 4, "\(name): mean error \(errorSpread / blocks) against the DC's \(errorDC / blocks)")
        // and the picture's brightness: the DC's is far too dark, the variance path's within 2 %
        #expect(sumDC < total * 0.85, "\(name): DC \(sumDC / blocks), exact \(total / blocks)")
        #expect(abs(sumSpread - total) < total * 0.02, "\(name): variance \(sumSpread / blocks), exact \(total / blocks)")
        // and a grey stays grey
        for i in stride(from: 0, to: spread.pixels.count, by: 4) where spread.pixels[i] != spread.pixels[i + 2] {
            Issue.record("\(name): pixel \(i / 4) is not grey: \(spread.pixels[i..<i + 3])")
            break
        }
    }

    @Test("detail in one colour channel brightens that channel only: green stripes on black stay green (no red, no blue)",
          arguments: [0, 1])
    func colourDetail(_ subsample: Int32) throws {
        // Given 1-pixel green stripes on black, as a JPEG (quality 95; 4:4:4 and 4:2:0)
        let (w, h) = (256, 64)
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                rgba[(y * w + x) * 4 + 1] = x % 2 == 0 ? 255 : 0
                rgba[(y * w + x) * 4 + 3] = 255
            }
        }
        var jpeg: UnsafeMutablePointer<UInt8>?
        var length = 0
        try #require(ccodec_jpeg_encode(rgba, Int32(w), Int32(h), 95, subsample, 0, &jpeg, &length) == 0)
        let data = Data(bytes: jpeg!, count: length)
        ccodec_free(jpeg)
        // When it is decoded at 1/8 with the block variance
        let spread = decode(data, flags: Self.variance)
        try #require(spread.rc == 0 && spread.blockVariance && spread.width == 32 && spread.height == 8)
        // Then every block is green, brighter than its gamma mean (128; the linear mean of 0
        // and 255 is 188: the luma's deviation, 0.587 of green's, gives about 152), and its red
        // and blue stay near 0 (9 seen: the cap for a mean of a code or two; the luma's
        // deviation given to them uncapped made them 52)
        for i in stride(from: 0, to: spread.pixels.count, by: 4) {
            let (r, g, b) = (spread.pixels[i], spread.pixels[i + 1], spread.pixels[i + 2])
            if r > 12 || b > 12 || g < 140 {
                Issue.record("block \(i / 4): \(r),\(g),\(b) for green stripes on black (4:\(subsample == 0 ? "4:4" : "2:0"))")
                break
            }
        }
    }

    @Test("progressive and CMYK files fall back to libjpeg's 1/8 decode, byte for byte",
          arguments: ["progressive.jpg", "cmyk.jpg"])
    func fallBack(_ name: String) throws {
        let data = try fixture(name)
        let plain = decode(data, flags: 0)
        let asked = decode(data, flags: Self.variance)
        #expect(plain.rc == 0 && asked.rc == 0)
        #expect(!asked.blockVariance)
        #expect(plain.pixels == asked.pixels && plain.width == asked.width)
    }

    @Test("above 1/8 the flag changes nothing")
    func largerScale() throws {
        let data = try fixture("zone-plate.jpg")
        let plain = decode(data, flags: 0, need: 64)
        let asked = decode(data, flags: Self.variance, need: 64)
        #expect(!asked.blockVariance && asked.width == 96 && asked.height == 72)  // 3/8 covers 64x64
        #expect(plain.pixels == asked.pixels)
    }

    @Test("truncated data still fails as 'Premature end of JPEG file'")
    func truncated() throws {
        // Given a baseline JPEG cut at 60 %, which the coefficient path takes
        let result = decode(try fixture("bad/truncated.jpg"), flags: Self.variance)
        #expect(result.rc == -1)
        #expect(result.message == "Premature end of JPEG file")
        #expect(result.pixels.isEmpty)
    }

    @Test("a second scan after one that held every component fails, as libjpeg's own decode fails it")
    func secondScan() throws {
        // Given the zone plate with its scan (SOS and entropy-coded data) repeated before EOI
        let bytes = [UInt8](try fixture("zone-plate.jpg"))
        let sos = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let eoi = bytes.count - 2
        #expect(bytes[eoi] == 0xFF && bytes[eoi + 1] == 0xD9)
        let twice = Data(bytes[..<eoi] + bytes[sos..<eoi] + [0xFF, 0xD9])
        // When it is decoded at 1/8 with and without the block variance
        let plain = decode(twice, flags: 0)
        let asked = decode(twice, flags: Self.variance)
        // Then both refuse it the same way (the rows are never visited twice)
        #expect(plain.rc == -1 && asked.rc == -1)
        #expect(asked.message == plain.message && asked.message == "Didn't expect more than one scan")
    }

    @Test("no bytes at all fail as a corrupt JPEG (jpeg_mem_src refuses them before the setjmp)")
    func empty() {
        for flags in [0, Self.variance] {
            let result = decode(Data(), flags: flags)
            #expect(result.rc == -1 && result.message == "empty file")
        }
    }

    @Test("EXIF orientation and embedded ICC profiles still apply", arguments: [
        ("orientation-6.jpg", false), ("orientation-3.jpg", false), ("p3.jpg", true), ("adobe-rgb.jpg", true),
    ])
    func orientationAndProfiles(_ name: String, _ profile: Bool) throws {
        let data = try fixture(name)
        let plain = decode(data, flags: 0)
        let blocks = decode(data, flags: Self.means)
        #expect(blocks.blockVariance && blocks.iccApplied == profile && plain.iccApplied == profile)
        #expect(blocks.width == plain.width && blocks.height == plain.height)
        #expect(maxDifference(plain, blocks).map { $0 <= 2 } == true, "\(name): \(String(describing: maxDifference(plain, blocks)))")
    }

    @Test("render's decode (shrink false) and the full view's (animated) take the block variance; thumbnails do not")
    func routing() throws {
        let data = try fixture("zone-plate.jpg")
        let spread = decode(data, flags: Self.variance)
        let dc = decode(data, flags: 0)
        #expect(spread.pixels != dc.pixels)
        // shrink false: the 1/8 picture as decoded (render's box filter takes it)
        let render = try ImageDecoder.thumbnail(data, maxWidth: 32, maxHeight: 24, maxPixels: 0, shrink: false)
        #expect(render.bitmap.pixels == spread.pixels)
        // the full view's request (animated) and a thumbnail's, both fitting 32x24 exactly
        let url = Self.folder.appendingPathComponent("zone-plate.jpg")
        let configuration = ImagePipeline.Configuration(memoryCacheBytes: 0)
        let full = try ImageDecoder.decode(
            data, for: ImageRequest(url: url, maxPixelWidth: 32, maxPixelHeight: 24, animated: true), configuration: configuration)
        let thumbnail = try ImageDecoder.decode(
            data, for: ImageRequest(url: url, maxPixelWidth: 32, maxPixelHeight: 24), configuration: configuration)
        #expect(full.bitmap.pixels == spread.pixels)
        #expect(thumbnail.bitmap.pixels == dc.pixels)
    }
}
