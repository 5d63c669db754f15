import CVips
import Foundation
import Testing

@testable import ImagePipeline

/// The loader allow-list of the CVips shim: bytes that libvips would hand to a loader Vitrine
/// does not trust with network bytes are refused before any decoder reads them.
@Suite("libvips loader allow-list")
struct VipsAllowListTests {
    /// `cvips_probe`'s return code and message for `bytes`.
    func probe(_ bytes: Data) -> (rc: Int32, message: String) {
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = bytes.withUnsafeBytes { raw in cvips_probe(raw.baseAddress, raw.count, &width, &height, &message, message.count) }
        return (rc, message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    @Test("formats libvips reads with loaders outside the allow-list are refused", arguments: [
        // (bytes, the loader's format as the shim names it)
        (Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>".utf8), "SVG"),  // librsvg
        ([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0], "JP2K"),  // OpenJPEG
        (Array("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 1\n\u{0}\u{0}\u{0}\u{0}".utf8), "RAD"),  // Radiance
    ])
    func blockedLoaders(_ bytes: [UInt8], _ format: String) {
        // When the bytes are probed
        let result = probe(Data(bytes))
        // Then the shim refuses them as unsupported, naming the format, without decoding
        #expect(result.rc == CVIPS_UNSUPPORTED)
        #expect(result.message == format)
    }

    @Test("an SVG body fails through Vips as an unsupported format, not as corrupt")
    func svgThroughVips() {
        let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"/>".utf8)
        #expect(throws: ImagePipeline.Error.unsupportedFormat("SVG")) {
            _ = try Vips.thumbnail(svg, maxWidth: 8, maxHeight: 8, maxPixels: 0)
        }
    }

    @Test("allowed formats still decode through libvips: GIF")
    func gifAllowed() throws {
        let gif = try Data(contentsOf: FormatFixtureTests.folder.appendingPathComponent("animated.gif"))
        let image = try Vips.thumbnail(gif, maxWidth: 16, maxHeight: 16, maxPixels: 0)
        #expect(image.sourceWidth == 16 && image.bitmap.width == 16)
    }
}
