import Foundation
import HalfBlock

extension ImagePipeline {
    /// Reads a local image (a file URL or a `data:` URL) and decodes it on the calling thread, as
    /// a pipeline would, without one: no queue, no thread, no cache. For one-shot commands
    /// (`vitrine render FILE`), where the pipeline's set-up (its operation queue, dispatch
    /// queues, locks and tables) was a measurable part of the whole run (issue 14).
    ///
    /// The same limits and checks as a pipeline load with `configuration`: at most
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
        _ url: URL, maxPixelWidth: Int, maxPixelHeight: Int, configuration: Configuration = Configuration(),
        shrink: Bool = true
    ) -> Result<DecodedImage, ImagePipeline.Error> {
        let read: Result<Data, ImagePipeline.Error>
        switch url.scheme?.lowercased() {
        case "file": read = LocalData.readFile(url, limit: configuration.maxResponseBytes)
        case "data": read = LocalData.decodeDataURL(url, limit: configuration.maxResponseBytes)
        default: return .failure(.unsupportedURL(url.absoluteString))
        }
        switch read {
        case .failure(let error):
            return .failure(error)
        case .success(let data):
            do throws(ImagePipeline.Error) {
                return .success(
                    try ImageDecoder.thumbnail(
                        data, maxWidth: max(1, maxPixelWidth), maxHeight: max(1, maxPixelHeight), maxPixels: configuration.maxPixels,
                        shrink: shrink))
            } catch {
                return .failure(error)
            }
        }
    }
}
