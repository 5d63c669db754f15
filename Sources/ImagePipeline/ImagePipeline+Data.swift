import CVips
import Foundation

extension ImagePipeline {
    /// Fetches raw bytes (a gallery file) with the same loaders, limits and headers as images,
    /// without decoding. `completion` runs once on a background thread.
    /// - Returns: a handle that cancels the fetch.
    @discardableResult
    public func fetchData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        dataLoader.loadData(for: url, completion: completion)
    }

    /// Sends libvips and GLib warnings to the file descriptor `fd` (appended lines) instead of
    /// dropping them; they never reach the terminal either way.
    public static func sendDecoderWarnings(toFileDescriptor fd: Int32) {
        Vips.setLogFileDescriptor(fd)
    }
}

extension ImagePipeline {
    /// Like `fetchData`, with the response headers too (names lower-cased; empty for files and
    /// `data:` URLs), for galleries that page by a `Link` header.
    @discardableResult
    public func fetchResponse(
        for url: URL,
        completion: @escaping @Sendable (Result<(data: Data, headers: [String: String]), ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        dataLoader.loadResponse(for: url, validators: nil) { result in
            completion(result.map { (data: $0.data, headers: $0.headers) })
        }
    }
}
