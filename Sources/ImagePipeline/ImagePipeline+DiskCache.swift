import Foundation
import Locking

extension ImagePipeline {
    /// Where a fetched body came from: a body from the disk cache that fails to decode has its
    /// entry deleted and is fetched once more from the network.
    enum BodySource: Sendable {
        case network
        case diskCache
    }

    /// Gets the bytes of `request` for a load that holds a fetch slot: from the disk cache when
    /// it has a fresh entry, else from the data loader (a conditional request when a stale entry
    /// has validators). `completion` runs once, on a background thread.
    ///
    /// - A fresh entry (`Freshness`: max-age, else 10% of the time since Last-Modified, at most
    ///   a week) answers with no request.
    /// - A stale entry with a validator (and no `no-cache`) answers at once too; `finish` then
    ///   revalidates it in the background (`ImagePipeline+Revalidation.swift`).
    /// - A 304 to a conditional request answers with the stored bytes and restarts their time.
    /// - A 2xx body with image magic bytes and a readable header within the pixel cap is stored
    ///   (unless `Cache-Control: no-store`) before `completion` runs; anything else is passed
    ///   on and never stored.
    /// - `request.reload` skips the read (no entry, no validators) but stores the new bytes.
    ///
    /// Without a disk cache, or for file and `data:` URLs, this is `dataLoader.loadData`.
    /// `completion` is told where the bytes came from (`.diskCache` for a fresh or offline entry
    /// and for a 304's stored bytes).
    func fetch(
        _ request: ImageRequest,
        completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>, BodySource) -> Void
    ) -> any Cancellable {
        let url = request.url
        if configuration.offline && DiskCache.isCacheable(url) && diskCache == nil {
            completion(.failure(.notCached), .network)
            return CancellationFlag()
        }
        guard let disk = diskCache, DiskCache.isCacheable(url) else {
            state.withLock { $0.statistics.fetchesStarted += 1 }
            return dataLoader.loadData(for: url) { completion($0, .network) }
        }
        let handle = StagedCancellable()
        let skipRead = request.reload || !configuration.readsDiskCache
        let offline = configuration.offline
        diskQueue.async { [self] in
            let cached = skipRead && !offline ? nil : disk.entry(for: url)
            if handle.isCancelled { return completion(.failure(.cancelled), .network) }
            if offline {
                guard let cached else { return completion(.failure(.notCached), .network) }
                state.withLock { $0.statistics.diskCacheHits += 1 }
                return completion(.success(cached.data), .diskCache)
            }
            if let cached, Freshness.isFresh(cached.metadata, now: Date()) {
                state.withLock { $0.statistics.diskCacheHits += 1 }
                return completion(.success(cached.data), .diskCache)
            }
            if let cached, Freshness.mayServeStale(cached.metadata) {
                // Stale but revalidatable: shown now, revalidated once delivered (`finish`).
                state.withLock { state in
                    state.statistics.diskCacheStaleHits += 1
                    state.staleServed[request.key] = cached
                }
                return completion(.success(cached.data), .diskCache)
            }
            state.withLock { $0.statistics.fetchesStarted += 1 }
            let inner = dataLoader.loadResponse(for: url, validators: cached?.metadata.validators) { [self] result in
                // On the disk queue: a write must not hold up the completion thread.
                diskQueue.async { [self] in
                    let body = received(result, for: url, cached: cached, disk: disk)
                    let notModified = if case .success(let response) = result { response.notModified } else { false }
                    completion(body, notModified ? .diskCache : .network)
                }
            }
            handle.set(inner)
        }
        return handle
    }

    /// Stores what is worth keeping from a response and picks the bytes to decode.
    func received(
        _ result: Result<LoadedResponse, ImagePipeline.Error>, for url: URL, cached: DiskCacheEntry?,
        disk: any DiskCaching
    ) -> Result<Data, ImagePipeline.Error> {
        switch result {
        case .failure(let error):
            return .failure(error)
        case .success(let response) where response.notModified:
            // A 304 only comes back to a conditional request, which needs a stored entry.
            guard let cached else { return .failure(.httpStatus(304)) }
            let metadata = cached.metadata.refreshed(headers: response.headers, now: Date())
            disk.store(DiskCacheEntry(metadata: metadata, data: cached.data), for: url)
            state.withLock { $0.statistics.diskCacheRevalidations += 1 }
            return .success(cached.data)
        case .success(let response):
            let control = CacheControl(response.headers["cache-control"])
            if !control.noStore, ImageFormat.sniff(response.data) != nil, headerPasses(response.data) {
                let metadata = DiskCacheMetadata(
                    url: DiskCache.normalisedKey(url), headers: response.headers, now: Date())
                disk.store(DiskCacheEntry(metadata: metadata, data: response.data), for: url)
            }
            return .success(response.data)
        }
    }

    /// Whether `data`'s image header can be read and is within `Configuration.maxPixels`: what
    /// fails here is never stored (a 20,000 x 20,000 PNG bomb of 50 KB, or garbage after an
    /// image signature), so the disk cache holds only bytes that passed every check made
    /// before decoding.
    private func headerPasses(_ data: Data) -> Bool {
        guard let size = try? ImageDecoder.probe(data) else { return false }
        return configuration.maxPixels <= 0 || size.width * size.height <= configuration.maxPixels
    }
}

/// A cancellable for work in stages (a disk read, then maybe a download): `cancel` reaches the
/// stage running now, and a stage attached after `cancel` is cancelled as it is attached.
final class StagedCancellable: Cancellable {
    private struct Stage {
        var cancelled = false
        var inner: (any Cancellable)?
    }
    private let stage = Mutex(Stage())

    var isCancelled: Bool { stage.withLock { $0.cancelled } }

    func cancel() {
        let inner = stage.withLock { stage -> (any Cancellable)? in
            stage.cancelled = true
            return stage.inner
        }
        inner?.cancel()
    }

    /// Attaches the next stage's handle.
    func set(_ inner: any Cancellable) {
        let cancelled = stage.withLock { stage -> Bool in
            stage.inner = inner
            return stage.cancelled
        }
        if cancelled { inner.cancel() }
    }
}
