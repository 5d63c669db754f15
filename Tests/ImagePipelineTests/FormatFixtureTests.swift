import Foundation
import HalfBlock
import Testing

@testable import ImagePipeline

/// The image fixtures of `Tests/Fixtures/images/` (made by `scripts/make-fixtures.sh`), each
/// decoded by the real pipeline and rendered by the real renderer, as `vitrine render` does.
///
/// Most fixtures are "quad" (64x48: red, lime / blue, white) in some encoding, so a test can
/// name the colour each corner must show.
@Suite("Format fixtures through the pipeline and the renderer")
struct FormatFixtureTests {
    let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 0))

    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")

    /// Decodes `name` for a box of `columns` x `rows` cells and renders it fitted in that box.
    func render(
        _ name: String, columns: Int = 8, rows: Int = 8, options: RenderOptions = RenderOptions(colorMode: .truecolor)
    ) async throws -> (image: DecodedImage, grid: CellGrid) {
        let box = HalfBlockRenderer.decodeBox(columns: columns, rows: rows)
        let url = Self.folder.appendingPathComponent(name)
        let image = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: box.width, maxPixelHeight: box.height))
        let fitted = HalfBlockRenderer.fittedSize(
            imageWidth: image.sourceWidth, imageHeight: image.sourceHeight, maxColumns: columns, maxRows: rows)
        return (image, HalfBlockRenderer.render(image.bitmap, columns: fitted.columns, rows: fitted.rows, options: options))
    }

    /// The error loading `name` fails with, or nil if it loads.
    func failure(_ name: String) async -> ImagePipeline.Error? {
        let url = Self.folder.appendingPathComponent(name)
        do {
            _ = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 320, maxPixelHeight: 320))
            return nil
        } catch {
            return error
        }
    }

    // MARK: Colour spaces, bit depths, encodings

    @Test("lossless encodings keep quad's exact corner colours", arguments: ["rgb16.png", "interlaced.png"])
    func losslessQuad(name: String) async throws {
        // Given quad as a 16-bit PNG or an Adam7-interlaced PNG
        // When it is decoded and rendered into 8x8 cells
        let (image, grid) = try await render(name)
        // Then it is 64x48, fills 8x3 cells, and each quadrant has its exact colour
        #expect(image.sourceWidth == 64 && image.sourceHeight == 48)
        #expect(grid.columns == 8 && grid.rows == 3)
        #expect(grid[0, 0] == Cell(glyph: " ", foreground: .rgb(RGB(255, 0, 0)), background: .rgb(RGB(255, 0, 0))))
        #expect(pixel(grid, 7, 0) == .rgb(RGB(0, 255, 0)))
        #expect(pixel(grid, 0, 5) == .rgb(RGB(0, 0, 255)))
        #expect(pixel(grid, 7, 5) == .rgb(RGB(255, 255, 255)))
    }

    @Test("lossy and CMYK JPEGs show quad's corners", arguments: ["progressive.jpg", "cmyk.jpg"])
    func lossyQuad(name: String) async throws {
        let (image, grid) = try await render(name)
        #expect(image.sourceWidth == 64 && image.sourceHeight == 48)
        #expect(grid.columns == 8 && grid.rows == 3)
        #expect(corners(grid) == ["red", "lime", "blue", "white"])
    }

    @Test("a CMYK JPEG is converted to sRGB, not shown as inverted or raw ink values")
    func cmykIsConverted() async throws {
        let (image, _) = try await render("cmyk.jpg")
        // Every decoded pixel is opaque RGBA; red stays red (a raw C,M,Y,K reading would give cyan-ish 0,255,255).
        #expect(image.bitmap.pixels.count == image.bitmap.width * image.bitmap.height * 4)
        let first = Array(image.bitmap.pixels.prefix(4))
        #expect(first[0] > 180 && first[1] < 90 && first[2] < 90 && first[3] == 255)
    }

    @Test("a 1-bit PNG decodes to black and white")
    func bilevel() async throws {
        let (_, grid) = try await render("bilevel.png")
        #expect(grid[0, 0] == Cell(glyph: " ", foreground: .rgb(RGB(0, 0, 0)), background: .rgb(RGB(0, 0, 0))))
        #expect(grid[7, 2] == Cell(glyph: " ", foreground: .rgb(RGB(255, 255, 255)), background: .rgb(RGB(255, 255, 255))))
    }

    // MARK: Transparency

    @Test("grey + alpha: opaque grey stays grey 128, transparent cells show the terminal's background")
    func greyAlpha() async throws {
        let (_, grid) = try await render("grey-alpha.png")
        #expect(grid.columns == 8 && grid.rows == 3)
        for row in 0..<3 {
            #expect(grid[0, row] == Cell(glyph: " ", foreground: .rgb(RGB(128, 128, 128)), background: .rgb(RGB(128, 128, 128))))
            #expect(grid[7, row] == .blank)
        }
    }

    @Test("palette + tRNS: transparent entries are transparent, composited onto a chosen background")
    func paletteTransparency() async throws {
        // Given a palette PNG whose right half is a fully transparent palette entry
        let (_, grid) = try await render("palette-trns.png")
        // Then, on the terminal's background, the right half is blank and the left half red
        #expect(grid[0, 1] == Cell(glyph: " ", foreground: .rgb(RGB(255, 0, 0)), background: .rgb(RGB(255, 0, 0))))
        #expect(grid[7, 1] == .blank)
        // And on a chosen background the right half is that colour (the hidden colour never shows)
        let (_, onWhite) = try await render("palette-trns.png", options: RenderOptions(colorMode: .truecolor, background: .color(RGB(255, 255, 255))))
        #expect(pixel(onWhite, 7, 0) == .rgb(RGB(255, 255, 255)))
        #expect(!onWhite.cells.contains { $0.foreground == .terminalDefault || $0.background == .terminalDefault })
    }

    // MARK: Orientation

    @Test("EXIF orientations 1-8 all display upright", arguments: 1...8)
    func orientation(n: Int) async throws {
        // Given quad stored under the inverse of orientation n, with the EXIF tag n
        let (image, grid) = try await render("orientation-\(n).jpg")
        // Then the source size is quad's (landscape), and so are the corners
        #expect(image.sourceWidth == 64 && image.sourceHeight == 48, "orientation \(n)")
        #expect(image.bitmap.width > image.bitmap.height, "orientation \(n)")
        #expect(corners(grid) == ["red", "lime", "blue", "white"], "orientation \(n)")
    }

    // MARK: Animation and odd sizes

    @Test("an animated GIF renders its first frame")
    func animatedFirstFrame() async throws {
        let (image, grid) = try await render("animated.gif")
        #expect(image.sourceWidth == 16 && image.sourceHeight == 16)
        #expect(grid.cells.allSatisfy { $0 == Cell(glyph: " ", foreground: .rgb(RGB(255, 0, 0)), background: .rgb(RGB(255, 0, 0))) })
    }

    @Test("an odd pixel height maps onto whole cells; the bottom row is the bottom colour")
    func oddHeight() async throws {
        // Given 20x15: red | blue over 7 rows, lime over 8
        let (image, grid) = try await render("odd-height-20x15.png", columns: 20, rows: 20)
        // Then it is decoded as is and fills 20 x 8 cells (7.5 rounded)
        #expect(image.bitmap.width == 20 && image.bitmap.height == 15)
        #expect(grid.columns == 20 && grid.rows == 8)
        #expect(pixel(grid, 0, 0) == .rgb(RGB(255, 0, 0)))
        #expect(pixel(grid, 19, 0) == .rgb(RGB(0, 0, 255)))
        #expect(grid[0, 7] == Cell(glyph: " ", foreground: .rgb(RGB(0, 255, 0)), background: .rgb(RGB(0, 255, 0))))
    }

    @Test("a 1x1 image fills the box in its one colour")
    func onePixel() async throws {
        let (image, grid) = try await render("1x1.png", columns: 80, rows: 24)
        #expect(image.bitmap.width == 1 && image.bitmap.height == 1)
        #expect(grid.columns == 48 && grid.rows == 24)
        let orange = TerminalColor.rgb(RGB(255, 128, 0))
        #expect(grid.cells.allSatisfy { $0 == Cell(glyph: " ", foreground: orange, background: orange) })
    }

    @Test("4000x1 becomes one row of cells, decoded no wider than the decode box")
    func wide() async throws {
        let (image, grid) = try await render("wide-4000x1.png", columns: 80, rows: 24)
        #expect(image.sourceWidth == 4000 && image.sourceHeight == 1)
        #expect(image.bitmap.width <= HalfBlockRenderer.decodeBox(columns: 80, rows: 24).width && image.bitmap.height == 1)
        #expect(grid.columns == 80 && grid.rows == 1)
        #expect(pixel(grid, 0, 0) == .rgb(RGB(255, 0, 0)) && pixel(grid, 79, 1) == .rgb(RGB(0, 0, 255)))
    }

    @Test("1x4000 becomes one column of cells, decoded no taller than the decode box")
    func tall() async throws {
        let (image, grid) = try await render("tall-1x4000.png", columns: 80, rows: 24)
        #expect(image.sourceWidth == 1 && image.sourceHeight == 4000)
        #expect(image.bitmap.height <= HalfBlockRenderer.decodeBox(columns: 80, rows: 24).height && image.bitmap.width == 1)
        #expect(grid.columns == 1 && grid.rows == 24)
        #expect(pixel(grid, 0, 0) == .rgb(RGB(255, 0, 0)) && pixel(grid, 0, 47) == .rgb(RGB(0, 0, 255)))
    }

    // MARK: Refused and broken files

    @Test("a 12,000 x 12,000 PNG of 17 KB is refused from its header, before decoding")
    func decompressionBomb() async throws {
        let size = try FileManager.default.attributesOfItem(atPath: Self.folder.appendingPathComponent("huge-12000x12000.png").path)[.size] as? Int
        #expect((size ?? .max) < 100_000)
        let error = await failure("huge-12000x12000.png")
        #expect(error == .tooManyPixels(width: 12_000, height: 12_000, limit: 100_000_000))
    }

    @Test("an AVIF decodes through libvips's libheif module, loaded on first need")
    func avif() async throws {
        // Given a 32x16 red AVIF (made with `vips copy red.png red-32x16.avif[Q=90]`)
        let (image, grid) = try await render("red-32x16.avif")
        // Then it is 32x16 and every corner is red
        #expect(image.sourceWidth == 32 && image.sourceHeight == 16)
        #expect(corners(grid) == ["red", "red", "red", "red"])
    }

    @Test("a BMP is an unsupported format: its only libvips loader is ImageMagick, outside the allow-list")
    func bmpIsUnsupported() async throws {
        // Given quad as a BMP, and `BM` followed by an SVG document (which libvips would hand to librsvg)
        #expect(await failure("quad.bmp") == .unsupportedFormat("BMP"))
        let svg = Data("BM<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>".utf8)
        let url = try TestPNG.temporaryFile(svg, name: "x.bmp")
        do {
            _ = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 8, maxPixelHeight: 8))
            Issue.record("BM<svg decoded")
        } catch {
            // Then both fail their row as "unsupported image format (BMP)"
            #expect(error == .unsupportedFormat("BMP"))
            #expect(error.description == "unsupported image format (BMP)")
        }
    }

    @Test("broken files fail with the reason named in their file name")
    func badFiles() async throws {
        guard case .corrupt = await failure("bad/truncated.jpg") else {
            Issue.record("a truncated JPEG must be .corrupt")
            return
        }
        #expect(await failure("bad/html-as.png") == .notAnImage("HTML page"))
        #expect(await failure("bad/zero-bytes.png") == .notAnImage("empty body"))
    }
}

/// The colour of half-block pixel (`x`, `y`) of `grid`, y counting pixel rows (two per cell);
/// nil when it is the terminal's default background.
func pixel(_ grid: CellGrid, _ x: Int, _ y: Int) -> TerminalColor? {
    let cell = grid[x, y / 2]
    let top = y % 2 == 0
    let color: TerminalColor
    switch cell.glyph {
    case "\u{2580}": color = top ? cell.foreground : cell.background
    case "\u{2584}": color = top ? cell.background : cell.foreground
    default: color = cell.background
    }
    return color == .terminalDefault ? nil : color
}

/// Names each corner pixel of `grid` (top-left, top-right, bottom-left, bottom-right) by its
/// dominant channel: "white", "black", "red", "lime" or "blue". Tolerant of JPEG noise and of
/// CMYK ink colours (libvips converts CMYK through a press profile: cyan + magenta prints as a
/// dark blue, 26,39,123, not 0,0,255).
func corners(_ grid: CellGrid) -> [String] {
    let points = [(0, 0), (grid.columns - 1, 0), (0, grid.rows * 2 - 1), (grid.columns - 1, grid.rows * 2 - 1)]
    return points.map { x, y in
        guard case .rgb(let c)? = pixel(grid, x, y) else { return "transparent" }
        let channels = [c.r, c.g, c.b]
        if channels.min()! > 200 { return "white" }
        if channels.max()! < 60 { return "black" }
        return ["red", "lime", "blue"][channels.firstIndex(of: channels.max()!)!]
    }
}
