import Foundation
import HalfBlock
import Testing
import TestSupport

@testable import ImagePipeline

/// `ImagePipeline.decodeRegion` against libvips's own whole decode of the same file.
@Suite("Region decoding (zoom and pan)")
struct RegionDecodingTests {
    /// A real 2560x1600 JPEG photo from mate-backgrounds (Makefile TEST_PACKAGES).
    static let photo = URL(fileURLWithPath: "/usr/share/backgrounds/mate/nature/LadyBird.jpg")

    func photoData() throws -> Data {
        guard FileManager.default.fileExists(atPath: Self.photo.path) else {
            Issue.record("\(Self.photo.path) is missing: install mate-backgrounds (make test-deps)")
            throw CancellationError()
        }
        return try Data(contentsOf: Self.photo)
    }

    /// The whole image decoded at full size.
    func whole(_ data: Data) throws -> RGBAImage {
        try Vips.thumbnail(data, maxWidth: 100_000, maxHeight: 100_000, maxPixels: 0).bitmap
    }

    func crop(_ image: RGBAImage, x: Int, y: Int, width: Int, height: Int) -> RGBAImage {
        var out = [UInt8]()
        out.reserveCapacity(width * height * 4)
        for row in y..<(y + height) {
            let start = 4 * (row * image.width + x)
            out += image.pixels[start..<(start + 4 * width)]
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }

    @Test("at 1:1 with no shrink, the region is exactly those pixels of the whole decode")
    func oneToOne() throws {
        let data = try photoData()
        let full = try whole(data)
        let region = try ImagePipeline.decodeRegion(
            data, region: (1000, 600, 320, 200), shrink: 1, width: 320, height: 200)
        #expect(region.sourceWidth == 2560 && region.sourceHeight == 1600)
        #expect(region.bitmap == crop(full, x: 1000, y: 600, width: 320, height: 200))
    }

    @Test("shrunk on load by 4, then to 1/4: close to the whole decode box-averaged the same way")
    func shrunk() throws {
        let data = try photoData()
        let quarter = try ImagePipeline.decodeRegion(data, region: (0, 0, 2560, 1600), shrink: 4, width: 640, height: 400)
        #expect(quarter.bitmap.width == 640 && quarter.bitmap.height == 400)
        let reference = try Vips.thumbnail(data, maxWidth: 640, maxHeight: 400, maxPixels: 0).bitmap
        let score = psnr(quarter.bitmap, reference)
        #expect(score > 35, "PSNR \(score) dB against vips_thumbnail")
        // And a region of it lines up with the same part of the whole
        let part = try ImagePipeline.decodeRegion(data, region: (1280, 800, 1280, 800), shrink: 4, width: 320, height: 200)
        let partScore = psnr(part.bitmap, crop(reference, x: 320, y: 200, width: 320, height: 200))
        #expect(partScore > 30, "PSNR \(partScore) dB")
    }

    @Test("past 1:1 the region is enlarged with nearest neighbour: each source pixel becomes a 2x2 block")
    func enlarged() throws {
        let data = try photoData()
        let full = try whole(data)
        let big = try ImagePipeline.decodeRegion(data, region: (10, 20, 40, 30), shrink: 1, width: 80, height: 60)
        #expect(big.bitmap.width == 80 && big.bitmap.height == 60)
        for (x, y) in [(0, 0), (17, 9), (39, 29)] {
            let source = 4 * ((20 + y) * full.width + 10 + x)
            let shown = 4 * ((2 * y + 1) * 80 + 2 * x + 1)
            #expect(Array(big.bitmap.pixels[shown..<(shown + 4)]) == Array(full.pixels[source..<(source + 4)]))
        }
    }

    @Test("EXIF orientation is applied before the region is cut; a region past the edge is clamped")
    func orientationAndClamp() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/images/orientation-6.jpg")
        let data = try Data(contentsOf: fixture)
        let full = try whole(data)
        let region = try ImagePipeline.decodeRegion(data, region: (8, 4, 16, 12), shrink: 1, width: 16, height: 12)
        #expect(region.sourceWidth == full.width && region.sourceHeight == full.height)
        #expect(region.bitmap == crop(full, x: 8, y: 4, width: 16, height: 12))
        let tall = min(50, full.height)
        let edge = try ImagePipeline.decodeRegion(data, region: (full.width - 4, 0, 50, 50), shrink: 1, width: 4, height: tall)
        #expect(edge.bitmap == crop(full, x: full.width - 4, y: 0, width: 4, height: tall))
    }

    @Test("bad input: not an image is .corrupt; over the pixel cap is .tooManyPixels before decoding")
    func errors() throws {
        #expect(throws: ImagePipeline.Error.self) {
            try ImagePipeline.decodeRegion(Data("<html>".utf8), region: (0, 0, 1, 1), shrink: 1, width: 1, height: 1)
        }
        let data = try photoData()
        do {
            _ = try ImagePipeline.decodeRegion(data, region: (0, 0, 10, 10), shrink: 1, width: 10, height: 10, maxPixels: 1000)
            Issue.record("no error")
        } catch {
            guard case .tooManyPixels(2560, 1600, 1000) = error else { Issue.record("\(error)"); return }
        }
    }
}
