import CImageCodecs
import Foundation
import HalfBlock

/// The hot path's decoders: JPEG through libjpeg-turbo and PNG through libpng, called through
/// the `ccodec_*` shims (jpeglib reports errors by `longjmp`, which Swift cannot take), with
/// embedded ICC profiles converted to sRGB by LittleCMS. All resampling is Vitrine's own
/// (HalfBlock's linear-light, premultiplied box filter); libvips is not involved.
enum Codecs {
    /// PNGs with more pixels than this (or a side over ``wholeMaxSide``) are not decoded whole:
    /// that takes `width * height * 4` bytes at once (16 MiB here). They are read row by row
    /// and shrunk as the rows arrive (``thumbnailRows(_:maxWidth:maxHeight:maxPixels:)``), or
    /// go to libvips when they are wider than ``wholeMaxSide`` or cannot be read by rows.
    static let wholeMaxPixels = 4096 * 1024
    /// PNGs wider than this go to libvips: the box filter keeps one row of `width * 16`
    /// bytes (a 4194304x1 PNG took 155 MB that way). A taller one is not decoded whole.
    static let wholeMaxSide = 8192

    /// Whether a PNG of `width` x `height` pixels is decoded whole by libpng (else by rows).
    static func decodesWhole(width: Int, height: Int) -> Bool {
        width * height <= wholeMaxPixels && width <= wholeMaxSide && height <= wholeMaxSide
    }

    /// Width and height in pixels from the header alone (EXIF orientation applied to JPEG).
    /// - Throws: `.corrupt` when the header cannot be read.
    static func probe(_ data: Data, format: ImageFormat) throws(ImagePipeline.Error) -> (width: Int, height: Int) {
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let rc = data.withUnsafeBytes { raw in
            format == .jpeg
                ? ccodec_jpeg_probe(raw.baseAddress, raw.count, &width, &height, &message, message.count)
                : ccodec_png_probe(raw.baseAddress, raw.count, &width, &height, &message, message.count)
        }
        if rc != 0 { throw .corrupt(text(message)) }
        return (Int(width), Int(height))
    }

    /// Decodes a JPEG at the smallest DCT scale (n/8) that still covers the fitted size, or a
    /// PNG whole, then shrinks it with `BoxFilter.resizeRGBA` (an exact area average in linear
    /// light, premultiplied) to ``Vips/fitSize(width:height:maxWidth:maxHeight:)`` of the
    /// source: never enlarged, aspect kept. With `shrink` false the decoded bitmap comes back
    /// as decoded (the JPEG at that DCT scale, the PNG whole), for a caller that resizes it
    /// itself in one pass (`vitrine render`: one box filter straight to the cell grid).
    ///
    /// A JPEG decoded at 1/8 with `shrink` false or `blockVariance` true (the full view) comes
    /// from its coefficients instead (`CCODEC_JPEG_BLOCK_VARIANCE`): each pixel is its 8x8
    /// block's linear-light mean estimated from the block's mean and deviation, so fine
    /// detail keeps its brightness (docs/PERFORMANCE.md, issue 14, "Seventh round"); it costs
    /// about a fifth more CPU than libjpeg's own 1/8 decode, which thumbnails keep.
    /// Progressive, CMYK and other layouts decode as before.
    /// - Throws: `.tooManyPixels` when the header is over `maxPixels` (nothing decoded),
    ///   `.corrupt` for truncated or undecodable data.
    static func thumbnail(
        _ data: Data, format: ImageFormat, maxWidth: Int, maxHeight: Int, maxPixels: Int, shrink: Bool = true,
        blockVariance: Bool = false
    ) throws(ImagePipeline.Error) -> DecodedImage {
        var out = ccodec_image()
        var message = [CChar](repeating: 0, count: 256)
        if format == .png {
            return try png(data, maxWidth: maxWidth, maxHeight: maxHeight, maxPixels: maxPixels, shrink: shrink)
        }
        let size = try probe(data, format: .jpeg)
        let need = Vips.fitSize(width: max(size.width, 1), height: max(size.height, 1), maxWidth: maxWidth, maxHeight: maxHeight)
        let flags: Int32 = blockVariance || !shrink ? Int32(CCODEC_JPEG_BLOCK_VARIANCE) : 0
        let rc = data.withUnsafeBytes { raw in
            ccodec_jpeg_decode_flags(
                raw.baseAddress, raw.count, Int32(clamping: need.width), Int32(clamping: need.height),
                Int64(maxPixels), flags, &out, &message, message.count)
        }
        if rc == -2 {
            throw .tooManyPixels(width: Int(out.source_width), height: Int(out.source_height), limit: maxPixels)
        }
        guard rc == 0, let pixels = out.pixels else { throw .corrupt(text(message)) }
        defer { ccodec_free(pixels) }
        let decoded = UnsafeBufferPointer(start: pixels, count: out.length)
        let width = Int(out.width), height = Int(out.height)
        let fit = Vips.fitSize(width: width, height: height, maxWidth: maxWidth, maxHeight: maxHeight)
        let bitmap: RGBAImage
        if shrink && (fit.width < width || fit.height < height) {
            bitmap = BoxFilter.resizeRGBA(decoded, width: width, height: height, toWidth: fit.width, toHeight: fit.height)
        } else {
            bitmap = RGBAImage(width: width, height: height, pixels: [UInt8](decoded))
        }
        return DecodedImage(bitmap: bitmap, sourceWidth: Int(out.source_width), sourceHeight: Int(out.source_height))
    }

    /// A PNG decoded by libpng straight into the bitmap's own array (no second buffer, no
    /// copy: on a 512x512 image that copy was 1 MiB and 256 page faults), then, when `shrink`
    /// is true and the box is smaller, box-filtered to fit it. The pixel cap is checked on the
    /// header before the array is allocated.
    private static func png(
        _ data: Data, maxWidth: Int, maxHeight: Int, maxPixels: Int, shrink: Bool
    ) throws(ImagePipeline.Error) -> DecodedImage {
        let size = try probe(data, format: .png)
        if size.width < 1 || size.height < 1 { throw .corrupt("no pixels") }
        if size.width > Int(Int32.max) / 4 || size.height > Int(Int32.max)
            || (maxPixels > 0 && size.width * size.height > maxPixels)
        {
            throw .tooManyPixels(width: size.width, height: size.height, limit: maxPixels)
        }
        var out = ccodec_image()
        var message = [CChar](repeating: 0, count: 256)
        let count = size.width * size.height * 4
        var rc: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            rc = data.withUnsafeBytes { raw in
                ccodec_png_decode_into(
                    raw.baseAddress, raw.count, Int64(maxPixels), buffer.baseAddress, count, &out, &message, message.count)
            }
            // On failure the bytes are not used; zero them so the array is never uninitialised.
            if rc != 0 { buffer.initialize(repeating: 0) }
            initialized = count
        }
        if rc == -2 {
            throw .tooManyPixels(width: Int(out.source_width), height: Int(out.source_height), limit: maxPixels)
        }
        guard rc == 0 else { throw .corrupt(text(message)) }
        let width = Int(out.width), height = Int(out.height)
        let fit = Vips.fitSize(width: width, height: height, maxWidth: maxWidth, maxHeight: maxHeight)
        let bitmap: RGBAImage
        if shrink && (fit.width < width || fit.height < height) {
            bitmap = pixels.withUnsafeBufferPointer { decoded in
                BoxFilter.resizeRGBA(decoded, width: width, height: height, toWidth: fit.width, toHeight: fit.height)
            }
        } else {
            bitmap = RGBAImage(width: width, height: height, pixels: pixels)
        }
        return DecodedImage(bitmap: bitmap, sourceWidth: Int(out.source_width), sourceHeight: Int(out.source_height))
    }

    /// A PNG too large to decode whole, read row by row (``streamPNG(_:maxPixels:_:)``) and
    /// area-averaged as the rows arrive (`BoxFilter.resizeRGBA`, the same linear-light filter)
    /// to ``Vips/fitSize(width:height:maxWidth:maxHeight:)`` of the source: the image is never
    /// held, and the decode ends at its last row (the rest of the zlib stream is not inflated:
    /// a 2100x2100 PNG with 1.5 GB of deflated zeros after its rows took libvips 1.3-2.4 s).
    /// Nil when the PNG cannot be read by rows (Adam7 interlaced, or an ICC profile).
    /// - Throws: as ``streamPNG(_:maxPixels:_:)``.
    static func thumbnailRows(
        _ data: Data, maxWidth: Int, maxHeight: Int, maxPixels: Int
    ) throws(ImagePipeline.Error) -> DecodedImage? {
        let streamed = try streamPNG(data, maxPixels: maxPixels) { source -> RGBAImage? in
            let fit = Vips.fitSize(width: source.width, height: source.height, maxWidth: maxWidth, maxHeight: maxHeight)
            return BoxFilter.resizeRGBA(source, toWidth: fit.width, toHeight: fit.height)
        }
        guard let streamed else { return nil }
        return DecodedImage(bitmap: streamed.result, sourceWidth: streamed.width, sourceHeight: streamed.height)
    }

    /// A PNG read row by row (libpng, `png_read_row`) into `body`: nil when the image must
    /// be decoded whole instead (Adam7 interlaced, or an ICC profile to convert).
    /// - Throws: `.tooManyPixels` over `maxPixels` (nothing decoded), `.corrupt` for a damaged
    ///   header or IDAT (checked before the first row), or when a row fails (`body` nil).
    static func streamPNG<T>(
        _ data: Data, maxPixels: Int, _ body: (RGBARowSource) -> T?
    ) throws(ImagePipeline.Error) -> (result: T, width: Int, height: Int)? {
        var message = [CChar](repeating: 0, count: 256)
        var width: Int32 = 0, height: Int32 = 0, status: Int32 = 0
        // nil: decode whole.
        let outcome: Result<T, ImagePipeline.Error>? = data.withUnsafeBytes { raw in
            guard let rows = ccodec_png_rows_open(
                raw.baseAddress, raw.count, Int64(maxPixels), &width, &height, &status, &message, message.count)
            else {
                if status == 0 { return nil }
                if status == -2 {
                    return .failure(.tooManyPixels(width: Int(width), height: Int(height), limit: maxPixels))
                }
                return .failure(.corrupt(text(message)))
            }
            defer { ccodec_png_rows_close(rows) }
            let rowBytes = Int(width) * 4
            var rowMessage = [CChar](repeating: 0, count: 256)
            let source = RGBARowSource(width: Int(width), height: Int(height)) { row in
                ccodec_png_rows_next(rows, row, rowBytes, &rowMessage, rowMessage.count) == 0
            }
            guard let result = body(source) else { return .failure(.corrupt(text(rowMessage))) }
            return .success(result)
        }
        switch outcome {
        case nil: return nil
        case .success(let result): return (result, Int(width), Int(height))
        case .failure(let error): throw error
        }
    }

    private static func text(_ buffer: [CChar]) -> String {
        let s = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return s.isEmpty ? "unreadable image" : s
    }
}

/// Which decoder reads which bytes: JPEG and PNG (up to ``Codecs/wholeMaxSide`` wide: whole up
/// to ``Codecs/wholeMaxPixels``, larger ones row by row) through ``Codecs``; GIF, WebP, TIFF,
/// HEIF/AVIF, wider PNGs and large PNGs that cannot be read by rows (Adam7, ICC) through
/// ``Vips``; BMP nowhere (its only libvips loader is ImageMagick's, which is not trusted with
/// network bytes).
enum ImageDecoder {
    /// Whether `format` at `width` x `height` pixels is decoded by ``Codecs`` (a large PNG
    /// only when it can be read by rows: see ``Codecs/thumbnailRows(_:maxWidth:maxHeight:maxPixels:)``).
    static func usesCodecs(_ format: ImageFormat, width: Int, height: Int) -> Bool {
        switch format {
        case .jpeg: return true
        case .png: return width <= Codecs.wholeMaxSide
        default: return false
        }
    }

    /// Width and height from the header alone, by the decoder that would decode the bytes.
    /// - Throws: `.corrupt` when the header is unreadable, `.notAnImage` for bytes with no
    ///   known signature.
    static func probe(_ data: Data) throws(ImagePipeline.Error) -> (width: Int, height: Int) {
        guard let format = ImageFormat.sniff(data) else { throw .notAnImage(ImageFormat.describe(data)) }
        if !format.isDecoded { throw .unsupportedFormat(format.name) }
        if format == .jpeg || format == .png { return try Codecs.probe(data, format: format) }
        return try Vips.probe(data)
    }

    /// Decodes `data` to fit `maxWidth` x `maxHeight` pixels (see ``Codecs/thumbnail`` and
    /// ``Vips/thumbnail(_:maxWidth:maxHeight:maxPixels:)``).
    /// - Throws: `.notAnImage`, `.unsupportedFormat` (BMP, or a loader outside libvips's
    ///   allow-list), `.decoderMissing` (libvips not available), `.tooManyPixels`, `.corrupt`.
    /// - Parameter shrink: false leaves a JPEG or PNG decoded by ``Codecs`` at its decoded size
    ///   (see ``Codecs/thumbnail(_:format:maxWidth:maxHeight:maxPixels:shrink:blockVariance:)``); other
    ///   formats, and PNGs too large to decode whole, fit the box either way.
    /// - Parameter blockVariance: a JPEG decoded at 1/8 takes each block's linear-light mean
    ///   from its coefficients (as with `shrink` false; see ``Codecs``): for the full view.
    static func thumbnail(
        _ data: Data, maxWidth: Int, maxHeight: Int, maxPixels: Int, shrink: Bool = true, blockVariance: Bool = false
    ) throws(ImagePipeline.Error) -> DecodedImage {
        guard let format = ImageFormat.sniff(data) else { throw .notAnImage(ImageFormat.describe(data)) }
        if !format.isDecoded { throw .unsupportedFormat(format.name) }
        if format == .jpeg {
            return try Codecs.thumbnail(
                data, format: .jpeg, maxWidth: maxWidth, maxHeight: maxHeight, maxPixels: maxPixels, shrink: shrink,
                blockVariance: blockVariance)
        }
        if format == .png {
            let size = try Codecs.probe(data, format: .png)
            if Codecs.decodesWhole(width: size.width, height: size.height) {
                return try Codecs.thumbnail(
                    data, format: .png, maxWidth: maxWidth, maxHeight: maxHeight, maxPixels: maxPixels, shrink: shrink)
            }
            if usesCodecs(.png, width: size.width, height: size.height),
                let rows = try Codecs.thumbnailRows(data, maxWidth: maxWidth, maxHeight: maxHeight, maxPixels: maxPixels)
            {
                return rows
            }
            if maxPixels > 0 && size.width * size.height > maxPixels {
                throw .tooManyPixels(width: size.width, height: size.height, limit: maxPixels)
            }
        }
        return try Vips.thumbnail(data, maxWidth: maxWidth, maxHeight: maxHeight, maxPixels: maxPixels)
    }

    /// Decodes `data` for `request`: every frame of an animated GIF or WebP when the request is
    /// `animated` (within `configuration.maxAnimationBytes`, see ``Vips/animation``), else (and
    /// for still images) as ``thumbnail(_:maxWidth:maxHeight:maxPixels:shrink:blockVariance:)``,
    /// with `blockVariance` for an `animated` request (the full view's; thumbnails' are not).
    /// - Parameter progress: for an animation, called with the frames so far after each but
    ///   the last (see ``Vips/animation(_:maxWidth:maxHeight:maxPixels:maxBytes:progress:)``).
    /// - Throws: as ``thumbnail(_:maxWidth:maxHeight:maxPixels:)``; `.cancelled` when
    ///   `progress` returned false.
    static func decode(
        _ data: Data, for request: ImageRequest, configuration: ImagePipeline.Configuration,
        progress: ((DecodedImage) -> Bool)? = nil
    ) throws(ImagePipeline.Error) -> DecodedImage {
        if request.animated, let format = ImageFormat.sniff(data), format == .gif || format == .webp,
            let animation = try Vips.animation(
                data, maxWidth: request.maxPixelWidth, maxHeight: request.maxPixelHeight,
                maxPixels: configuration.maxPixels, maxBytes: configuration.maxAnimationBytes, progress: progress)
        {
            return animation
        }
        return try thumbnail(
            data, maxWidth: request.maxPixelWidth, maxHeight: request.maxPixelHeight, maxPixels: configuration.maxPixels,
            blockVariance: request.animated)
    }
}
