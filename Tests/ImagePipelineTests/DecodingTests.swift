import Foundation
import CVips
import HalfBlock
import Testing

@testable import ImagePipeline

@Suite("Decoding through the pipeline")
struct DecodingTests {
    let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 1 << 20))

    @Test("a PNG decodes to exact RGBA pixels with its source size")
    func decodesExactPixels() async throws {
        // Given a 2x1 PNG: opaque red, half-transparent blue
        let png = TestPNG.rgba(width: 2, height: 1) { x, _ in x == 0 ? [255, 0, 0, 255] : [0, 0, 255, 128] }
        // When it is loaded at a box larger than the image (never enlarged)
        let image = try await pipeline.image(for: ImageRequest(url: TestPNG.dataURL(png), maxPixelWidth: 10, maxPixelHeight: 10))
        // Then the bitmap is the image itself, straight alpha
        #expect(image.bitmap.width == 2 && image.bitmap.height == 1)
        #expect(image.bitmap.pixels == [255, 0, 0, 255, 0, 0, 255, 128])
        #expect(image.sourceWidth == 2 && image.sourceHeight == 1)
    }

    @Test("shrink-on-load fits the pixel box with the aspect kept")
    func shrinksToBox() async throws {
        let png = TestPNG.solid(width: 400, height: 200, [10, 200, 30, 255])
        let url = try TestPNG.temporaryFile(png)
        let image = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 40, maxPixelHeight: 40))
        #expect(image.bitmap.width == 40)
        #expect(image.bitmap.height == 20)
        #expect(image.sourceWidth == 400 && image.sourceHeight == 200)
        #expect(Array(image.bitmap.pixels.prefix(4)) == [10, 200, 30, 255])
    }

    @Test("a PNG larger than the box is area-averaged in linear light: a 1-px checker is grey 188")
    func pngShrinksInLinearLight() async throws {
        // Given a 64x32 one-pixel black/white checkerboard PNG
        let png = TestPNG.rgba(width: 64, height: 32) { x, y in
            (x + y) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]
        }
        // When it is loaded into a 16x16 box (libpng decodes it whole, Swift shrinks it)
        let image = try await pipeline.image(
            for: ImageRequest(url: TestPNG.dataURL(png), maxPixelWidth: 16, maxPixelHeight: 16))
        // Then it fits the box with its aspect, every pixel linear 0.5 (sRGB 188), not 127
        #expect(image.bitmap.width == 16 && image.bitmap.height == 8)
        #expect(image.sourceWidth == 64 && image.sourceHeight == 32)
        #expect(image.bitmap.pixels == Array(repeating: [188, 188, 188, 255] as [UInt8], count: 16 * 8).flatMap { $0 })
    }

    @Test("a shrunk PNG keeps straight alpha and hides the colours under transparency")
    func pngShrinkIsPremultiplied() async throws {
        // Given a 40x10 PNG of opaque red columns between fully transparent green ones
        let png = TestPNG.rgba(width: 40, height: 10) { x, _ in x % 2 == 0 ? [255, 0, 0, 255] : [0, 255, 0, 0] }
        // When it is loaded into a 20x20 box (each output pixel covers one pixel of each)
        let image = try await pipeline.image(
            for: ImageRequest(url: TestPNG.dataURL(png), maxPixelWidth: 20, maxPixelHeight: 20))
        // Then every pixel is pure red at half coverage: no green leaks in
        #expect(image.bitmap.width == 20 && image.bitmap.height == 5)
        #expect(image.bitmap.pixels == Array(repeating: [255, 0, 0, 128] as [UInt8], count: 20 * 5).flatMap { $0 })
    }

    @Test(
        "the fit for a whole-decoded image rounds each side to nearest, within 1...limit",
        arguments: [
            // (width, height, box w, h) -> (w, h)
            (400, 200, 40, 40, 40, 20),
            (200, 400, 40, 40, 20, 40),
            (10, 10, 40, 40, 10, 10),  // never enlarged
            (1000, 3, 100, 100, 100, 1),  // 0.3 rows is still one
            (5, 2, 2, 2, 2, 1),  // 0.8 rounds to 1
            (7, 2, 2, 2, 2, 1),  // 0.571 rounds to 1
            (100, 50, 0, 0, 1, 1),  // limits below 1 count as 1
        ])
    func fitSize(_ w: Int, _ h: Int, _ maxW: Int, _ maxH: Int, _ fitW: Int, _ fitH: Int) {
        let fit = Vips.fitSize(width: w, height: h, maxWidth: maxW, maxHeight: maxH)
        #expect(fit.width == fitW && fit.height == fitH)
    }

    @Test("a truncated PNG is an error, not a grey image")
    func truncatedIsCorrupt() async throws {
        let png = TestPNG.rgba(width: 64, height: 64) { x, y in [UInt8(x * 4), UInt8(y * 4), 0, 255] }
        let url = try TestPNG.temporaryFile(png.prefix(png.count / 2))
        await #expect(throws: ImagePipeline.Error.self) {
            _ = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16))
        }
        do {
            _ = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16))
        } catch {
            guard case .corrupt = error else {
                Issue.record("expected .corrupt, got \(error)")
                return
            }
        }
    }

    @Test("an HTML page is 'not an image', before any decoding")
    func htmlIsNotAnImage() async throws {
        let url = try TestPNG.temporaryFile(Data("<!DOCTYPE html><html><body>404</body></html>".utf8), name: "photo.jpg")
        do {
            _ = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16))
            Issue.record("an HTML file decoded")
        } catch {
            #expect(error == .notAnImage("HTML page"))
            #expect(error.shortReason == "not an image")
        }
    }

    @Test("a missing file fails with its path")
    func missingFile() async {
        let url = URL(fileURLWithPath: "/nonexistent/vitrine/x.png")
        do {
            _ = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 8, maxPixelHeight: 8))
            Issue.record("a missing file loaded")
        } catch {
            #expect(error == .file("no such file: /nonexistent/vitrine/x.png"))
        }
    }

    @Test("an image over the pixel cap is refused from its header")
    func pixelCap() async throws {
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.maxPixels = 100 * 100
        let capped = ImagePipeline(configuration: configuration)
        let png = TestPNG.solid(width: 101, height: 100, [0, 0, 0, 255])
        do {
            _ = try await capped.image(for: ImageRequest(url: TestPNG.dataURL(png), maxPixelWidth: 8, maxPixelHeight: 8))
            Issue.record("an image over the cap decoded")
        } catch {
            #expect(error == .tooManyPixels(width: 101, height: 100, limit: 10_000))
        }
    }

    @Test("a second load of the same request is a memory-cache hit")
    func memoryCacheHit() async throws {
        let png = TestPNG.solid(width: 4, height: 4, [1, 2, 3, 255])
        let request = ImageRequest(url: TestPNG.dataURL(png), maxPixelWidth: 4, maxPixelHeight: 4)
        let first = try await pipeline.image(for: request)
        guard case .cached(let second) = pipeline.load(request, priority: 0) else {
            Issue.record("the second load was not a cache hit")
            return
        }
        #expect(second == first)
        #expect(pipeline.statistics.memoryCacheBytes == 64)
    }
}

@Suite("Whole decodes for the Swift area average")
struct WholeDecodeLimitTests {
    /// `cvips_thumbnail_rgba`'s `whole` flag for a `width` x `height` PNG shrunk into 16x16.
    func decodedWhole(width: Int, height: Int) throws -> Bool {
        Vips.start()
        let png = TestPNG.solid(width: width, height: height, [10, 20, 30, 255])
        var out = cvips_image()
        var message = [CChar](repeating: 0, count: 256)
        let rc = png.withUnsafeBytes { raw in
            cvips_thumbnail_rgba(raw.baseAddress, raw.count, 16, 16, 0, &out, &message, message.count)
        }
        try #require(rc == 0)
        cvips_free(out.pixels)
        return out.whole != 0
    }

    @Test("a PNG with a side over 8192 pixels is shrunk by libvips, not decoded whole (its row buffer)")
    func longSideIsNotWhole() throws {
        #expect(try decodedWhole(width: 2048, height: 2048))
        #expect(try decodedWhole(width: 8192, height: 2))
        #expect(try !decodedWhole(width: 8193, height: 2))
        #expect(try !decodedWhole(width: 1, height: 100_000))
    }
}
