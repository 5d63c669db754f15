import Foundation

/// Builds small PNG files in memory for tests (PNG spec, RFC 2083): 8-bit RGBA, filter 0, one
/// IDAT holding a zlib stream of stored (uncompressed) deflate blocks (RFC 1950/1951).
enum TestPNG {
    static func rgba(width: Int, height: Int, pixel: (Int, Int) -> [UInt8]) -> Data {
        var raw = [UInt8]()
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { raw += pixel(x, y) }
        }
        var header = be32(width) + be32(height)
        header.append(contentsOf: [8, 6, 0, 0, 0])
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png.append(chunk("IHDR", header))
        png.append(chunk("IDAT", zlibStored(raw)))
        png.append(chunk("IEND", Data()))
        return png
    }

    /// A solid-colour RGBA PNG.
    static func solid(width: Int, height: Int, _ rgba: [UInt8]) -> Data {
        self.rgba(width: width, height: height) { _, _ in rgba }
    }

    static func be32(_ v: Int) -> Data {
        Data([UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)])
    }

    static func chunk(_ type: String, _ body: Data) -> Data {
        let typed = Data(type.utf8) + body
        return be32(body.count) + typed + be32(Int(crc32(typed)))
    }

    static func zlibStored(_ bytes: [UInt8]) -> Data {
        var out = Data([0x78, 0x01])
        var offset = 0
        repeat {
            let n = min(65535, bytes.count - offset)
            let final: UInt8 = offset + n >= bytes.count ? 1 : 0
            out.append(final)
            out.append(contentsOf: [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)])
            out.append(contentsOf: bytes[offset..<offset + n])
            offset += n
        } while offset < bytes.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        out.append(be32(Int(b << 16 | a)))
        return out
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func dataURL(_ png: Data) -> URL {
        URL(string: "data:image/png;base64," + png.base64EncodedString())!
    }

    /// Writes `data` to a fresh temporary file and returns its URL.
    static func temporaryFile(_ data: Data, name: String = "image.png") throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }
}
