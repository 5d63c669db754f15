import Foundation
import HalfBlock
import Testing

@testable import ImagePipeline

/// `ImagePipeline.decodeLocal(_:maxPixelWidth:maxPixelHeight:configuration:streaming:)`: PNGs
/// read row by row into the half-block renderer give exactly the cells of the whole-image path,
/// and every failure of the whole-image path is still a failure.
@Suite("Local PNG decode row by row")
struct StreamedDecodeTests {
    static let folder = LocalDecodeTests.folder
    static let options = RenderOptions(colorMode: .truecolor)

    /// The grid of the whole-image path, at `columns` x `rows`.
    func wholeGrid(_ url: URL, columns: Int, rows: Int) throws -> CellGrid {
        let image = try ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320, shrink: false).get()
        return HalfBlockRenderer.render(image.bitmap, columns: columns, rows: rows, options: Self.options)
    }

    @Test("every PNG fixture gives the whole-image path's cells, or is decoded whole when it must be")
    func sameCells() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".png") && !$0.hasPrefix("huge") }.sorted()
        #expect(names.count >= 8)
        var streamed = 0
        for name in names {
            let url = Self.folder.appendingPathComponent(name)
            for (columns, rows) in [(8, 4), (80, 40), (3, 7)] {
                // When it is decoded with a streaming body
                let result = ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320) { source in
                    HalfBlockRenderer.render(source, columns: columns, rows: rows, options: Self.options)
                }
                switch try result.get() {
                case .streamed(let grid, let width, let height):
                    // Then the cells are those of the whole image
                    streamed += 1
                    #expect(grid == (try wholeGrid(url, columns: columns, rows: rows)), "\(name) at \(columns)x\(rows)")
                    let whole = try ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320, shrink: false).get()
                    #expect(width == whole.sourceWidth && height == whole.sourceHeight, "\(name)")
                case .decoded(let image):
                    // Interlaced and ICC-tagged PNGs are decoded whole (as before)
                    #expect(name == "interlaced.png" || name == "p3.png", "\(name) was not streamed")
                    #expect(image.bitmap == (try ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320, shrink: false).get()).bitmap)
                }
            }
        }
        #expect(streamed >= 3 * 8)
    }

    @Test("a file path gives what its file URL gives, cells and errors, relative or absolute")
    func filePath() throws {
        for name in ["palette-trns.png", "rgb16.png", "interlaced.png", "progressive.jpg", "bad/zero-bytes.png"] {
            let url = Self.folder.appendingPathComponent(name)
            let render = { (source: RGBARowSource) -> CellGrid? in
                HalfBlockRenderer.render(source, columns: 8, rows: 4, options: Self.options)
            }
            let byURL = ImagePipeline.decodeLocal(url, maxPixelWidth: 64, maxPixelHeight: 64, streaming: render)
            let byPath = ImagePipeline.decodeLocal(filePath: url.path, maxPixelWidth: 64, maxPixelHeight: 64, streaming: render)
            switch (byURL, byPath) {
            case (.success(.streamed(let a, let w1, let h1)), .success(.streamed(let b, let w2, let h2))):
                #expect(a == b && w1 == w2 && h1 == h2, "\(name)")
            case (.success(.decoded(let a)), .success(.decoded(let b))):
                #expect(a.bitmap == b.bitmap, "\(name)")
            case (.failure(let a), .failure(let b)):
                #expect("\(a)" == "\(b)", "\(name)")
            default:
                Issue.record("\(name): \(byURL) against \(byPath)")
            }
        }
        // A missing file is named as given
        let missing = ImagePipeline.decodeLocal(filePath: "no/such.png", maxPixelWidth: 8, maxPixelHeight: 8) { _ -> Int? in 1 }
        guard case .failure(.file(let text)) = missing else {
            Issue.record("\(missing)")
            return
        }
        #expect(text == "no such file: no/such.png")
    }

    @Test("a JPEG is decoded whole, and the body is not called")
    func jpegWhole() throws {
        var called = false
        let result = ImagePipeline.decodeLocal(
            Self.folder.appendingPathComponent("progressive.jpg"), maxPixelWidth: 64, maxPixelHeight: 64
        ) { _ -> Int? in
            called = true
            return 1
        }
        guard case .decoded = try result.get() else {
            Issue.record("a JPEG was streamed")
            return
        }
        #expect(!called)
    }

    @Test("a PNG cut inside its image data, or with a damaged IDAT CRC, fails before any row")
    func damaged() throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("rgb16.png"))
        let idat = try #require(data.range(of: Data("IDAT".utf8)))
        var crc = data
        crc[data.count - 13] ^= 0xFF  // the last byte of the IDAT chunk's CRC (IEND is 12 bytes)
        let cut = data.prefix(idat.upperBound + 10)
        for (label, bytes) in [("bad CRC", crc), ("cut", Data(cut))] {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-stream-\(label.hashValue).png")
            try bytes.write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            var rowsRead = 0
            let result = ImagePipeline.decodeLocal(url, maxPixelWidth: 64, maxPixelHeight: 64) { source -> Int? in
                rowsRead += 1
                return 1
            }
            guard case .failure(let error) = result, case .corrupt = error else {
                Issue.record("\(label): \(result)")
                continue
            }
            #expect(rowsRead == 0, "\(label)")
        }
    }

    @Test("a PNG cut inside its image data fails with the shim's IDAT text on every path: row by row (half blocks), whole, and fitted (pixel modes)")
    func cutSaysIDATOnEveryPath() throws {
        // Given PNGs that are streamed (palette, 16-bit, a 64x64 RGBA one) and one decoded whole
        // on every path (interlaced)
        var sources: [(String, Data)] = [("64x64", TestPNG.rgba(width: 64, height: 64) { x, y in
            [UInt8(x * 4), UInt8(y * 4), UInt8((x ^ y) & 0xFF), 255]
        })]
        for name in ["palette-trns.png", "rgb16.png", "interlaced.png"] {
            sources.append((name, try Data(contentsOf: Self.folder.appendingPathComponent(name))))
        }
        for (name, data) in sources {
            let idat = try #require(data.range(of: Data("IDAT".utf8)), "\(name)")
            // When each is cut: a few bytes into the first IDAT, half way from there to the
            // end, and inside the CRC of the last chunk before IEND
            for cut in [idat.upperBound + 10, (idat.upperBound + data.count) / 2, data.count - 14] {
                let url = try TestPNG.temporaryFile(Data(data.prefix(cut)), name: "cut.png")
                defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
                let streamed = ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320) { _ -> Int? in 1 }
                let whole = ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320, shrink: false)
                // (RenderCommand.runPixels: the box of the terminal's pixels, shrunk to fit)
                let fitted = ImagePipeline.decodeLocal(url, maxPixelWidth: 32, maxPixelHeight: 32)
                // Then every path fails with the same text, the shim's
                for (path, text) in [("row by row", streamed.failureText), ("whole", whole.failureText), ("fitted", fitted.failureText)] {
                    #expect(text == "truncated or damaged image data (IDAT)", "\(name) cut at \(cut) of \(data.count), \(path): \(text ?? "no failure")")
                }
            }
            // And cut before its image data (inside IHDR's successor), every path says so alike
            let url = try TestPNG.temporaryFile(Data(data.prefix(idat.lowerBound - 6)), name: "cut.png")
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let texts = [
                ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320) { _ -> Int? in 1 }.failureText,
                ImagePipeline.decodeLocal(url, maxPixelWidth: 320, maxPixelHeight: 320, shrink: false).failureText,
                ImagePipeline.decodeLocal(url, maxPixelWidth: 32, maxPixelHeight: 32).failureText,
            ]
            #expect(texts.allSatisfy { $0 != nil && $0 == texts[0] } && texts[0]?.contains("truncated") == true, "\(name): \(texts)")
        }
    }

    @Test("a damaged chunk before the image data (IHDR's CRC) is named as such, row by row and whole, not as the decoder's later state")
    func damagedHeaderNamed() throws {
        var data = try Data(contentsOf: Self.folder.appendingPathComponent("rgb16.png"))
        data[32] ^= 0xFF  // the last byte of IHDR's CRC: signature 8, length 4, type 4, data 13, CRC 29-32
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-stream-ihdr-crc.png")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let streamed = ImagePipeline.decodeLocal(url, maxPixelWidth: 64, maxPixelHeight: 64) { _ -> Int? in 1 }
        let whole = ImagePipeline.decodeLocal(url, maxPixelWidth: 64, maxPixelHeight: 64, shrink: false)
        for (label, message) in [("streamed", streamed.failureText), ("whole", whole.failureText)] {
            #expect(message?.contains("CRC-32 does not match") == true, "\(label): \(message ?? "no failure")")
        }
    }

    @Test("the pixel cap refuses a big PNG from its header")
    func pixelCap() throws {
        var configuration = ImagePipeline.Configuration()
        configuration.maxPixels = 100
        let url = Self.folder.appendingPathComponent("odd-height-20x15.png")
        let result = ImagePipeline.decodeLocal(url, maxPixelWidth: 64, maxPixelHeight: 64, configuration: configuration) {
            _ -> Int? in 1
        }
        guard case .failure(.tooManyPixels(let width, let height, 100)) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(width == 20 && height == 15)
    }

    @Test("a row source that fails part-way renders nothing")
    func failingSource() {
        var served = 0
        let source = RGBARowSource(width: 4, height: 8) { row in
            served += 1
            if served > 3 { return false }
            row.initialize(repeating: 200, count: 16)
            return true
        }
        #expect(HalfBlockRenderer.render(source, columns: 2, rows: 2, options: Self.options) == nil)
        #expect(served == 4)
    }
}

extension Result where Failure == ImagePipeline.Error {
    /// The text of a `.corrupt` failure, nil for success or another error.
    fileprivate var failureText: String? {
        guard case .failure(.corrupt(let text)) = self else { return nil }
        return text
    }
}
