import CImageCodecs
import Foundation
import Testing

/// libpng through `ccodec_png_*` on untrusted PNG files (issue 14's rule): the zlib stream is
/// not inflated past the image's rows (a small header with a huge IDAT stream costs the
/// image's size, not the stream's), and a palette image without a palette says so.
@Suite("PNG: the image data ends with the last row; a missing PLTE is named")
struct PNGStreamBoundsTests {
    /// An 8-bit PNG of `width` x `height` (colour type `colourType`, Adam7 when `interlaced`)
    /// whose zlib stream (RFC 1950) holds the image's filtered rows `raw` in one non-final
    /// stored block, then `trailing` bytes of a fixed-Huffman block (RFC 1951 3.2.6) that never
    /// ends: back references of 258 bytes at distance 1, 13 bits each (~160 inflated bytes per
    /// compressed byte). The stream has no end and no Adler-32; the trailing data is split over
    /// IDAT chunks of 32 KiB, each with a correct CRC-32, and IEND follows.
    static func png(width: Int, height: Int, colourType: UInt8, interlaced: Bool, raw: [UInt8],
                    palette: Data? = nil, trailing: Int) -> Data {
        var stream = Data([0x78, 0x01, 0x00])  // zlib header; stored block, BFINAL 0
        let n = raw.count
        stream.append(contentsOf: [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)])
        stream.append(contentsOf: raw)
        // The fixed-Huffman block: BFINAL 0, BTYPE 01, then length code 285 (8 bits, 11000101,
        // sent from its top bit) and distance code 0 (5 bits), over and over.
        var bits = [Bool]()
        bits += [false, true, false]
        for _ in 0..<16 {
            bits += [true, true, false, false, false, true, false, true]
            bits += [false, false, false, false, false]
        }
        var packed = [UInt8](repeating: 0, count: bits.count / 8)
        for (i, bit) in bits.enumerated() where bit && i / 8 < packed.count { packed[i / 8] |= 1 << (i % 8) }
        // From byte 1 on the bits repeat every 8 matches (104 bits, 13 bytes).
        let period = Array(packed[1...13])
        var block = [packed[0]]
        block.reserveCapacity(trailing + 13)
        while block.count < trailing { block += period }
        stream.append(contentsOf: block)
        return file(width: width, height: height, colourType: colourType, interlaced: interlaced,
                    palette: palette, stream: stream)
    }

    /// An 8-bit PNG whose IDAT chunks (32 KiB each, correct CRC-32s) hold `stream`, with a PLTE
    /// chunk of `palette` before them when given, and IEND.
    static func file(width: Int, height: Int, colourType: UInt8, interlaced: Bool = false,
                     palette: Data? = nil, stream: Data) -> Data {
        var header = TestPNG.be32(width) + TestPNG.be32(height)
        header.append(contentsOf: [8, colourType, 0, 0, interlaced ? 1 : 0])
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        file.append(TestPNG.chunk("IHDR", header))
        if let palette { file.append(TestPNG.chunk("PLTE", palette)) }
        var offset = 0
        while offset < stream.count {
            let end = min(stream.count, offset + 32 << 10)
            file.append(TestPNG.chunk("IDAT", stream.subdata(in: offset..<end)))
            offset = end
        }
        file.append(TestPNG.chunk("IEND", Data()))
        return file
    }

    /// Filtered rows (filter 0) of a solid `pixel` image of `width` x `height`, as Adam7's seven
    /// passes (PNG spec 8.2) when `interlaced`.
    static func rows(width: Int, height: Int, pixel: [UInt8], interlaced: Bool) -> [UInt8] {
        let passes: [(x0: Int, y0: Int, dx: Int, dy: Int)] =
            interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var raw = [UInt8]()
        for p in passes {
            let w = (width - p.x0 + p.dx - 1) / p.dx
            let h = (height - p.y0 + p.dy - 1) / p.dy
            guard w > 0, h > 0 else { continue }
            for _ in 0..<h {
                raw.append(0)
                for _ in 0..<w { raw += pixel }
            }
        }
        return raw
    }

    /// `ccodec_png_decode` of `data`: its status, its RGBA pixels (empty on failure), its message.
    static func decode(_ data: Data) -> (rc: Int32, pixels: [UInt8], message: String) {
        var image = ccodec_image()
        var message = [CChar](repeating: 0, count: 256)
        let rc = data.withUnsafeBytes {
            ccodec_png_decode($0.baseAddress, $0.count, 0, &image, &message, message.count)
        }
        defer { if rc == 0 { ccodec_free(image.pixels) } }
        let pixels = rc == 0 ? Array(UnsafeBufferPointer(start: image.pixels, count: image.length)) : []
        return (rc, pixels, String(cString: message))
    }

    @Test("a stream that goes on after the last row is not inflated: the image decodes, whole or row by row",
          arguments: [false, true])
    func trailingStreamIgnored(interlaced: Bool) throws {
        // Given a 9x7 RGB image whose zlib stream goes on for 1 MiB after its rows (~160 MB if
        // inflated) and never ends, followed by IEND (read to its end, libpng finds "Not
        // enough image data" at IEND: the stream is only ignored if it is not read)
        let raw = Self.rows(width: 9, height: 7, pixel: [200, 30, 90], interlaced: interlaced)
        let png = Self.png(width: 9, height: 7, colourType: 2, interlaced: interlaced, raw: raw, trailing: 1 << 20)
        // When it is decoded whole
        let whole = Self.decode(png)
        // Then it succeeds with every pixel
        #expect(whole.rc == 0, "\(whole.message)")
        #expect(whole.pixels.count == 9 * 7 * 4)
        let colours = Set(stride(from: 0, to: whole.pixels.count, by: 4).map { whole.pixels[$0..<$0 + 4] })
        #expect(colours == [[200, 30, 90, 255]])

        // And when it is decoded row by row (not interlaced: Adam7 is decoded whole)
        guard !interlaced else { return }
        var width: Int32 = 0, height: Int32 = 0, status: Int32 = -1
        var message = [CChar](repeating: 0, count: 256)
        let rows = try #require(png.withUnsafeBytes {
            ccodec_png_rows_open($0.baseAddress, $0.count, 0, &width, &height, &status, &message, message.count)
        })
        defer { ccodec_png_rows_close(rows) }
        var row = [UInt8](repeating: 0, count: 9 * 4)
        for y in 0..<7 {
            let rc = ccodec_png_rows_next(rows, &row, row.count, &message, message.count)
            // Then every row arrives, the last one too
            #expect(rc == 0, "row \(y): \(String(cString: message))")
            #expect(row == Array([[UInt8]](repeating: [200, 30, 90, 255], count: 9).joined()))
        }
        // And there is no row after the last
        #expect(ccodec_png_rows_next(rows, &row, row.count, &message, message.count) != 0)
    }

    @Test("a stream that ends short of the last row is still an error (IDAT)")
    func shortStreamFails() {
        // Given a 9x7 RGB PNG whose whole zlib stream holds only 6 of its 7 rows
        let raw = Self.rows(width: 9, height: 6, pixel: [1, 2, 3], interlaced: false)
        let png = Self.file(width: 9, height: 7, colourType: 2, stream: TestPNG.zlibStored(raw))
        // When it is decoded, then it fails on the image data
        let result = Self.decode(png)
        #expect(result.rc != 0)
        #expect(result.message == "truncated or damaged image data (IDAT)")
    }

    @Test("a palette PNG without PLTE says the palette is missing, not that the image data is damaged")
    func missingPalette() {
        // Given a 4x3 palette PNG (colour type 3) whose rows are index 0, with no PLTE chunk
        let raw = Self.rows(width: 4, height: 3, pixel: [0], interlaced: false)
        let bare = Self.file(width: 4, height: 3, colourType: 3, stream: TestPNG.zlibStored(raw))
        // When it is decoded
        let result = Self.decode(bare)
        // Then it fails, naming the missing palette
        #expect(result.rc != 0)
        #expect(result.message.contains("palette (PLTE) is missing"), "\(result.message)")
        #expect(!result.message.contains("IDAT)"))
        // And the same file with a one-entry PLTE decodes to that colour
        let withPalette = Self.file(width: 4, height: 3, colourType: 3, palette: Data([10, 20, 30]),
                                    stream: TestPNG.zlibStored(raw))
        let decoded = Self.decode(withPalette)
        #expect(decoded.rc == 0, "\(decoded.message)")
        #expect(decoded.pixels == Array([[UInt8]](repeating: [10, 20, 30, 255], count: 12).joined()))
    }
}
