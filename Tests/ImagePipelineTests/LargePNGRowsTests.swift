import Foundation
import HalfBlock
import Testing

@testable import ImagePipeline

/// PNGs too large to decode whole (over `Codecs.wholeMaxPixels`) are read row by row and
/// shrunk as the rows arrive, so a zlib stream that goes on after the last row is not inflated
/// (it went to libvips before, which inflated all of it: 1.3-2.4 s for a 1.5 MB file).
@Suite("PNG over 4 Mpx: row by row, the stream after the last row not inflated")
struct LargePNGRowsTests {
    /// A black 8-bit grey PNG of `width` x `height` whose zlib stream is one fixed-Huffman block
    /// (RFC 1951 3.2.6) that never ends: a literal 0, then back references of 258 bytes at
    /// distance 1 (13 bits each, ~160 inflated bytes per compressed byte), `compressed` bytes in
    /// all, then IEND. The rows (filter 0, grey 0) are the first `height * (width + 1)` zeros it
    /// inflates to; everything after is trailing data. Returns the file and how many bytes the
    /// stream would inflate to.
    static func bomb(width: Int, height: Int, compressed: Int) -> (png: Data, inflated: Int) {
        var bits = [false, true, false]  // BFINAL 0, BTYPE 01 (fixed Huffman)
        func code(_ value: Int, _ count: Int) {
            for i in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) }
        }
        code(0x30, 8)  // literal 0 (codes 0-143: 0x30 + literal, 8 bits)
        for _ in 0..<32 {
            code(0b1100_0101, 8)  // length code 285: 258 bytes
            code(0, 5)  // distance code 0: distance 1
        }
        var packed = [UInt8](repeating: 0, count: bits.count / 8)
        for (i, bit) in bits.enumerated() where bit && i / 8 < packed.count { packed[i / 8] |= 1 << (i % 8) }
        // From bit 11 on the matches repeat every 104 bits (13 bytes); from byte 2 the bytes do.
        let period = Array(packed[2..<15])
        var block = Array(packed[0..<2])
        block.reserveCapacity(compressed + 13)
        while block.count < compressed { block += period }
        let matches = (block.count * 8 - 11) / 13
        var stream = Data([0x78, 0x01])
        stream.append(contentsOf: block)
        let png = PNGStreamBoundsTests.file(width: width, height: height, colourType: 0, stream: stream)
        return (png, 1 + matches * 258)
    }

    @Test("a 2100x2100 PNG with 80 MB of stream after its rows decodes by rows, fitted to the box")
    func trailingStreamNotInflated() throws {
        // Given a 2100x2100 black grey PNG (4.4 Mpx, over the whole-decode cap) whose zlib
        // stream inflates to about 19 times the image's rows and never ends
        let (png, inflated) = Self.bomb(width: 2100, height: 2100, compressed: 512 << 10)
        let rowBytes = 2100 * 2101
        #expect(inflated > 18 * rowBytes)
        #expect(!Codecs.decodesWhole(width: 2100, height: 2100))
        #expect(ImageDecoder.usesCodecs(.png, width: 2100, height: 2100))
        // When it is decoded to fit 80x80
        let image = try ImageDecoder.thumbnail(png, maxWidth: 80, maxHeight: 80, maxPixels: 100_000_000)
        // Then it is read row by row (libvips, which reads the stream to its end, finds the
        // stream unfinished at IEND), fitted to the box, black and opaque
        #expect(image.bitmap.width == 80 && image.bitmap.height == 80)
        #expect(image.sourceWidth == 2100 && image.sourceHeight == 2100)
        let pixels = Set(stride(from: 0, to: image.bitmap.pixels.count, by: 4).map { image.bitmap.pixels[$0..<$0 + 4] })
        #expect(pixels == [[0, 0, 0, 255]])
        // And the row reader gives the same
        let rows = try #require(try Codecs.thumbnailRows(png, maxWidth: 80, maxHeight: 80, maxPixels: 0))
        #expect(rows.bitmap.pixels == image.bitmap.pixels)
    }

    @Test("rows shrunk as they arrive equal the whole image shrunk")
    func rowsEqualWhole() throws {
        // Given a 64x48 PNG with a gradient and partial alpha
        let png = TestPNG.rgba(width: 64, height: 48) { x, y in [UInt8(x * 4), UInt8(y * 5), UInt8((x * y) % 256), UInt8(64 + x + y)] }
        // When it is read by rows and shrunk to 20x15, and decoded whole and shrunk
        let rows = try #require(try Codecs.thumbnailRows(png, maxWidth: 20, maxHeight: 20, maxPixels: 0))
        let whole = try Codecs.thumbnail(png, format: .png, maxWidth: 20, maxHeight: 20, maxPixels: 0)
        // Then the bytes are the same
        #expect(rows.bitmap.width == 20 && rows.bitmap.height == 15)
        #expect(rows.bitmap.pixels == whole.bitmap.pixels)
    }

    @Test("a large interlaced PNG is not read by rows (nil: libvips decodes it)")
    func interlacedNotByRows() throws {
        let raw = PNGStreamBoundsTests.rows(width: 9, height: 7, pixel: [200, 30, 90], interlaced: true)
        let png = PNGStreamBoundsTests.file(width: 9, height: 7, colourType: 2, interlaced: true,
                                            stream: TestPNG.zlibStored(raw))
        #expect(try Codecs.thumbnailRows(png, maxWidth: 4, maxHeight: 4, maxPixels: 0) == nil)
    }
}
