import Foundation

extension ImagePipeline {
    /// Revalidates a stale disk-cache entry that a load was just answered with (stale while
    /// revalidate): a conditional GET in the background, holding no fetch slot.
    ///
    /// - A 304 restarts the entry's time (counted in `diskCacheRevalidations`).
    /// - A 2xx with the same bytes only refreshes the entry.
    /// - A 2xx with other bytes that pass the same checks as any download is stored, decoded
    ///   for `request`'s box, put in the memory cache, and posted again as `didFinishLoading`
    ///   to each of `tickets` (notification subscribers; callbacks are told once only) with
    ///   `NotificationKey.replacement`. Failures keep the stale image.
    func revalidate(_ request: ImageRequest, stale: DiskCacheEntry, tickets: [Int]) {
        guard let disk = diskCache, !configuration.offline else { return }
        let url = request.url
        state.withLock { $0.statistics.fetchesStarted += 1 }
        _ = dataLoader.loadResponse(for: url, validators: stale.metadata.validators) { [self] result in
            diskQueue.async { [self] in
                let changed: Data? =
                    switch result {
                    case .success(let response) where !response.notModified && response.data != stale.data:
                        response.data
                    default: nil
                    }
                guard case .success(let data) = received(result, for: url, cached: stale, disk: disk),
                    let changed, data == changed, ImageFormat.sniff(changed) != nil
                else { return }
                decodeQueue.addOperation { [self] in
                    guard
                        let image = try? ImageDecoder.decode(changed, for: request, configuration: configuration)
                    else { return }
                    state.withLock { state in
                        state.cache.insert(image, for: request.key, cost: image.byteCount)
                        state.statistics.staleImagesReplaced += 1
                    }
                    let result = Result<DecodedImage, ImagePipeline.Error>.success(image)
                    for id in tickets {
                        configuration.notificationCenter.post(
                            name: Self.didFinishLoading, object: self,
                            userInfo: [
                                NotificationKey.ticket: Ticket(id: id), NotificationKey.result: result,
                                NotificationKey.replacement: true,
                            ])
                    }
                }
            }
        }
    }
}
