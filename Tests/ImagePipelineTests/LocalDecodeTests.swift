import Foundation
import HalfBlock
import Testing

@testable import ImagePipeline

/// `ImagePipeline.decodeLocal` (what `vitrine render FILE` calls) against a real pipeline load
/// of the same URL, and `LocalData.readFile`'s POSIX reads at their edges.
@Suite("Local decode without a pipeline")
struct LocalDecodeTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")

    static let fixtures: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let bad = ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("bad").path)) ?? [])
            .map { "bad/" + $0 }
        // The 12000x12000 PNG is refused from its header by both; kept, it is cheap.
        return (names.filter { $0.contains(".") } + bad).sorted()
    }()

    func pipelineResult(_ url: URL, box: Int, configuration: ImagePipeline.Configuration) async -> Result<DecodedImage, ImagePipeline.Error> {
        let pipeline = ImagePipeline(configuration: configuration)
        do {
            return .success(try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: box, maxPixelHeight: box)))
        } catch {
            return .failure(error)
        }
    }

    @Test("every fixture decodes (or fails) exactly as through a pipeline")
    func sameAsPipeline() async throws {
        // Given every image fixture, good and bad, and two decode boxes
        #expect(Self.fixtures.count > 20)
        for name in Self.fixtures {
            for box in [16, 320] {
                let url = Self.folder.appendingPathComponent(name)
                // When it is decoded through a pipeline and through decodeLocal
                let expected = await pipelineResult(url, box: box, configuration: .init(memoryCacheBytes: 0))
                let local = ImagePipeline.decodeLocal(url, maxPixelWidth: box, maxPixelHeight: box)
                // Then the bitmaps (or the errors) are identical
                #expect(local == expected, "\(name) at \(box)")
            }
        }
    }

    @Test("data: URLs, the byte cap and the pixel cap hold as in a pipeline")
    func limits() async throws {
        let png = TestPNG.solid(width: 40, height: 30, [10, 200, 30, 255])
        let dataURL = TestPNG.dataURL(png)
        let local = ImagePipeline.decodeLocal(dataURL, maxPixelWidth: 8, maxPixelHeight: 8)
        #expect(local == (await pipelineResult(dataURL, box: 8, configuration: .init(memoryCacheBytes: 0))))
        guard case .success(let image) = local else { Issue.record("data: URL failed: \(local)"); return }
        #expect(image.sourceWidth == 40 && image.sourceHeight == 30 && image.bitmap.width <= 8)

        let file = try TestPNG.temporaryFile(png)
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        var small = ImagePipeline.Configuration(memoryCacheBytes: 0)
        small.maxResponseBytes = png.count - 1
        #expect(ImagePipeline.decodeLocal(file, maxPixelWidth: 8, maxPixelHeight: 8, configuration: small)
            == .failure(.responseTooLarge(limit: png.count - 1)))
        var few = ImagePipeline.Configuration(memoryCacheBytes: 0)
        few.maxPixels = 40 * 30 - 1
        #expect(ImagePipeline.decodeLocal(file, maxPixelWidth: 8, maxPixelHeight: 8, configuration: few)
            == .failure(.tooManyPixels(width: 40, height: 30, limit: 40 * 30 - 1)))
        #expect(ImagePipeline.decodeLocal(URL(string: "http://127.0.0.1:9/x.png")!, maxPixelWidth: 8, maxPixelHeight: 8)
            == .failure(.unsupportedURL("http://127.0.0.1:9/x.png")))
    }

    @Test("shrink: false hands back the JPEG at its DCT scale and the PNG whole, for one resize")
    func unshrunk() throws {
        // Given quad (64x48) as a PNG and as a progressive JPEG, and a box of 10x10 pixels
        let png = Self.folder.appendingPathComponent("interlaced.png")
        let jpeg = Self.folder.appendingPathComponent("progressive.jpg")
        // When decoded with and without the shrink to the box
        let pngWhole = try ImagePipeline.decodeLocal(png, maxPixelWidth: 10, maxPixelHeight: 10, shrink: false).get()
        let pngFit = try ImagePipeline.decodeLocal(png, maxPixelWidth: 10, maxPixelHeight: 10).get()
        let jpegScaled = try ImagePipeline.decodeLocal(jpeg, maxPixelWidth: 10, maxPixelHeight: 10, shrink: false).get()
        let jpegFit = try ImagePipeline.decodeLocal(jpeg, maxPixelWidth: 10, maxPixelHeight: 10).get()
        // Then the PNG is whole, the JPEG at 2/8 (16x12, the smallest n/8 covering 10x8), and
        // the shrunk ones fit the box; the source size is the same either way
        #expect(pngWhole.bitmap.width == 64 && pngWhole.bitmap.height == 48)
        #expect(jpegScaled.bitmap.width == 16 && jpegScaled.bitmap.height == 12)
        #expect(pngFit.bitmap.width == 10 && jpegFit.bitmap.width == 10)
        #expect(pngWhole.sourceWidth == pngFit.sourceWidth && jpegScaled.sourceHeight == jpegFit.sourceHeight)
        // And a format libvips decodes fits the box either way
        let gif = Self.folder.appendingPathComponent("animated.gif")
        let gifDecoded = try ImagePipeline.decodeLocal(gif, maxPixelWidth: 4, maxPixelHeight: 4, shrink: false).get()
        #expect(gifDecoded.bitmap.width <= 4 && gifDecoded.bitmap.height <= 4)
    }

    @Test("readFile: whole files, the limit exactly, missing paths, folders and FIFOs")
    func readFileEdges() throws {
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try TestPNG.temporaryFile(bytes, name: "bytes.bin")
        let folder = file.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(LocalData.readFile(file, limit: bytes.count) == .success(bytes))
        #expect(LocalData.readFile(file, limit: bytes.count - 1) == .failure(.responseTooLarge(limit: bytes.count - 1)))
        let empty = folder.appendingPathComponent("empty.bin")
        try Data().write(to: empty)
        #expect(LocalData.readFile(empty, limit: 10) == .success(Data()))
        let missing = folder.appendingPathComponent("missing.png")
        #expect(LocalData.readFile(missing, limit: 10) == .failure(.file("no such file: \(missing.path)")))
        #expect(LocalData.readFile(folder, limit: 10) == .failure(.file("not a regular file: \(folder.path)")))
        let fifo = folder.appendingPathComponent("fifo.png")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Refused before open, which would block until a writer came.
        #expect(LocalData.readFile(fifo, limit: 10) == .failure(.file("not a regular file: \(fifo.path)")))
    }
}
