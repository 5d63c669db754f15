import Foundation
import Testing

@testable import ImagePipeline

/// `Tests/Fixtures/galleryserver.py` on 127.0.0.1 with an OS-picked port, ended after the test
/// (and by itself after `maxSeconds`).
final class GalleryServer {
    let process = Process()
    let port: Int

    init(root: URL, maxSeconds: Int = 60) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/galleryserver.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", script.path, "--port", "0", "--root", root.path, "--max-seconds", "\(maxSeconds)",
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // The first line is "PORT <n>"; EOF (a server that died) ends the read too.
        var text = ""
        while !text.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "), let port = Int(line.dropFirst(5))
        else {
            process.terminate()
            throw ImagePipeline.Error.network("galleryserver did not start: \(text)")
        }
        self.port = port
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

@Suite("Disk cache over HTTP (127.0.0.1)", .timeLimit(.minutes(1)))
struct DiskCacheHTTPTests {
    func pipeline(_ dir: URL) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.diskCacheDirectory = dir
        configuration.notificationCenter = NotificationCenter()
        configuration.idleTimeout = 10
        return ImagePipeline(configuration: configuration)
    }

    @Test("headers are kept; a fresh entry sends nothing; a stale one gets a 304 and is reused")
    func roundTrip() async throws {
        // Given a server with one PNG (it sends ETag, Last-Modified, max-age=3600)
        let root = try temporaryDirectory()
        let png = TestPNG.solid(width: 4, height: 4, [5, 150, 250, 255])
        try png.write(to: root.appendingPathComponent("a.png"))
        let server = try GalleryServer(root: root)
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

        // When the entry has aged past max-age, a conditional request gets a 304
        var aged = stored
        aged.metadata.storedAt -= 7200
        cache.store(aged, for: url)
        let third = pipeline(dir)
        let image = try await third.image(for: request)
        #expect(Array(image.bitmap.pixels.prefix(4)) == [5, 150, 250, 255])
        #expect(third.statistics.fetchesStarted == 1)
        #expect(third.statistics.diskCacheRevalidations == 1)
        #expect(cache.entry(for: url)?.metadata.isFresh(now: Date()) == true)
        withExtendedLifetime(server) {}
    }
}
