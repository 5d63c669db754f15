import Foundation
import Locking
import TestSupport
import Testing

@testable import ImagePipeline

/// The real `ImagePipeline` (libcurl through `HTTPClient`, libvips) against `Tests/Fixtures/galleryserver.py` on
/// 127.0.0.1: each test is a fault a naive loader gets wrong. Every test starts its own server
/// (its own request log and counters) and stops it at the end; the suite runs serialized so the
/// timing and memory checks do not compete with each other.
@Suite("Fault server: the real pipeline on 127.0.0.1", .serialized, .timeLimit(.minutes(1)))
struct FaultServerTests {
    /// A 16x16 PNG with a gradient (so a grey fill would not pass for it); 1 KB, stored deflate.
    /// (Made per use: LeakSanitizer cannot see that a static `Data` is reachable.)
    static var png: Data { TestPNG.rgba(width: 16, height: 16) { x, y in [UInt8(x * 16), UInt8(y * 16), 200, 255] } }

    /// A server whose root holds `a.png` (the PNG above) and `photo.jpg` (a small JPEG fixture).
    func startServer(logTimes: Bool = false) throws -> LoopbackServer {
        let root = try temporaryDirectory()
        try Self.png.write(to: root.appendingPathComponent("a.png"))
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/images")
        let jpeg = try Data(contentsOf: fixtures.appendingPathComponent("orientation-1.jpg"))
        try jpeg.write(to: root.appendingPathComponent("photo.jpg"))
        return try LoopbackServer(root: root, logTimes: logTimes, maxSeconds: 60)
    }

    /// A pipeline with short, test-sized timeouts and backoff and a private notification center.
    func makePipeline(_ adjust: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 8 << 20)
        configuration.notificationCenter = NotificationCenter()
        configuration.idleTimeout = 5
        configuration.totalTimeout = 20
        configuration.retryBaseDelay = 0.1
        adjust(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    func request(_ url: URL, size: Int = 16) -> ImageRequest {
        ImageRequest(url: url, maxPixelWidth: size, maxPixelHeight: size)
    }

    /// The async API's answer as a `Result`.
    func outcome(_ pipeline: ImagePipeline, _ url: URL) async -> Result<DecodedImage, ImagePipeline.Error> {
        do throws(ImagePipeline.Error) {
            return .success(try await pipeline.image(for: request(url)))
        } catch {
            return .failure(error)
        }
    }

    /// True when `result` is our 16x16 gradient (its first pixel is exact: PNG is lossless).
    func isTheImage(_ result: Result<DecodedImage, ImagePipeline.Error>) -> Bool {
        guard case .success(let image) = result else { return false }
        return image.bitmap.width == 16 && image.bitmap.height == 16
            && Array(image.bitmap.pixels.prefix(4)) == [0, 0, 200, 255]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    // MARK: - Slow, failing and bad responses

    @Test("a slow image: the row stays loading for the server's delay, then the image arrives")
    func slowImage() throws {
        let server = try startServer()
        defer { server.stop() }
        let recorder = ResultRecorder()
        let pipeline = makePipeline { $0.notificationCenter = recorder.center }
        let started = ContinuousClock.now

        // When a row asks for an image the server holds for 1 s
        guard case .started(let ticket) = pipeline.load(request(server.url("slow/1/a.png")), priority: 0) else {
            Issue.record("a cold pipeline answered from its cache")
            return
        }

        // Then while the server holds it there is no answer, and the load is running (the spinner)
        #expect(server.waitForRequests(containing: "/slow/", count: 1) == 1)
        #expect(recorder.results.isEmpty)
        #expect(pipeline.statistics.running == 1)

        // And then the image arrives for that ticket, no sooner than the delay (so no answer
        // came before it)
        let results = recorder.wait(for: 1, seconds: 5)
        let elapsed = Self.seconds(ContinuousClock.now - started)
        #expect(results.count == 1)
        #expect(results.first?.ticket == ticket)
        #expect(results.first.map { isTheImage($0.result) } == true)
        #expect(elapsed >= 0.95)
        #expect(pipeline.statistics.running == 0)
    }

    @Test("404 fails at once as HTTP 404 (its PNG body is not shown), with exactly one request")
    func notFound() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()

        let result = await outcome(pipeline, server.url("status/404/missing.png"))

        #expect(result == .failure(.httpStatus(404)))
        // And no retry is coming: the failure was delivered, so the pipeline decided against one
        // (a retry keeps its load queued and delivers nothing); the load is gone, none counted
        #expect(pipeline.statistics.retries == 0)
        #expect(pipeline.statistics.queued == 0 && pipeline.statistics.running == 0)
        #expect(server.requests(containing: "/status/404/").count == 1)
    }

    @Test(
        "a 200 HTML page, even labelled image/jpeg, is 'not an image' and nothing reaches the disk cache",
        arguments: ["html/page.jpg", "html-as-jpeg/page.jpg"])
    func htmlIsNotAnImage(path: String) async throws {
        let server = try startServer()
        defer { server.stop() }
        let cacheDirectory = try temporaryDirectory()
        let pipeline = makePipeline { $0.diskCacheDirectory = cacheDirectory }
        let url = server.url(path)

        let result = await outcome(pipeline, url)

        #expect(result == .failure(.notAnImage("HTML page")))
        #expect(server.requests(containing: path).count == 1)
        #expect(DiskCache(directory: cacheDirectory).entry(for: url) == nil)
        // No entry and no temporary file either (only the running totals and their lock)
        let left = fileNames(in: cacheDirectory)
        #expect(left.isEmpty, "disk cache holds \(left)")
    }

    @Test("a truncated body is a corrupt image, not a grey-filled one", arguments: ["a.png", "photo.jpg"])
    func truncatedBody(file: String) async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()

        let result = await outcome(pipeline, server.url("truncated/\(file)"))

        guard case .failure(.corrupt) = result else {
            Issue.record("expected .corrupt, got \(result)")
            return
        }
        // The whole file, served normally, does decode: it is the cut that fails
        #expect(await outcome(pipeline, server.url(file)).isSuccess)
    }

    @Test("a 20,000 x 20,000 PNG bomb is refused from its header: no 400 MB decode, no memory growth")
    func decompressionBomb() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()
        let before = residentBytes()

        let result = await outcome(pipeline, server.url("bomb.png"))

        let grown = residentBytes() - before
        #expect(result == .failure(.tooManyPixels(width: 20_000, height: 20_000, limit: 100_000_000)))
        // A decode at 8 bits would need 400 MB; refusing from the header needs the ~50 KB file
        // (the memory, not a clock, is what tells a refused header from a decode)
        #expect(grown < 64 << 20, "resident memory grew by \(grown >> 20) MB")
    }

    @Test("a body over the response cap fails as too large and the transfer is cut, not read to the end")
    func bodyOverTheCap() async throws {
        // (a server that logs "CLOSED PATH T" when the client hangs up mid-body)
        let server = try startServer(logTimes: true)
        defer { server.stop() }
        let pipeline = makePipeline { $0.maxResponseBytes = 1 << 20 }
        let before = residentBytes()

        // 8 GiB: read to the end it would take all the memory there is
        let result = await outcome(pipeline, server.url("big/8589934592"))

        let grown = residentBytes() - before
        #expect(result == .failure(.responseTooLarge(limit: 1 << 20)))
        // Cut, not read to the end: the server's write failed on a closed connection (it logs
        // CLOSED only then, never once a body is all sent); and what the client held stayed near
        // the 1 MiB cap, far from the body
        #expect(server.waitForLine(containing: "CLOSED /big/8589934592", seconds: 10) != nil, "the transfer was not cut")
        #expect(grown < 64 << 20, "resident memory grew by \(grown >> 20) MB")
        #expect(server.requests(containing: "/big/").count == 1)
    }

    @Test("a gzip body that inflates past the cap fails as too large")
    func gzipBodyOverTheCap() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline { $0.maxResponseBytes = 1 << 20 }

        // 64 MiB of zeros, about 64 KB on the wire (Content-Encoding: gzip, which libcurl
        // inflates before the write callback): the cap counts the inflated bytes, not the announced length
        let result = await outcome(pipeline, server.url("gzip-bomb/64"))

        #expect(result == .failure(.responseTooLarge(limit: 1 << 20)))
    }

    @Test("a redirect loop ends as a network error after a bounded number of requests")
    func redirectLoop() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()

        let result = await outcome(pipeline, server.url("redirect-loop/0"))

        guard case .failure(.network) = result else {
            Issue.record("expected a network error, got \(result)")
            return
        }
        let hops = server.requests(containing: "/redirect-loop/").count
        // (the count of hops, not a clock, is what bounds the loop)
        #expect(hops >= 2 && hops <= 21, "\(hops) requests")
        // Not retried: a loop will not fix itself (delivered, so no retry was decided; see notFound)
        #expect(pipeline.statistics.retries == 0)
        #expect(pipeline.statistics.queued == 0 && pipeline.statistics.running == 0)
    }

    @Test("a redirect to a file: URL is refused and named, not followed or turned into an HTTP 404")
    func redirectToFile() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()

        let result = await outcome(pipeline, server.url("redirect-file/etc/passwd"))

        #expect(result == .failure(.unsupportedURL("redirect to file:///etc/passwd")))
        // Nothing else was asked of the server (Foundation would resolve the path against it)
        #expect(server.requests(containing: "/etc/passwd").count == 1)
    }

    // MARK: - Retries

    @Test("503 twice, then 200: the image arrives after exactly three requests")
    func serviceUnavailableTwice() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()
        let key = "k\(UInt32.random(in: 0...UInt32.max))"

        let result = await outcome(pipeline, server.url("flaky/2/\(key)/a.png"))

        #expect(isTheImage(result), "got \(result)")
        #expect(server.requests(containing: "/flaky/2/\(key)/").count == 3)
        #expect(pipeline.statistics.retries == 2)
    }

    @Test("429 with Retry-After: 1 is honoured: the second request comes at least 1 s after the first")
    func retryAfter() async throws {
        let server = try startServer()
        defer { server.stop() }
        // A base backoff far shorter than Retry-After, so only the header can explain the wait
        let pipeline = makePipeline { $0.retryBaseDelay = 0.05 }
        let key = "k\(UInt32.random(in: 0...UInt32.max))"

        let result = await outcome(pipeline, server.url("retry-after/1/\(key)/a.png"))

        #expect(isTheImage(result), "got \(result)")
        let fragment = "/retry-after/1/\(key)/"
        server.waitForRequests(containing: fragment, count: 2)
        let times = server.arrivals(containing: fragment)
        #expect(times.count == 2)
        if times.count == 2 {
            let gap = Self.seconds(times[1] - times[0])
            // Not before the header's second; the upper bound is only "seconds, not minutes" (a
            // Retry-After read in the wrong unit), generous for a loaded machine
            #expect(gap >= 0.98 && gap < 10, "second request \(gap) s after the first")
        }
    }

    // MARK: - Timeouts

    @Test("a response that never finishes fails as timed out, not before the idle timeout, not at the server's pace")
    func hangingResponse() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline {
            $0.idleTimeout = 1
            $0.maxRetries = 0
        }
        let started = ContinuousClock.now

        let result = await outcome(pipeline, server.url("hang/forever.png"))

        let elapsed = Self.seconds(ContinuousClock.now - started)
        #expect(result == .failure(.timedOut))
        // The server holds forever (until it exits at 60 s) and the default idle timeout is
        // 15 s: ten times the 1 s timeout is generous for a loaded machine and still proves the
        // configured timeout ended the wait
        #expect(elapsed >= 0.9 && elapsed < 10, "timed out after \(elapsed) s")
        #expect(server.requests(containing: "/hang/").count == 1)
    }

    @Test("interim 1xx answers (103 Early Hints, 102 Processing) are skipped for the final 200")
    func interimAnswers() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()
        #expect(isTheImage(await outcome(pipeline, server.url("early-hints/1/a.png"))))
        #expect(isTheImage(await outcome(pipeline, server.url("early-hints/50/a.png?many"))))
    }

    @Test("a body that trickles past the total timeout fails as too slow, and is not retried")
    func tricklingResponse() async throws {
        let server = try startServer()
        defer { server.stop() }
        // Retries allowed: a timeout of the idle kind would be tried again, this one must not be
        let pipeline = makePipeline {
            $0.idleTimeout = 1
            $0.totalTimeout = 1.5
            $0.maxRetries = 2
        }
        let started = ContinuousClock.now

        // One byte every 0.1 s for 30 s: never idle, never done
        let result = await outcome(pipeline, server.url("trickle/30"))

        let elapsed = Self.seconds(ContinuousClock.now - started)
        #expect(result == .failure(.tooSlow(seconds: 1.5)))
        // Not before the total timeout; ten times it is generous, and short of the trickle's 30 s
        // and of the 20 s total of makePipeline, so only the 1.5 s timeout can have ended it
        #expect(elapsed >= 1.4 && elapsed < 15, "failed after \(elapsed) s")
        // Not retried (delivered, so no retry was decided; see notFound)
        #expect(pipeline.statistics.retries == 0)
        #expect(pipeline.statistics.queued == 0 && pipeline.statistics.running == 0)
        #expect(server.requests(containing: "/trickle/").count == 1)
    }

    @Test("a sub-second idle timeout is kept as it is, not rounded to a whole second or to none")
    func subSecondIdleTimeout() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline {
            $0.idleTimeout = 0.4
            $0.maxRetries = 0
        }

        // An answer after 0.1 s is in time
        #expect(isTheImage(await outcome(pipeline, server.url("slow/0.1/a.png"))))

        // An answer after 0.95 s is not: a timeout rounded up to 1 s would let it through (the
        // outcome, not a clock, is the proof; 0.55 s of margin for a late timer)
        #expect(await outcome(pipeline, server.url("slow/0.95/a.png?late")) == .failure(.timedOut))

        // Silence fails too, not at once (rounded down to none) and not at the server's pace
        // (it holds until it exits at 60 s; the default idle timeout is 15 s)
        let started = ContinuousClock.now
        let result = await outcome(pipeline, server.url("hang/forever.png"))
        let elapsed = Self.seconds(ContinuousClock.now - started)
        #expect(result == .failure(.timedOut))
        #expect(elapsed >= 0.35 && elapsed < 4, "timed out after \(elapsed) s")
    }

    @Test("the timeout starts when a request is sent, not while it waits for a slot")
    func timeoutStartsWhenSent() async throws {
        let server = try startServer()
        defer { server.stop() }
        // One slot: the second load waits 1 s for it and then 1 s for its answer, the third waits
        // 2 s. Each request, once sent, answers within 1 s, under the 1.5 s timeout; counted from
        // the moment they were queued, the second and third would be over it.
        let pipeline = makePipeline {
            $0.maxConcurrentLoadsPerHost = 1
            $0.idleTimeout = 1.5
            $0.maxRetries = 0
        }
        let started = ContinuousClock.now

        async let first = outcome(pipeline, server.url("slow/1/a.png"))
        async let second = outcome(pipeline, server.url("slow/1/a.png?second"))
        async let third = outcome(pipeline, server.url("img/3/a.png"))
        let results = await [first, second, third]

        let elapsed = Self.seconds(ContinuousClock.now - started)
        for (index, result) in results.enumerated() {
            #expect(isTheImage(result), "load \(index + 1): \(result)")
        }
        #expect(elapsed >= 1.9, "the slot limit was not kept: \(elapsed) s")
        #expect(pipeline.statistics.peakInFlight == 1)
    }

    // MARK: - Coalescing and cancellation

    @Test("twenty rows wanting one URL make one request, and all twenty rows get the image")
    func twentyRowsOneRequest() throws {
        let server = try startServer()
        defer { server.stop() }
        let recorder = ResultRecorder()
        let pipeline = makePipeline { $0.notificationCenter = recorder.center }
        let url = server.url("slow/0.2/a.png")

        var tickets = Set<ImagePipeline.Ticket>()
        for row in 0..<20 {
            guard case .started(let ticket) = pipeline.load(request(url), priority: row) else {
                Issue.record("a cold pipeline answered from its cache")
                return
            }
            tickets.insert(ticket)
        }

        let results = recorder.wait(for: 20, seconds: 5)
        #expect(results.count == 20)
        #expect(Set(results.map(\.ticket)) == tickets)
        #expect(results.allSatisfy { isTheImage($0.result) })
        #expect(server.requests(containing: "/slow/0.2/a.png").count == 1)
    }

    @Test("a row scrolled away while two others want the same URL: one request, both rows drawn")
    func rowScrolledAway() throws {
        let server = try startServer()
        defer { server.stop() }
        let recorder = ResultRecorder()
        let pipeline = makePipeline { $0.notificationCenter = recorder.center }
        let url = server.url("slow/0.5/a.png")
        guard case .started(let gone) = pipeline.load(request(url), priority: 0),
            case .started(let b) = pipeline.load(request(url), priority: 1),
            case .started(let c) = pipeline.load(request(url), priority: 2)
        else {
            Issue.record("a cold pipeline answered from its cache")
            return
        }

        // When the first row scrolls away while the request is on the wire
        #expect(server.waitForRequests(containing: "/slow/0.5/", count: 1) == 1)
        pipeline.cancel(gone)

        // Then the download goes on for the other two, and only they are told. (One load tells
        // its tickets in ticket order, from one thread: the cancelled one, the first ticket,
        // would have been told before them, so nothing more can come for it.)
        let results = recorder.wait(for: 2, seconds: 10)
        #expect(Set(recorder.results.map(\.ticket)) == [b, c])
        #expect(results.allSatisfy { isTheImage($0.result) })
        #expect(server.requests(containing: "/slow/0.5/").count == 1)
        #expect(pipeline.statistics.fetchesCancelled == 0)
    }

    @Test("no delivery after cancel returns: a waiting sibling is dropped, a running callback is waited for")
    func noDeliveryAfterCancel() throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()
        let url = server.url("img/1/a.png")
        let gates = Gates()

        // Given two callbacks for one load; the first (delivered first) holds its thread until told
        let first = pipeline.load(request(url), priority: 0) { _ in
            gates.firstStarted.signal()
            _ = gates.release.wait(timeout: .now() + 5)
            gates.firstFinished.store(true)
        }
        let second = pipeline.load(request(url), priority: 0) { _ in
            gates.secondCalls.withLock { $0 += 1 }
            if gates.secondCancelled.load() { gates.lateDeliveries.withLock { $0 += 1 } }
        }
        let firstTicket = try #require(first)
        let secondTicket = try #require(second)

        // When the second is cancelled while the first callback runs (the answer is out)
        #expect(gates.firstStarted.wait(timeout: .now() + 5) == .success)
        pipeline.cancel(secondTicket)
        gates.secondCancelled.store(true)

        // And the first is cancelled from here while its callback is still running
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { gates.release.signal() }
        pipeline.cancel(firstTicket)

        // Then cancel waited for the running callback, and the second never hears anything
        #expect(gates.firstFinished.load(), "cancel returned while the callback was still running")
        // Once the load's decode operation, which delivers to both in turn, has ended
        #expect(decodesDrained(pipeline))
        #expect(gates.secondCalls.withLock { $0 } == 0)
        #expect(gates.lateDeliveries.withLock { $0 } == 0)

        // And a callback may cancel its own ticket without deadlocking
        let reentrant = Mutex<ImagePipeline.Ticket?>(nil)
        let done = DispatchSemaphore(value: 0)
        let ticket = pipeline.load(request(server.url("img/2/a.png")), priority: 0) { _ in
            if let own = reentrant.withLock({ $0 }) { pipeline.cancel(own) }
            done.signal()
        }
        reentrant.withLock { $0 = ticket }
        #expect(done.wait(timeout: .now() + 5) == .success)
    }

    @Test("cancel racing completion 1,000 times: never a callback after cancel returned, never two")
    func cancelRacingCompletion() async throws {
        let pipeline = makePipeline()
        let base64 = Self.png.base64EncodedString()
        // A distinct data: URL per load, so each is a fresh load (no memory-cache hit)
        @Sendable func url(_ n: Int) -> URL { URL(string: "data:image/png;n=\(n);base64,\(base64)")! }

        let report = await withCheckedContinuation { (continuation: CheckedContinuation<RaceReport, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.race(pipeline, count: 1000, url: url))
            }
        }

        #expect(report.drained, "\(report)")
        #expect(report.late == 0, "\(report.late) callbacks ran after cancel returned")
        #expect(report.duplicates == 0)
        // Both sides of the race were reached: some answers beat the cancel, some were dropped
        #expect(report.delivered > 0 && report.dropped > 0, "\(report)")
        #expect(pipeline.statistics.running == 0 && pipeline.statistics.queued == 0)
    }

    /// Loads `count` URLs and cancels each after a random pause spread around the usual time to
    /// completion, from this thread while the pipeline delivers on its own.
    static func race(_ pipeline: ImagePipeline, count: Int, url: (Int) -> URL) -> RaceReport {
        // The usual time from load to callback, measured here
        var latencies: [Duration] = []
        for n in 0..<20 {
            let done = DispatchSemaphore(value: 0)
            let start = ContinuousClock.now
            pipeline.load(ImageRequest(url: url(-1 - n), maxPixelWidth: 16, maxPixelHeight: 16), priority: 0) { _ in
                done.signal()
            }
            _ = done.wait(timeout: .now() + 5)
            latencies.append(ContinuousClock.now - start)
        }
        let typical = latencies.sorted()[latencies.count / 2]
        var probes: [Probe] = []
        for n in 0..<count {
            let probe = Probe()
            probes.append(probe)
            let ticket = pipeline.load(ImageRequest(url: url(n), maxPixelWidth: 16, maxPixelHeight: 16), priority: 0) {
                _ in
                if probe.cancelReturned.load() { probe.late.store(true) }
                // Stay a moment, so a cancel that does not wait for us would return meanwhile
                let until = ContinuousClock.now + .microseconds(20)
                while ContinuousClock.now < until {}
                if probe.cancelReturned.load() { probe.late.store(true) }
                probe.calls.withLock { $0 += 1 }
            }
            guard let ticket else { continue }
            let pause = typical * Double.random(in: 0...2)
            let until = ContinuousClock.now + pause
            while ContinuousClock.now < until {}
            pipeline.cancel(ticket)
            probe.cancelReturned.store(true)
        }
        // Every ticket is cancelled, so no load is left to fetch or decode for: a late callback
        // could only come from a decode operation queued before its ticket was cancelled
        let drained = decodesDrained(pipeline)
        var report = RaceReport(drained: drained)
        for probe in probes {
            let calls = probe.calls.withLock { $0 }
            if probe.late.load() { report.late += 1 }
            if calls > 1 { report.duplicates += 1 }
            if calls == 0 { report.dropped += 1 } else { report.delivered += 1 }
        }
        return report
    }

    @Test("an async load in a task cancelled before it starts ends at once with .cancelled")
    func cancelledTask() async throws {
        let server = try startServer()
        defer { server.stop() }
        let pipeline = makePipeline()
        // A server that holds its answer for 30 s: a load that ran would wait for it
        let url = server.url("slow/30/a.png")
        let started = ContinuousClock.now

        let task = Task { () -> Result<DecodedImage, ImagePipeline.Error> in
            withUnsafeCurrentTask { $0?.cancel() }
            return await outcome(pipeline, url)
        }
        let result = await task.value

        #expect(result == .failure(.cancelled))
        // Not at the server's pace: half its hold is generous for a loaded machine
        let elapsed = Self.seconds(ContinuousClock.now - started)
        #expect(elapsed < 15, "ended after \(elapsed) s")
        #expect(pipeline.statistics.running == 0)
    }
}

// MARK: - Helpers

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

/// Collects `didFinishLoading` notifications (ticket and result) from a private center.
final class ResultRecorder: Sendable {
    struct Delivery: Sendable {
        let ticket: ImagePipeline.Ticket
        let result: Result<DecodedImage, ImagePipeline.Error>
    }
    let center = NotificationCenter()
    private let list = Mutex<[Delivery]>([])
    private let changes = Changes()

    init() {
        // Not `self`: the center keeps the block, and `self` keeps the center.
        let (list, changes) = (self.list, self.changes)
        _ = center.addObserver(forName: ImagePipeline.didFinishLoading, object: nil, queue: nil) { note in
            guard let ticket = note.userInfo?[ImagePipeline.NotificationKey.ticket] as? ImagePipeline.Ticket,
                let result = note.userInfo?[ImagePipeline.NotificationKey.result]
                    as? Result<DecodedImage, ImagePipeline.Error>
            else { return }
            list.withLock { $0.append(Delivery(ticket: ticket, result: result)) }
            changes.notify()
        }
    }

    var results: [Delivery] { list.withLock { $0 } }

    /// Waits until `count` deliveries came, or `seconds` passed.
    func wait(for count: Int, seconds: Double) -> [Delivery] {
        changes.wait(seconds: seconds) { results.count >= count }
        return results
    }
}

/// Synchronisation points for `noDeliveryAfterCancel`.
final class Gates: Sendable {
    let firstStarted = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let firstFinished = Flag()
    let secondCancelled = Flag()
    let secondCalls = Mutex(0)
    let lateDeliveries = Mutex(0)
}

/// One load of the race: whether cancel had returned, and what the callback saw.
final class Probe: Sendable {
    let cancelReturned = Flag()
    let late = Flag()
    let calls = Mutex(0)
}

struct RaceReport: Sendable, CustomStringConvertible {
    /// The decode operations ended before the report was taken.
    var drained = true
    var late = 0
    var duplicates = 0
    var delivered = 0
    var dropped = 0
    var description: String {
        "delivered \(delivered), dropped \(dropped), late \(late), twice \(duplicates)\(drained ? "" : ", decodes still running")"
    }
}
