import Foundation
import HalfBlock
import Testing
import TestSupport

@testable import TerminalGraphics
@testable import TerminalUI

/// The parts of one iTerm2 inline-image sequence (`ESC ] 1337 ; File=k=v;… : base64 BEL`): its
/// arguments and the file it carries, decoded from base64; nil when `bytes` is not one.
func itermFile(_ bytes: [UInt8]) -> (args: [String: String], file: [UInt8])? {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let start = text.range(of: "\u{1B}]1337;File="),
        let colon = text[start.upperBound...].firstIndex(of: ":"),
        let bell = text[colon...].firstIndex(of: "\u{07}"),
        let file = Data(base64Encoded: String(text[text.index(after: colon)..<bell]))
    else { return nil }
    var args: [String: String] = [:]
    for pair in text[start.upperBound..<colon].split(separator: ";") {
        let kv = pair.split(separator: "=", maxSplits: 1)
        guard kv.count == 2 else { return nil }
        args[String(kv[0])] = String(kv[1])
    }
    return (args, [UInt8](file))
}

/// The sampling factors (h << 4 | v) of each component in a baseline JPEG's SOF0 segment.
func jpegSampling(_ jpeg: [UInt8]) -> [UInt8]? {
    var i = 2
    while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
        let marker = jpeg[i + 1]
        let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
        if marker == 0xC0 {
            let count = Int(jpeg[i + 9])
            return (0..<count).map { jpeg[i + 10 + 3 * $0 + 1] }
        }
        i += 2 + length
    }
    return nil
}

/// JPEG file bytes decoded by ImageMagick (`convert jpg:X png:Y`, then libpng), a decoder
/// independent of the libjpeg-turbo that wrote them.
func magickDecode(_ jpeg: [UInt8]) throws -> RGBAImage {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-jpeg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("x.jpg"), png = dir.appendingPathComponent("x.png")
    try Data(jpeg).write(to: input)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["convert", "jpg:" + input.path, "png:" + png.path]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return try #require(PNG.decode([UInt8](try Data(contentsOf: png))))
}

@Suite("iTerm2 JPEG pan steps")
struct ITermJPEGTests {
    static let context = PresenterContext(cellWidth: 10, cellHeight: 20)

    @Test("an opaque picture with itermJPEG goes as a JFIF JPEG in OSC 1337 File= (inline, size, px width/height), over 40 dB against the pixels, in fewer bytes than the PNG")
    func jpegPayload() throws {
        // Given an opaque, photo-like 300x200 picture
        let image = Pictures.smooth(width: 300, height: 200)
        // When it is encoded for a pan step and for the rest
        let step = PictureEncoder(.iterm, context: Self.context, itermJPEG: true).encode(image)
        let rest = PictureEncoder(.iterm, context: Self.context).encode(image)
        guard case .sequence(let stepBytes) = step.payload, case .sequence(let restBytes) = rest.payload else {
            Issue.record("not a sequence")
            return
        }
        // Then the step carries a JPEG (SOI, JFIF APP0) with the documented arguments
        let (args, jpeg) = try #require(itermFile(stepBytes))
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF, 0xE0]))
        #expect(args["inline"] == "1" && args["preserveAspectRatio"] == "0")
        #expect(args["width"] == "300px" && args["height"] == "200px")
        #expect(args["size"] == "\(jpeg.count)")
        // And libjpeg and ImageMagick (an independent decoder) read it back close to the pixels
        let decoded = try #require(JPEG.decode(jpeg))
        #expect(decoded.width == 300 && decoded.height == 200)
        let score = psnr(image, decoded)
        #expect(score > 40, "PSNR \(score) dB")
        let magick = try magickDecode(jpeg)
        #expect(psnr(image, magick) > 40)
        // And the rest's payload is the lossless PNG, larger than the JPEG
        let (_, png) = try #require(itermFile(restBytes))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(PNG.decode(png) == image)
        #expect(jpeg.count < png.count)
    }

    @Test("a picture with transparency stays a lossless RGBA PNG even with itermJPEG")
    func alphaStaysPNG() throws {
        let image = Pictures.fading(Pictures.smooth(width: 120, height: 80))
        let encoded = PictureEncoder(.iterm, context: Self.context, itermJPEG: true).encode(image)
        guard case .sequence(let bytes) = encoded.payload else {
            Issue.record("not a sequence")
            return
        }
        let (_, file) = try #require(itermFile(bytes))
        #expect(file.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(file[25] == 6)
        #expect(PNG.decode(file) == image)
        #expect(!encoded.opaque)
    }

    @Test("JPEG.encode: 4:4:4 or 4:2:0 as asked (SOF0 sampling), quality orders the bytes and the score, the fast DCT decodes too; a side over 65,500 is nil")
    func encoderSettings() throws {
        let image = Pictures.smooth(width: 160, height: 96)
        let full = try #require(JPEG.encode(image, quality: 90))
        let sub = try #require(JPEG.encode(image, quality: 90, subsample: true))
        #expect(jpegSampling(full) == [0x11, 0x11, 0x11])
        #expect(jpegSampling(sub) == [0x22, 0x11, 0x11])
        let low = try #require(JPEG.encode(image, quality: 50))
        let high = try #require(JPEG.encode(image, quality: 98))
        #expect(low.count < full.count && full.count < high.count)
        let scores = try [low, full, high].map { psnr(image, try #require(JPEG.decode($0))) }
        #expect(scores[0] < scores[1] && scores[1] < scores[2], "\(scores)")
        let fast = try #require(JPEG.encode(image, quality: 90, fastDCT: true))
        #expect(psnr(image, try #require(JPEG.decode(fast))) > 38)
        // Wider than baseline JPEG's 65,500 pixels: refused, not a broken file.
        #expect(JPEG.encode(RGBAImage(width: 65_501, height: 1, pixels: [UInt8](repeating: 255, count: 65_501 * 4)), quality: 90) == nil)
        #expect(JPEG.decode([0xFF, 0xD8, 0xFF]) == nil)
    }

    @Test("a JPEG larger than the encoder's first buffer (noise at quality 100, 4:4:4: over 4 bytes a pixel) comes back whole")
    func outgrowsBuffer() throws {
        // Noise from xorshift64, 8 bytes a step (a debug build's UInt8.random took seconds).
        let side = 800
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in stride(from: 0, to: pixels.count, by: 8) {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            for k in 0..<8 where k % 4 != 3 { pixels[i + k] = UInt8(truncatingIfNeeded: state >> (8 * UInt64(k))) }
        }
        let image = RGBAImage(width: side, height: side, pixels: pixels)
        let jpeg = try #require(JPEG.encode(image, quality: 100))
        #expect(jpeg.count > side * side * 4 + 65_536, "\(jpeg.count) bytes: the buffer was not outgrown")
        #expect(jpeg.suffix(2) == [0xFF, 0xD9])
        let decoded = try #require(JPEG.decode(jpeg))
        #expect(psnr(image, decoded) > 30)
    }
}
