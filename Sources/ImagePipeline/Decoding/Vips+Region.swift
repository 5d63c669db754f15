import CVips
import Foundation
import HalfBlock

extension ImagePipeline {
    /// Decodes part of an image for the full view's zoom and pan: the `region` (x, y, width,
    /// height in source pixels, EXIF orientation applied; clamped to the image) shrunk on load by
    /// `shrink` (1, 2, 4 or 8: libjpeg's DCT scaling for JPEG, a box average after the decode for
    /// other formats) and resampled to `width` x `height` pixels (Lanczos 3 when shrinking,
    /// nearest neighbour when enlarging past 1:1). `TerminalGraphics.Viewport.frame` gives all
    /// four for a zoom step.
    ///
    /// Synchronous and thread-safe; run it off the main thread.
    /// - Throws: `.tooManyPixels` when the header is over `maxPixels` (nothing decoded),
    ///   `.corrupt` for undecodable or truncated data.
    public static func decodeRegion(
        _ data: Data, region: (x: Int, y: Int, width: Int, height: Int), shrink: Int, width: Int, height: Int,
        maxPixels: Int = 100_000_000
    ) throws(ImagePipeline.Error) -> DecodedImage {
        var out = cvips_image()
        var message = [CChar](repeating: 0, count: 512)
        let rc = data.withUnsafeBytes { raw in
            cvips_region_rgba(
                raw.baseAddress, raw.count, Int32(clamping: shrink), Int32(clamping: region.x), Int32(clamping: region.y),
                Int32(clamping: region.width), Int32(clamping: region.height), Int32(clamping: width),
                Int32(clamping: height), Int64(maxPixels), &out, &message, message.count)
        }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        if rc == -2 {
            let size: (width: Int, height: Int) = (try? Vips.probe(data)) ?? (0, 0)
            throw .tooManyPixels(width: size.width, height: size.height, limit: maxPixels)
        }
        guard rc == 0, let pixels = out.pixels else { throw .corrupt(text.isEmpty ? "could not decode" : text) }
        defer { cvips_free(pixels) }
        let bitmap = RGBAImage(
            width: Int(out.width), height: Int(out.height),
            pixels: [UInt8](UnsafeBufferPointer(start: pixels, count: out.length)))
        return DecodedImage(bitmap: bitmap, sourceWidth: Int(out.source_width), sourceHeight: Int(out.source_height))
    }
}
