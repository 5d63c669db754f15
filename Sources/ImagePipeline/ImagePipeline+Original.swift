import Foundation

extension ImagePipeline {
    /// The original bytes of the image at `url`, validated, for saving and opening (`s`, `o`):
    /// a disk-cache entry when there is one (fresh or stale: the bytes the thumbnail was made
    /// from), else a download through the same loader, limits and headers as thumbnails (stored
    /// in the disk cache as a thumbnail's would be); a file URL is read from the disk.
    ///
    /// Validation is the check a thumbnail passes: a known image signature, a readable header
    /// within `Configuration.maxPixels`, and a complete decode (at 64x64 pixels, shrunk on
    /// load, off the calling thread). `completion` runs once on a background thread.
    /// - Returns: a handle that cancels the fetch (the completion then gets `.cancelled`).
    @discardableResult
    public func originalImageData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        let handle = StagedCancellable()
        let maxPixels = configuration.maxPixels
        let inner = fetch(ImageRequest(url: url, maxPixelWidth: 64, maxPixelHeight: 64)) { result, _ in
            guard case .success(let data) = result else { return completion(result) }
            DispatchQueue.global(qos: .utility).async {
                if handle.isCancelled { return completion(.failure(.cancelled)) }
                do throws(ImagePipeline.Error) {
                    _ = try ImageDecoder.thumbnail(data, maxWidth: 64, maxHeight: 64, maxPixels: maxPixels)
                    completion(.success(data))
                } catch {
                    completion(.failure(error))
                }
            }
        }
        handle.set(inner)
        return handle
    }
}
