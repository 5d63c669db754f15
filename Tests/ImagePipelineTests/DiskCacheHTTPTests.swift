import Foundation
import Locking
import TestSupport
import Testing

@testable import ImagePipeline

@Suite("Disk cache over HTTP (127.0.0.1)", .timeLimit(.minutes(1)))
struct DiskCacheHTTPTests {
    func pipeline(_ dir: URL, loader: (any DataLoading)? = nil) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.dataLoader = loader
        configuration.diskCacheDirectory = dir
        configuration.notificationCenter = NotificationCenter()
        configuration.idleTimeout = 10
        return ImagePipeline(configuration: configuration)
    }

    @Test("headers are kept; a fresh entry sends nothing; a stale one is shown, then gets a 304 and is kept")
    func roundTrip() async throws {
        // Given a server with one PNG (it sends ETag, Last-Modified, max-age=3600)
        let root = try temporaryDirectory()
        let png = TestPNG.solid(width: 4, height: 4, [5, 150, 250, 255])
        try png.write(to: root.appendingPathComponent("a.png"))
        let server = try LoopbackServer(root: root)
        defer { server.stop() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/a.png")!
        let request = ImageRequest(url: url, maxPixelWidth: 4, maxPixelHeight: 4)
        let dir = try temporaryDirectory()

        // When a first run downloads it, the bytes and validators are stored
        let first = pipeline(dir)
        _ = try await first.image(for: request)
        #expect(first.statistics.fetchesStarted == 1)
        let cache = DiskCache(directory: dir)
        let stored = try #require(cache.entry(for: url))
        #expect(stored.data == png)
        #expect(stored.metadata.etag?.hasPrefix("\"") == true)
        #expect(stored.metadata.lastModified != nil)
        #expect(stored.metadata.maxAge == 3600)

        // When a second run loads it, the fresh entry answers with no request
        let second = pipeline(dir)
        _ = try await second.image(for: request)
        #expect(second.statistics.fetchesStarted == 0)
        #expect(second.statistics.diskCacheHits == 1)
        // The server agrees: still the first run's one request, nothing since
        #expect(server.requests(containing: "/a.png") == ["GET /a.png"])

        // When the entry has aged past max-age, it is shown at once, and a conditional request
        // in the background gets a 304
        var aged = stored
        aged.metadata.storedAt -= 7200
        cache.store(aged, for: url)
        let loader = AnsweredLoader(HTTPDataLoader(maxResponseBytes: 1 << 20, idleTimeout: 10, totalTimeout: 60))
        defer { loader.http.invalidate() }
        let third = pipeline(dir, loader: loader)
        let image = try await third.image(for: request)
        #expect(Array(image.bitmap.pixels.prefix(4)) == [5, 150, 250, 255])
        #expect(third.statistics.diskCacheStaleHits == 1)
        // (the 304 is handled on the disk queue, where its completion queued it)
        #expect(await loader.waitForAnswers(1))
        #expect(diskWorkDone(third))
        #expect(third.statistics.diskCacheRevalidations == 1)
        #expect(third.statistics.fetchesStarted == 1)
        #expect(server.requests(containing: "/a.png").count == 2)
        #expect(cache.entry(for: url)?.metadata.isFresh(now: Date()) == true)
    }

    @Test("bytes that fail the header checks are not stored: a pixel bomb, garbage after a PNG signature")
    func refusedBytesAreNotStored() async throws {
        // Given a server with a 20,000 x 20,000 PNG of 50 KB and a "PNG" that is only a signature
        let root = try temporaryDirectory()
        var garbage = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        garbage.append(Data(repeating: 0x41, count: 4096))
        try garbage.write(to: root.appendingPathComponent("garbage.png"))
        let server = try LoopbackServer(root: root)
        defer { server.stop() }
        let dir = try temporaryDirectory()
        let pipeline = pipeline(dir)
        let cache = DiskCache(directory: dir)

        // When both are loaded, both rows fail
        let bomb = URL(string: "http://127.0.0.1:\(server.port)/bomb.png")!
        let junk = URL(string: "http://127.0.0.1:\(server.port)/garbage.png")!
        for url in [bomb, junk] {
            let result: Result<DecodedImage, ImagePipeline.Error>
            do throws(ImagePipeline.Error) {
                result = .success(try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 8, maxPixelHeight: 8)))
            } catch {
                result = .failure(error)
            }
            guard case .failure = result else {
                Issue.record("\(url.lastPathComponent) loaded")
                continue
            }
        }
        // Then nothing was stored for either: a later run asks again instead of failing from disk
        #expect(cache.entry(for: bomb) == nil)
        #expect(cache.entry(for: junk) == nil)
        #expect(cache.summary().entries == 0)
    }
}

/// The HTTP loader, counting the answers it has handed to their completions (each completion has
/// returned by then), so a test can wait for a background request's answer.
final class AnsweredLoader: DataLoading {
    let http: HTTPDataLoader
    private let answers = Mutex(0)
    private let changes = Changes()

    init(_ http: HTTPDataLoader) { self.http = http }

    func loadData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        // Not counted: with a disk cache, as here, loads and revalidations go through loadResponse
        http.loadData(for: url, completion: completion)
    }

    func loadResponse(
        for url: URL, validators: CacheValidators?,
        completion: @escaping @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        http.loadResponse(for: url, validators: validators) { [answers, changes] result in
            completion(result)
            answers.withLock { $0 += 1 }
            changes.notify()
        }
    }

    /// True once `count` answers were handed over (false after 10 s).
    func waitForAnswers(_ count: Int) async -> Bool {
        let answers = self.answers
        return await changes.wait { answers.withLock { $0 } >= count }
    }
}
