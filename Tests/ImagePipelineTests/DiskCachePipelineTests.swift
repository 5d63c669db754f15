import Foundation
import Locking
import TestSupport
import Testing

@testable import ImagePipeline

@Suite("Pipeline with a disk cache")
struct DiskCachePipelineTests {
    let orange = TestPNG.solid(width: 4, height: 4, [200, 100, 50, 255])
    let blue = TestPNG.solid(width: 4, height: 4, [0, 0, 250, 255])
    let url = URL(string: "http://127.0.0.1:9/photos/1.png")!
    let fresh = ["cache-control": "max-age=3600", "etag": "\"v1\""]

    func makePipeline(_ dir: URL) -> (ImagePipeline, ManualLoader) {
        let loader = ManualLoader()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.diskCacheDirectory = dir
        configuration.notificationCenter = NotificationCenter()
        return (ImagePipeline(configuration: configuration, dataLoader: loader.weakly), loader)
    }

    /// Starts `image(for:)` on a task and waits (up to 10 s) until the loader was asked `count` times.
    func start(_ pipeline: ImagePipeline, _ loader: ManualLoader, reload: Bool = false, asks count: Int) async
        -> Task<Result<DecodedImage, ImagePipeline.Error>, Never>
    {
        let request = ImageRequest(url: url, maxPixelWidth: 4, maxPixelHeight: 4, reload: reload)
        let task = Task { () -> Result<DecodedImage, ImagePipeline.Error> in
            do throws(ImagePipeline.Error) {
                return .success(try await pipeline.image(for: request))
            } catch { return .failure(error) }
        }
        #expect(await loader.waitForRequests(count))
        return task
    }

    /// The first pixel of a decoded result, or nil for a failure.
    func firstPixel(_ result: Result<DecodedImage, ImagePipeline.Error>) -> [UInt8]? {
        (try? result.get()).map { Array($0.bitmap.pixels.prefix(4)) }
    }

    /// Stores `data` for `url` as a previous run would have, `age` seconds ago.
    func seed(_ dir: URL, _ data: Data, headers: [String: String], age: Double) {
        let metadata = DiskCacheMetadata(
            url: DiskCache.normalisedKey(url), headers: headers, now: Date().addingTimeInterval(-age))
        DiskCache(directory: dir).store(DiskCacheEntry(metadata: metadata, data: data), for: url)
    }

    @Test("validated bytes are stored; a later pipeline answers from disk with zero fetches")
    func storeThenFreshHit() async throws {
        // Given a first run that downloads the image with max-age=3600
        let dir = try temporaryDirectory()
        let (first, loader) = makePipeline(dir)
        let download = await start(first, loader, asks: 1)
        #expect(loader.requests.first?.validators == nil)
        loader.respond(at: 0, with: LoadedResponse(data: orange, headers: fresh))
        #expect(firstPixel(await download.value) == [200, 100, 50, 255])
        #expect(fileNames(in: dir) == [DiskCache.fileName(for: url)])
        // When a second run (empty memory cache) loads the same URL
        let (second, quiet) = makePipeline(dir)
        let request = ImageRequest(url: url, maxPixelWidth: 4, maxPixelHeight: 4)
        let image = try await second.image(for: request)
        // Then it decodes the stored bytes without asking the loader
        #expect(Array(image.bitmap.pixels.prefix(4)) == [200, 100, 50, 255])
        #expect(quiet.requests.isEmpty)
        #expect(second.statistics.fetchesStarted == 0)
        #expect(second.statistics.diskCacheHits == 1)
    }

    @Test("a fresh entry with a flipped bit is deleted and fetched again")
    func flippedBitHeals() async throws {
        // Given a fresh entry whose body had one bit flipped on disk
        let dir = try temporaryDirectory()
        seed(dir, orange, headers: fresh, age: 10)
        let file = DiskCache(directory: dir).fileURL(for: url)
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 30] ^= 0x01
        try bytes.write(to: file)
        // When a pipeline loads it
        let (pipeline, loader) = makePipeline(dir)
        let load = await start(pipeline, loader, asks: 1)
        // Then it asks the server (a plain GET) and stores and shows the new bytes
        #expect(loader.requests.first?.validators == nil)
        loader.respond(at: 0, with: LoadedResponse(data: blue, headers: fresh))
        #expect(firstPixel(await load.value) == [0, 0, 250, 255])
        #expect(DiskCache(directory: dir).entry(for: url)?.data == blue)
    }

    @Test("a stored body that fails to decode is deleted and fetched once more, not twice")
    func undecodableEntryHeals() async throws {
        // Given a fresh entry, checksum intact, whose PNG is cut short after its header
        let dir = try temporaryDirectory()
        let broken = orange.prefix(orange.count - 20)
        seed(dir, Data(broken), headers: fresh, age: 10)
        #expect(DiskCache(directory: dir).entry(for: url) != nil)
        // When a pipeline loads it
        let (pipeline, loader) = makePipeline(dir)
        let load = await start(pipeline, loader, asks: 1)
        // Then the decode failure deleted the entry and one plain GET went out
        #expect(loader.requests.first?.validators == nil)
        #expect(DiskCache(directory: dir).entry(for: url) == nil)
        #expect(pipeline.statistics.diskCacheHeals == 1)
        loader.respond(at: 0, with: LoadedResponse(data: orange, headers: fresh))
        #expect(firstPixel(await load.value) == [200, 100, 50, 255])

        // And when the server's body is broken too, the row fails after that one request
        seed(dir, Data(broken), headers: fresh, age: 10)
        let (again, second) = makePipeline(dir)
        let failing = await start(again, second, asks: 1)
        second.respond(at: 0, with: LoadedResponse(data: Data(broken), headers: fresh))
        guard case .failure(.corrupt) = await failing.value else {
            Issue.record("expected a corrupt-image failure")
            return
        }
        #expect(second.requests.count == 1)
        #expect(again.statistics.diskCacheHeals == 1)
        // and the broken body is not kept either (its removal was queued before the failure
        // was delivered)
        #expect(diskWorkDone(again))
        #expect(DiskCache(directory: dir).entry(for: url) == nil)
    }

    @Test("an HTML page served with 200 and max-age is never stored, nor is a failure")
    func htmlNeverStored() async throws {
        let dir = try temporaryDirectory()
        let (pipeline, loader) = makePipeline(dir)
        let html = Data("<!DOCTYPE html><html><body>Login</body></html>".utf8)
        let load = await start(pipeline, loader, asks: 1)
        loader.respond(at: 0, with: LoadedResponse(data: html, headers: fresh))
        #expect(await load.value == .failure(.notAnImage("HTML page")))
        // A 404 (the loader's typed failure) leaves nothing either
        let again = await start(pipeline, loader, asks: 2)
        loader.pending.withLock { $0[1] }.respond?(.failure(.httpStatus(404)))
        #expect(await again.value == .failure(.httpStatus(404)))
        #expect(fileNames(in: dir).isEmpty)
    }

    @Test("Cache-Control: no-store keeps nothing on disk")
    func noStore() async throws {
        let dir = try temporaryDirectory()
        let (pipeline, loader) = makePipeline(dir)
        let load = await start(pipeline, loader, asks: 1)
        loader.respond(at: 0, with: LoadedResponse(data: orange, headers: ["cache-control": "no-store"]))
        #expect(firstPixel(await load.value) != nil)
        #expect(fileNames(in: dir).isEmpty)
    }

    @Test("reload skips the disk read, sends no validators, and stores the new bytes")
    func reloadBypassesRead() async throws {
        // Given a fresh orange entry
        let dir = try temporaryDirectory()
        seed(dir, orange, headers: fresh, age: 10)
        let (pipeline, loader) = makePipeline(dir)
        // When the row is reloaded
        let load = await start(pipeline, loader, reload: true, asks: 1)
        // Then a plain request goes out, and the new (blue) bytes are shown and stored
        #expect(loader.requests.first?.validators == nil)
        loader.respond(at: 0, with: LoadedResponse(data: blue, headers: ["etag": "\"v2\""]))
        #expect(firstPixel(await load.value) == [0, 0, 250, 255])
        let stored = DiskCache(directory: dir).entry(for: url)
        #expect(stored?.data == blue)
        #expect(stored?.metadata.etag == "\"v2\"")
        #expect(pipeline.statistics.diskCacheHits == 0)
    }

    @Test("a stale entry with an ETag is shown at once, then revalidated; a 304 restarts its time")
    func revalidation() async throws {
        // Given an orange entry stored two hours ago with max-age=3600
        let dir = try temporaryDirectory()
        seed(dir, orange, headers: fresh.merging(["last-modified": "Mon, 01 Jan 2024 00:00:00 GMT"]) { $1 }, age: 7200)
        let (pipeline, loader) = makePipeline(dir)
        // When it is loaded, the stored image comes at once, and a conditional request follows
        let load = await start(pipeline, loader, asks: 1)
        #expect(firstPixel(await load.value) == [200, 100, 50, 255])
        #expect(pipeline.statistics.diskCacheStaleHits == 1)
        #expect(
            loader.requests.first?.validators
                == CacheValidators(etag: "\"v1\"", lastModified: "Mon, 01 Jan 2024 00:00:00 GMT"))
        // And a 304 restarts the stored entry's time
        let before = Date().timeIntervalSince1970
        loader.respond(at: 0, with: LoadedResponse(data: Data(), notModified: true, headers: [:]))
        // (the answer is handled on the disk queue, where `respond` queued it)
        #expect(diskWorkDone(pipeline))
        #expect(pipeline.statistics.diskCacheRevalidations == 1)
        let stored = DiskCache(directory: dir).entry(for: url)
        #expect(stored?.data == orange)
        #expect((stored?.metadata.storedAt ?? 0) >= before)
        #expect(stored?.metadata.isFresh(now: Date()) == true)
    }

    @Test("stale while revalidate: a changed image replaces the stale one for notified rows, once")
    func staleReplaced() async throws {
        // Given an orange entry gone stale, and a row that asks for it by notification
        let dir = try temporaryDirectory()
        seed(dir, orange, headers: ["cache-control": "max-age=60", "etag": "\"v1\""], age: 120)
        let loader = ManualLoader()
        let recorder = NotificationRecorder()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.diskCacheDirectory = dir
        configuration.notificationCenter = recorder.center
        let pipeline = ImagePipeline(configuration: configuration, dataLoader: loader.weakly)
        let request = ImageRequest(url: url, maxPixelWidth: 4, maxPixelHeight: 4)
        guard case .started(let ticket) = pipeline.load(request, priority: 0) else {
            Issue.record("unexpected cache hit")
            return
        }
        // When the stale image arrives at once, flagged as revalidating
        #expect(await recorder.waitForNotes(1))
        #expect(recorder.notes.count == 1)
        #expect(recorder.notes.first?.revalidating == true)
        #expect(await loader.waitForRequests(1))
        #expect(loader.requests.count == 1)
        // And the server has a blue one
        loader.respond(at: 0, with: LoadedResponse(data: blue, headers: ["cache-control": "max-age=60", "etag": "\"v2\""]))
        // Then the same ticket is told again, with the blue image, as a replacement
        #expect(await recorder.waitForNotes(2))
        #expect(recorder.notes.count == 2)
        let second = recorder.notes.last
        #expect(second?.ticket == ticket && second?.replacement == true)
        #expect(second.flatMap { firstPixel($0.result) } == [0, 0, 250, 255])
        #expect(pipeline.cachedImage(for: request).map { Array($0.bitmap.pixels.prefix(4)) } == [0, 0, 250, 255])
        #expect(DiskCache(directory: dir).entry(for: url)?.data == blue)
        #expect(pipeline.statistics.staleImagesReplaced == 1)
    }

    @Test("a stale entry without validators is fetched again, unconditionally")
    func staleWithoutValidators() async throws {
        let dir = try temporaryDirectory()
        seed(dir, orange, headers: ["cache-control": "max-age=60"], age: 120)
        let (pipeline, loader) = makePipeline(dir)
        let load = await start(pipeline, loader, asks: 1)
        #expect(loader.requests.first?.validators == nil)
        loader.respond(at: 0, with: LoadedResponse(data: blue, headers: fresh))
        #expect(firstPixel(await load.value) == [0, 0, 250, 255])
        #expect(DiskCache(directory: dir).entry(for: url)?.data == blue)
    }

    @Test("without a disk cache folder nothing is read or written")
    func disabled() async throws {
        let loader = ManualLoader()
        let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(memoryCacheBytes: 1 << 20), dataLoader: loader.weakly)
        #expect(pipeline.diskCache == nil)
        let load = await start(pipeline, loader, asks: 1)
        loader.complete("1.png", with: .success(orange))
        #expect(firstPixel(await load.value) != nil)
        #expect(pipeline.statistics.fetchesStarted == 1)
    }
}

@Suite("Offline and reload modes")
struct OfflineModeTests {
    let png = TestPNG.solid(width: 4, height: 4, [5, 6, 7, 255])

    func makePipeline(directory: URL, offline: Bool = false, readsDiskCache: Bool = true) -> (ImagePipeline, ManualLoader) {
        let loader = ManualLoader()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.diskCacheDirectory = directory
        configuration.offline = offline
        configuration.readsDiskCache = readsDiskCache
        configuration.notificationCenter = NotificationCenter()
        return (ImagePipeline(configuration: configuration, dataLoader: loader.weakly), loader)
    }

    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-offline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("offline: stored images load with no request, missing ones fail as not cached")
    func offline() async throws {
        let dir = try temporaryDirectory()
        let stored = URL(string: "http://127.0.0.1:9/stored.png")!
        // Given an entry stored long ago (stale: offline still uses it)
        let metadata = DiskCacheMetadata(url: DiskCache.normalisedKey(stored), headers: [:], now: Date(timeIntervalSince1970: 0))
        #expect(DiskCache(directory: dir).store(DiskCacheEntry(metadata: metadata, data: png), for: stored))
        let (pipeline, loader) = makePipeline(directory: dir, offline: true)
        // When both rows load offline
        let image = try await pipeline.image(for: ImageRequest(url: stored, maxPixelWidth: 4, maxPixelHeight: 4))
        #expect(image.bitmap.width == 4)
        do {
            _ = try await pipeline.image(
                for: ImageRequest(url: URL(string: "http://127.0.0.1:9/missing.png")!, maxPixelWidth: 4, maxPixelHeight: 4))
            Issue.record("a missing image loaded offline")
        } catch {
            #expect(error == .notCached)
            #expect(error.shortReason == "not cached (offline)")
        }
        // Then nothing was asked of the network
        #expect(loader.requests.isEmpty)
    }

    @Test("reload: a fresh stored entry is not read, the image is downloaded again")
    func reloadSkipsReads() async throws {
        let dir = try temporaryDirectory()
        let url = URL(string: "http://127.0.0.1:9/fresh.png")!
        let metadata = DiskCacheMetadata(url: DiskCache.normalisedKey(url), headers: ["cache-control": "max-age=3600"], now: Date())
        #expect(DiskCache(directory: dir).store(DiskCacheEntry(metadata: metadata, data: png), for: url))
        let (pipeline, loader) = makePipeline(directory: dir, readsDiskCache: false)
        let task = Task { try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 4, maxPixelHeight: 4)) }
        #expect(await loader.waitForRequests(1))
        #expect(loader.requests[0].validators == nil)
        loader.requests[0].completion(.success(png))
        #expect(try await task.value.bitmap.width == 4)
    }
}
