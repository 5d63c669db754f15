import Foundation
import HalfBlock

extension ImagePipeline {
    /// Reads a local image (a file URL or a `data:` URL) and decodes it on the calling thread, as
    /// a pipeline would, without one: no queue, no thread, no cache. For one-shot commands
    /// (`vitrine render FILE`), where the pipeline's set-up (its operation queue, dispatch
    /// queues, locks and tables) was a measurable part of the whole run (issue 14).
    ///
    /// The same limits and checks as a pipeline load with `configuration` (left out: the defaults,
    /// ``Configuration/defaultMaxResponseBytes`` and ``Configuration/defaultMaxPixels``, without
    /// building a `Configuration`, whose defaults ask `ProcessInfo` for the memory and cores and
    /// create `NotificationCenter.default`: a measurable part of a one-shot render): at most
    /// `maxResponseBytes` read (a larger file fails without being read further), magic bytes
    /// before any decoder, at most `maxPixels` pixels by the header, and the result fits
    /// `maxPixelWidth` x `maxPixelHeight` pixels (aspect kept, never enlarged), unless `shrink`
    /// is false: then a JPEG comes back at the smallest DCT scale (n/8) that covers the box and
    /// a PNG of up to 4 megapixels whole, for a caller that resizes once itself (the half-block
    /// renderer's box filter: one exact area average from the decoded pixels to the cells,
    /// not two with an 8-bit image between them).
    /// - Returns: the decoded image, or the error a pipeline load would have failed with:
    ///   `.file` (missing, unreadable or not a regular file), `.responseTooLarge`,
    ///   `.unsupportedURL` (not a file or `data:` URL, or a malformed `data:` URL),
    ///   `.notAnImage`, `.unsupportedFormat`, `.decoderMissing`, `.tooManyPixels`, `.corrupt`.
    public static func decodeLocal(
        _ url: URL, maxPixelWidth: Int, maxPixelHeight: Int, configuration: Configuration, shrink: Bool = true
    ) -> Result<DecodedImage, ImagePipeline.Error> {
        decodeLocal(
            url, maxPixelWidth: maxPixelWidth, maxPixelHeight: maxPixelHeight,
            limits: (configuration.maxResponseBytes, configuration.maxPixels), shrink: shrink)
    }

    /// ``decodeLocal(_:maxPixelWidth:maxPixelHeight:configuration:shrink:)`` with the default
    /// limits (no `Configuration` is built).
    public static func decodeLocal(
        _ url: URL, maxPixelWidth: Int, maxPixelHeight: Int, shrink: Bool = true
    ) -> Result<DecodedImage, ImagePipeline.Error> {
        decodeLocal(
            url, maxPixelWidth: maxPixelWidth, maxPixelHeight: maxPixelHeight,
            limits: (Configuration.defaultMaxResponseBytes, Configuration.defaultMaxPixels), shrink: shrink)
    }

    fileprivate static func decodeLocal(
        _ url: URL, maxPixelWidth: Int, maxPixelHeight: Int, limits: (maxResponseBytes: Int, maxPixels: Int), shrink: Bool
    ) -> Result<DecodedImage, ImagePipeline.Error> {
        let maxPixels = limits.maxPixels
        switch readLocal(url, limit: limits.maxResponseBytes) {
        case .failure(let error):
            return .failure(error)
        case .success(let data):
            do throws(ImagePipeline.Error) {
                return .success(
                    try ImageDecoder.thumbnail(
                        data, maxWidth: max(1, maxPixelWidth), maxHeight: max(1, maxPixelHeight), maxPixels: maxPixels,
                        shrink: shrink))
            } catch {
                return .failure(error)
            }
        }
    }
}

/// What ``ImagePipeline/decodeLocal(_:maxPixelWidth:maxPixelHeight:configuration:streaming:)``
/// gave: the image decoded whole, or the result of its `streaming` body on the image's rows.
public enum LocalPicture<T> {
    /// Decoded as by ``ImagePipeline/decodeLocal(_:maxPixelWidth:maxPixelHeight:configuration:shrink:)``
    /// with `shrink` false.
    case decoded(DecodedImage)
    /// The body's result; the image was `sourceWidth` x `sourceHeight` pixels.
    case streamed(T, sourceWidth: Int, sourceHeight: Int)
}

extension ImagePipeline {
    /// As ``decodeLocal(_:maxPixelWidth:maxPixelHeight:configuration:shrink:)`` with `shrink`
    /// false, but a PNG that can be read row by row (not interlaced, no ICC profile, decoded by
    /// libpng: see ``ImageDecoder/usesCodecs(_:width:height:)``) is handed to `streaming` as an
    /// ``RGBARowSource`` instead of being decoded whole: a renderer that resizes as rows arrive
    /// never holds the image (for a 512x512 PNG, 1 MiB and 256 page faults less; issue 14).
    /// The same checks come first: byte cap, magic bytes, pixel cap, every IDAT chunk whole
    /// with its CRC-32.
    /// - Returns: `.streamed` with the body's result, `.decoded` for every other image, or the
    ///   errors of `decodeLocal`; `.corrupt` too when the rows fail part-way (the body returns
    ///   nil for a failed source).
    public static func decodeLocal<T>(
        _ url: URL, maxPixelWidth: Int, maxPixelHeight: Int, configuration: Configuration,
        streaming body: (RGBARowSource) -> T?
    ) -> Result<LocalPicture<T>, ImagePipeline.Error> {
        decodeLocal(
            url, maxPixelWidth: maxPixelWidth, maxPixelHeight: maxPixelHeight,
            limits: (configuration.maxResponseBytes, configuration.maxPixels), streaming: body)
    }

    /// ``decodeLocal(_:maxPixelWidth:maxPixelHeight:configuration:streaming:)`` with the
    /// default limits (no `Configuration` is built).
    public static func decodeLocal<T>(
        _ url: URL, maxPixelWidth: Int, maxPixelHeight: Int, streaming body: (RGBARowSource) -> T?
    ) -> Result<LocalPicture<T>, ImagePipeline.Error> {
        decodeLocal(
            url, maxPixelWidth: maxPixelWidth, maxPixelHeight: maxPixelHeight,
            limits: (Configuration.defaultMaxResponseBytes, Configuration.defaultMaxPixels), streaming: body)
    }

    /// ``decodeLocal(_:maxPixelWidth:maxPixelHeight:streaming:)`` for the file at `filePath`
    /// (absolute, or relative to the working directory; errors name it as given), with the
    /// default limits. No `URL` is made: the first `URL.path` of a process cost a one-shot
    /// render of a small PNG 7 % of its instructions (Foundation's percent-decoding set up its
    /// `Set<UInt8>`, issue 14).
    public static func decodeLocal<T>(
        filePath: String, maxPixelWidth: Int, maxPixelHeight: Int, streaming body: (RGBARowSource) -> T?
    ) -> Result<LocalPicture<T>, ImagePipeline.Error> {
        decodeLocal(
            LocalData.readFile(path: filePath, limit: Configuration.defaultMaxResponseBytes),
            maxPixelWidth: maxPixelWidth, maxPixelHeight: maxPixelHeight, maxPixels: Configuration.defaultMaxPixels,
            streaming: body)
    }

    fileprivate static func decodeLocal<T>(
        _ url: URL, maxPixelWidth: Int, maxPixelHeight: Int, limits: (maxResponseBytes: Int, maxPixels: Int),
        streaming body: (RGBARowSource) -> T?
    ) -> Result<LocalPicture<T>, ImagePipeline.Error> {
        decodeLocal(
            readLocal(url, limit: limits.maxResponseBytes), maxPixelWidth: maxPixelWidth, maxPixelHeight: maxPixelHeight,
            maxPixels: limits.maxPixels, streaming: body)
    }

    fileprivate static func decodeLocal<T>(
        _ read: Result<Data, ImagePipeline.Error>, maxPixelWidth: Int, maxPixelHeight: Int, maxPixels: Int,
        streaming body: (RGBARowSource) -> T?
    ) -> Result<LocalPicture<T>, ImagePipeline.Error> {
        switch read {
        case .failure(let error):
            return .failure(error)
        case .success(let data):
            do throws(ImagePipeline.Error) {
                if ImageFormat.sniff(data) == .png {
                    let size = try Codecs.probe(data, format: .png)
                    if ImageDecoder.usesCodecs(.png, width: size.width, height: size.height),
                       let streamed = try Codecs.streamPNG(data, maxPixels: maxPixels, body)
                    {
                        return .success(.streamed(streamed.result, sourceWidth: streamed.width, sourceHeight: streamed.height))
                    }
                }
                return .success(
                    .decoded(
                        try ImageDecoder.thumbnail(
                            data, maxWidth: max(1, maxPixelWidth), maxHeight: max(1, maxPixelHeight),
                            maxPixels: maxPixels, shrink: false)))
            } catch {
                return .failure(error)
            }
        }
    }
}

extension ImagePipeline {
    /// The bytes of a `file:` or `data:` URL, at most `limit` bytes, with the errors of
    /// ``LocalData``; any other scheme is `.unsupportedURL`. Shared by both `decodeLocal`s.
    fileprivate static func readLocal(_ url: URL, limit: Int) -> Result<Data, ImagePipeline.Error> {
        switch url.scheme?.lowercased() {
        case "file": return LocalData.readFile(url, limit: limit)
        case "data": return LocalData.decodeDataURL(url, limit: limit)
        default: return .failure(.unsupportedURL(url.absoluteString))
        }
    }
}
