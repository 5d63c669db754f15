import CVips
import Foundation
import HalfBlock

/// The only door to libvips. Every call goes through `cvips_*` shims (libvips's API is
/// variadic, and the shim opens libvips with `dlopen` on first use), and each failure becomes
/// an `ImagePipeline.Error`: `.unsupportedFormat` for bytes libvips would hand to a loader
/// outside the allow-list, `.decoderMissing` when libvips cannot be opened.
///
/// - Important: libvips's error buffer is process-wide; its text is a hint for people and is
///   never matched on.
enum Vips {
    /// Starts libvips once per process (behind `pthread_once` in the shim). Returns false if it
    /// could not start.
    @discardableResult
    static func start() -> Bool { cvips_init() == 0 }

    /// Sends libvips and GLib warnings to `fd` (a log file) instead of dropping them.
    static func setLogFileDescriptor(_ fd: Int32) { cvips_set_log_fd(fd) }

    /// The SHA-256 of `data` as 64 lower-case hex digits, from GLib's
    /// `g_compute_checksum_for_data` (GLib comes with libvips). Names disk-cache files.
    static func sha256Hex(_ data: Data) -> String {
        var out = [CChar](repeating: 0, count: 65)
        let rc = data.withUnsafeBytes { raw in cvips_sha256_hex(raw.baseAddress, raw.count, &out) }
        // GLib only fails here on allocation failure, which aborts first; keep the check anyway.
        precondition(rc == 0, "g_compute_checksum_for_data failed")
        return out.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Width and height in pixels from the header alone (EXIF orientation applied).
    /// - Throws: `.corrupt` when the bytes are not a readable image, `.unsupportedFormat`,
    ///   `.decoderMissing`.
    static func probe(_ data: Data) throws(ImagePipeline.Error) -> (width: Int, height: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let rc = data.withUnsafeBytes { raw in
            cvips_probe(raw.baseAddress, raw.count, &width, &height, &message, message.count)
        }
        if rc != 0 { throw Self.failure(rc, message, data) }
        return (Int(width), Int(height))
    }

    /// Decodes `data` with shrink-on-load to fit `maxWidth` x `maxHeight` pixels (aspect kept,
    /// never enlarged), as 8-bit sRGB RGBA.
    ///
    /// PNG and GIF images of up to 4 megapixels (and 8192 pixels a side) come back from the
    /// shim decoded whole (libvips has no shrink-on-load for them, and its Lanczos reduce
    /// averages gamma-encoded values); they are shrunk here by HalfBlock's exact area average in linear light, premultiplied by
    /// alpha (`BoxFilter.resizeRGBA`), to the size of ``fitSize(width:height:maxWidth:maxHeight:)``.
    /// A 1-px black/white checker then comes out grey 188, not 127.
    /// - Throws: `.tooManyPixels` when the header is over `maxPixels` (nothing is decoded),
    ///   `.corrupt` for truncated or undecodable data.
    static func thumbnail(
        _ data: Data, maxWidth: Int, maxHeight: Int, maxPixels: Int
    ) throws(ImagePipeline.Error) -> DecodedImage {
        var out = cvips_image()
        var message = [CChar](repeating: 0, count: 512)
        let rc = data.withUnsafeBytes { raw in
            cvips_thumbnail_rgba(
                raw.baseAddress, raw.count, Int32(clamping: maxWidth), Int32(clamping: maxHeight),
                Int64(maxPixels), &out, &message, message.count)
        }
        if rc == -2 {
            let size: (width: Int, height: Int) = (try? probe(data)) ?? (0, 0)
            throw .tooManyPixels(width: size.width, height: size.height, limit: maxPixels)
        }
        guard rc == 0, let pixels = out.pixels else { throw Self.failure(rc, message, data) }
        defer { cvips_free(pixels) }
        let decoded = UnsafeBufferPointer(start: pixels, count: out.length)
        let width = Int(out.width), height = Int(out.height)
        let bitmap: RGBAImage
        let fit = fitSize(width: width, height: height, maxWidth: maxWidth, maxHeight: maxHeight)
        if out.whole != 0 && (fit.width < width || fit.height < height) {
            bitmap = BoxFilter.resizeRGBA(
                decoded, width: width, height: height, toWidth: fit.width, toHeight: fit.height)
        } else {
            bitmap = RGBAImage(width: width, height: height, pixels: [UInt8](decoded))
        }
        return DecodedImage(
            bitmap: bitmap, sourceWidth: Int(out.source_width), sourceHeight: Int(out.source_height))
    }

    /// The largest size with the aspect of `width` x `height` pixels that fits `maxWidth` x
    /// `maxHeight` (limits below 1 count as 1), never enlarged: each side scaled by the smaller
    /// of the two ratios and rounded to nearest (ties to even), kept within 1...limit.
    static func fitSize(width: Int, height: Int, maxWidth: Int, maxHeight: Int) -> (width: Int, height: Int) {
        let maxW = max(maxWidth, 1), maxH = max(maxHeight, 1)
        let scale = min(Double(maxW) / Double(width), Double(maxH) / Double(height))
        if scale >= 1 { return (width, height) }
        let w = Int((Double(width) * scale).rounded(.toNearestOrEven))
        let h = Int((Double(height) * scale).rounded(.toNearestOrEven))
        return (min(max(w, 1), maxW), min(max(h, 1), maxH))
    }

    /// The error for a shim return code: `CVIPS_UNSUPPORTED` (a loader outside the allow-list),
    /// `CVIPS_UNAVAILABLE` (libvips could not be opened), else `.corrupt`.
    private static func failure(_ rc: Int32, _ message: [CChar], _ data: Data) -> ImagePipeline.Error {
        switch rc {
        case Int32(CVIPS_UNSUPPORTED): return .unsupportedFormat(text(message))
        case Int32(CVIPS_UNAVAILABLE):
            return .decoderMissing(format: ImagePipeline.imageKind(of: data) ?? "this format", reason: text(message))
        default: return .corrupt(text(message))
        }
    }

    private static func text(_ buffer: [CChar]) -> String {
        let s = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return s.isEmpty ? "unreadable image" : s
    }
}
