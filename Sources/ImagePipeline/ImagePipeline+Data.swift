import CVips
import Foundation

extension ImagePipeline {
    /// Fetches raw bytes (a gallery file) with the same loaders, limits and headers as images,
    /// without decoding: `fetchResponse` without the headers (so `offline` and the disk cache
    /// apply the same way). `completion` runs once on a background thread.
    /// - Returns: a handle that cancels the fetch.
    @discardableResult
    public func fetchData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        fetchResponse(for: url) { completion($0.map(\.data)) }
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
    ///
    /// With a disk cache, an http(s) gallery's 2xx body is stored too (online it is always
    /// fetched afresh, since a gallery changes), so `offline` can open it later from the cache.
    @discardableResult
    public func fetchResponse(
        for url: URL,
        completion: @escaping @Sendable (Result<(data: Data, headers: [String: String]), ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        let disk = DiskCache.isCacheable(url) ? diskCache : nil
        if configuration.offline && DiskCache.isCacheable(url) {
            let handle = CancellationFlag()
            diskQueue.async {
                guard let entry = disk?.entry(for: url) else { return completion(.failure(.notCached)) }
                completion(handle.isCancelled ? .failure(.cancelled) : .success((data: entry.data, headers: [:])))
            }
            return handle
        }
        return dataLoader.loadResponse(for: url, validators: nil) { [diskQueue] result in
            if let disk, case .success(let response) = result, !response.data.isEmpty {
                let metadata = DiskCacheMetadata(url: DiskCache.normalisedKey(url), headers: response.headers, now: Date())
                diskQueue.async { _ = disk.store(DiskCacheEntry(metadata: metadata, data: response.data), for: url) }
            }
            completion(result.map { (data: $0.data, headers: $0.headers) })
        }
    }
}
