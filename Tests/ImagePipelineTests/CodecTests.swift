import CImageCodecs
import Foundation
import HalfBlock
import Testing

@testable import ImagePipeline

/// The hot path's own decoders (libjpeg-turbo, libpng, LittleCMS) through the `ccodec_*`
/// shims and `Codecs`, with the fixtures of `Tests/Fixtures/images/`.
@Suite("JPEG and PNG through libjpeg-turbo and libpng")
struct CodecTests {
    static let folder = FormatFixtureTests.folder
    let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 0))

    func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: Self.folder.appendingPathComponent(name))
    }

    /// `ccodec_jpeg_decode` of `data` for a need of `width` x `height` pixels.
    func decodeJPEG(_ data: Data, need width: Int, _ height: Int, maxPixels: Int = 0) -> (rc: Int32, image: ccodec_image, message: String) {
        var out = ccodec_image()
        var message = [CChar](repeating: 0, count: 256)
        let rc = data.withUnsafeBytes { raw in
            ccodec_jpeg_decode(raw.baseAddress, raw.count, Int32(width), Int32(height), Int64(maxPixels), &out, &message, message.count)
        }
        if rc == 0 { ccodec_free(out.pixels) }
        return (rc, out, message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    @Test("JPEG: the smallest DCT scale that still covers the box", arguments: [
        // (need width, need height) for a 2560x1600 photo -> scale in eighths
        (320, 200, 1), (321, 200, 2), (80, 50, 1), (640, 400, 2), (641, 400, 3), (1280, 800, 4), (2560, 1600, 8), (0, 0, 8),
    ])
    func dctScale(_ width: Int, _ height: Int, _ eighths: Int) throws {
        // Given LadyBird.jpg (2560x1600, Debian's mate-backgrounds)
        let data = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/backgrounds/mate/nature/LadyBird.jpg"))
        // When it is decoded for a box
        let result = decodeJPEG(data, need: width, height)
        // Then the scale is the smallest n/8 whose output covers it, and the output is that size
        #expect(result.rc == 0)
        #expect(Int(result.image.scale_eighths) == eighths)
        #expect(Int(result.image.width) == (2560 * eighths + 7) / 8 && Int(result.image.height) == (1600 * eighths + 7) / 8)
        #expect(result.image.source_width == 2560 && result.image.source_height == 1600)
    }

    @Test("JPEG: truncated data fails as 'Premature end of JPEG file', not a grey picture")
    func truncatedJPEG() throws {
        let result = decodeJPEG(try fixture("bad/truncated.jpg"), need: 16, 16)
        #expect(result.rc == -1)
        #expect(result.message == "Premature end of JPEG file")
    }

    @Test("JPEG: an empty or 2-byte buffer is an error, not a jump through an unset jmp_buf (found by the jpeg fuzz target)")
    func emptyJPEG() throws {
        // Given buffers that jpeg_mem_src refuses (empty) or that end at once
        for bytes: [UInt8] in [[], [0xFF, 0xD8]] {
            let data = Data(bytes)
            // When each is probed and decoded
            var width: Int32 = 0, height: Int32 = 0
            var message = [CChar](repeating: 0, count: 256)
            let probe = data.withUnsafeBytes { raw in
                ccodec_jpeg_probe(raw.baseAddress, raw.count, &width, &height, &message, message.count)
            }
            let decoded = decodeJPEG(data, need: 16, 16)
            // Then both fail with libjpeg's message instead of crashing
            #expect(probe == -1)
            #expect(decoded.rc == -1)
            #expect(!decoded.message.isEmpty)
        }
    }

    @Test("JPEG: a header over the pixel cap is refused before decoding")
    func jpegPixelCap() throws {
        // Given a small JPEG whose frame header (SOF) claims 60000 x 50000 pixels
        var data = try fixture("progressive.jpg")
        let bytes = [UInt8](data)
        let sof = try #require((0..<bytes.count - 9).first { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) })
        data.replaceSubrange(sof + 5..<sof + 9, with: [0xC3, 0x50, 0xEA, 0x60])  // height 50000, width 60000
        // When it is decoded with a cap of 100 megapixels
        let result = decodeJPEG(data, need: 16, 16, maxPixels: 100_000_000)
        // Then it is refused, with the claimed size
        #expect(result.rc == -2)
        #expect(result.image.source_width == 60000 && result.image.source_height == 50000)
        #expect(result.image.pixels == nil)
    }

    @Test("embedded ICC profiles are converted to sRGB", arguments: [
        // Code values (200, 100, 50) tagged Display P3 or Adobe RGB; sRGB as LittleCMS converts
        // them (scripts/make-icc-fixtures.py prints these)
        ("p3.png", 215, 93, 31, 1), ("p3.jpg", 215, 93, 31, 3), ("adobe-rgb.jpg", 227, 100, 42, 3),
    ])
    func iccProfiles(_ name: String, _ r: Int, _ g: Int, _ b: Int, _ tolerance: Int) async throws {
        // When the tagged image is loaded through the pipeline
        let url = Self.folder.appendingPathComponent(name)
        let image = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 32, maxPixelHeight: 16))
        // Then its centre is the sRGB colour, not the raw code values
        let i = (8 * image.bitmap.width + 16) * 4
        let px = image.bitmap.pixels[i..<i + 3].map(Int.init)
        #expect(abs(px[0] - r) <= tolerance && abs(px[1] - g) <= tolerance && abs(px[2] - b) <= tolerance, "\(name): \(px)")
    }

    @Test("PNG: the header is read from IHDR, and a corrupt CRC fails the decode")
    func pngProbeAndCRC() throws {
        // Given a 7x5 PNG
        var png = TestPNG.solid(width: 7, height: 5, [1, 2, 3, 255])
        // Then its header gives 7 x 5
        let size = try Codecs.probe(png, format: .png)
        #expect(size.width == 7 && size.height == 5)
        // And when one byte of its image data flips, decoding fails
        let idat = try #require(png.range(of: Data("IDAT".utf8)))
        png[idat.upperBound + 3] ^= 0x40
        #expect(throws: ImagePipeline.Error.self) {
            _ = try Codecs.thumbnail(png, format: .png, maxWidth: 8, maxHeight: 8, maxPixels: 0)
        }
    }

    @Test("JPEG through the pipeline is box-filtered in linear light after the DCT scaling")
    func jpegLinearLight() async throws {
        // Given the 4000x3000 zone plate's smaller sibling: LadyBird at a 40x25 box
        let url = URL(fileURLWithPath: "/usr/share/backgrounds/mate/nature/LadyBird.jpg")
        let image = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 40, maxPixelHeight: 40))
        // Then it fits the box exactly (320x200 at 1/8, then the area average to 40x25)
        #expect(image.bitmap.width == 40 && image.bitmap.height == 25)
        #expect(image.sourceWidth == 2560 && image.sourceHeight == 1600)
    }

    @Test("which decoder reads what: JPEG and small PNG by the codecs, the rest by libvips")
    func routing() {
        #expect(ImageDecoder.usesCodecs(.jpeg, width: 20000, height: 20000))
        #expect(ImageDecoder.usesCodecs(.png, width: 2048, height: 2048))
        #expect(ImageDecoder.usesCodecs(.png, width: 4096, height: 4096))
        #expect(!Codecs.decodesWhole(width: 4096, height: 4096))
        #expect(Codecs.decodesWhole(width: 2048, height: 2048))
        #expect(!ImageDecoder.usesCodecs(.png, width: 8193, height: 2))
        #expect(!ImageDecoder.usesCodecs(.gif, width: 16, height: 16))
        #expect(!ImageDecoder.usesCodecs(.webp, width: 16, height: 16))
    }
}
