import Foundation
import Locking
import TestSupport
import Testing

@testable import ImagePipeline

/// A data loader that answers only when the test says so, and records what was asked
/// (with the validators of conditional requests, for the disk cache).
///
/// Give a pipeline `loader.weakly`, not the loader: the loader keeps every completion it was
/// handed, and each holds its pipeline, so a pipeline holding its loader would never be freed
/// (a leak LeakSanitizer reports at exit). The test holds the loader for as long as it loads.
final class ManualLoader: DataLoading {
    struct Pending {
        let url: URL
        let completion: @Sendable (Result<Data, ImagePipeline.Error>) -> Void
        let handle: Handle
        var validators: CacheValidators? = nil
        /// Set for `loadResponse` calls: answers with headers or a 304.
        var respond: (@Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void)? = nil
    }

    final class Handle: Cancellable {
        let cancelled = Mutex(false)
        func cancel() { cancelled.withLock { $0 = true } }
        var isCancelled: Bool { cancelled.withLock { $0 } }
    }

    let pending = Mutex<[Pending]>([])
    /// Notified after each request, for the waits below.
    private let changes = Changes()

    func loadData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        let handle = Handle()
        pending.withLock { $0.append(Pending(url: url, completion: completion, handle: handle)) }
        changes.notify()
        return handle
    }

    func loadResponse(
        for url: URL, validators: CacheValidators?,
        completion: @escaping @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        let handle = Handle()
        let pending = Pending(
            url: url, completion: { completion($0.map { LoadedResponse(data: $0) }) }, handle: handle,
            validators: validators, respond: completion)
        self.pending.withLock { $0.append(pending) }
        changes.notify()
        return handle
    }

    /// This loader for a pipeline, held weakly (see above); once the loader is gone, requests
    /// are never answered.
    var weakly: any DataLoading { Weak(self) }

    private final class Weak: DataLoading, @unchecked Sendable {
        // @unchecked: set once, in init (a weak reference is read and cleared atomically).
        weak var loader: ManualLoader?
        init(_ loader: ManualLoader) { self.loader = loader }

        func loadData(
            for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
        ) -> any Cancellable {
            loader?.loadData(for: url, completion: completion) ?? Handle()
        }

        func loadResponse(
            for url: URL, validators: CacheValidators?,
            completion: @escaping @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
        ) -> any Cancellable {
            loader?.loadResponse(for: url, validators: validators, completion: completion) ?? Handle()
        }
    }

    var requestedURLs: [String] { pending.withLock { $0.map(\.url.lastPathComponent) } }

    /// `requestedURLs` once it has `count` entries (fetches freed by a completion start on the
    /// pipeline's own queue), or as it is after 10 s.
    func requested(_ count: Int) -> [String] {
        changes.wait { requestedURLs.count >= count }
        return requestedURLs
    }

    /// Waits until `count` requests were made (true), or 10 s pass (false); for async tests.
    func waitForRequests(_ count: Int) async -> Bool {
        await changes.wait { [self] in pending.withLock { $0.count } >= count }
    }

    /// Everything asked so far, in order.
    var requests: [Pending] { pending.withLock { $0 } }

    /// Answers the request at `index` (in asking order) with a response: headers, or a 304.
    func respond(at index: Int, with response: LoadedResponse) {
        let match = pending.withLock { $0.indices.contains(index) ? $0[index] : nil }
        match?.respond?(.success(response))
    }

    /// Completes the request for `name` with `data`.
    func complete(_ name: String, with result: Result<Data, ImagePipeline.Error>) {
        let match = pending.withLock { $0.first { $0.url.lastPathComponent == name } }
        match?.completion(result)
    }

    func handle(_ name: String) -> Handle? { pending.withLock { $0.first { $0.url.lastPathComponent == name }?.handle } }
}

/// Collects `didFinishLoading` notifications from a private center.
final class NotificationRecorder: Sendable {
    let center = NotificationCenter()
    /// One notification's contents.
    struct Note: Sendable {
        let ticket: ImagePipeline.Ticket
        let result: Result<DecodedImage, ImagePipeline.Error>
        let revalidating: Bool
        let replacement: Bool
        var partial = false
    }
    final class Received: Sendable {
        let list = Mutex<[ImagePipeline.Ticket]>([])
        let notes = Mutex<[Note]>([])
    }
    let received = Received()
    private let changes = Changes()
    nonisolated(unsafe) var token: (any NSObjectProtocol)?

    init() {
        let (received, changes) = (self.received, self.changes)
        token = center.addObserver(forName: ImagePipeline.didFinishLoading, object: nil, queue: nil) { note in
            if let ticket = note.userInfo?[ImagePipeline.NotificationKey.ticket] as? ImagePipeline.Ticket {
                received.list.withLock { $0.append(ticket) }
                if let result = note.userInfo?[ImagePipeline.NotificationKey.result]
                    as? Result<DecodedImage, ImagePipeline.Error>
                {
                    let info = note.userInfo
                    received.notes.withLock {
                        $0.append(
                            Note(
                                ticket: ticket, result: result,
                                revalidating: info?[ImagePipeline.NotificationKey.revalidating] as? Bool ?? false,
                                replacement: info?[ImagePipeline.NotificationKey.replacement] as? Bool ?? false,
                                partial: info?[ImagePipeline.NotificationKey.partial] as? Bool ?? false))
                    }
                }
                changes.notify()
            }
        }
    }

    /// Every notification so far, in arrival order.
    var notes: [Note] { received.notes.withLock { $0 } }

    /// The tickets notified, once there are `count` (or after `seconds`).
    func wait(for count: Int, seconds: Double = 10) -> [ImagePipeline.Ticket] {
        changes.wait(seconds: seconds) { received.list.withLock { $0.count } >= count }
        return received.list.withLock { $0 }
    }

    /// `wait(for:)` for async tests: true once `count` notes came.
    func waitForNotes(_ count: Int) async -> Bool {
        let received = self.received
        return await changes.wait { received.notes.withLock { $0.count } >= count }
    }
}

@Suite("Load queue, coalescing and cancellation")
struct SchedulingTests {
    let png = TestPNG.solid(width: 8, height: 8, [200, 100, 50, 255])

    func makePipeline(perHost: Int = 6) -> (ImagePipeline, ManualLoader, NotificationRecorder) {
        let loader = ManualLoader()
        let recorder = NotificationRecorder()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.maxConcurrentLoadsPerHost = perHost
        configuration.notificationCenter = recorder.center
        return (ImagePipeline(configuration: configuration, dataLoader: loader.weakly), loader, recorder)
    }

    func request(_ name: String) -> ImageRequest {
        ImageRequest(url: URL(string: "http://127.0.0.1:9/\(name)")!, maxPixelWidth: 8, maxPixelHeight: 8)
    }

    @Test("twenty rows wanting one URL cause one fetch and twenty notifications")
    func coalescing() throws {
        // Given 20 tickets for the same request
        let (pipeline, loader, recorder) = makePipeline()
        var tickets = Set<ImagePipeline.Ticket>()
        for row in 0..<20 {
            guard case .started(let ticket) = pipeline.load(request("same.png"), priority: row) else {
                Issue.record("unexpected cache hit")
                return
            }
            tickets.insert(ticket)
        }
        // Then one fetch was started
        #expect(loader.requestedURLs == ["same.png"])
        // When it completes, every ticket hears about it once
        loader.complete("same.png", with: .success(png))
        let received = recorder.wait(for: 20)
        #expect(received.count == 20)
        #expect(Set(received) == tickets)
        #expect(pipeline.statistics.fetchesStarted == 1)
    }

    @Test("cancelling one interested row keeps the load for the others; the last cancels it")
    func cancellationIsPerTicket() throws {
        let (pipeline, loader, recorder) = makePipeline()
        guard case .started(let a) = pipeline.load(request("x.png"), priority: 0),
            case .started(let b) = pipeline.load(request("x.png"), priority: 1),
            case .started(let c) = pipeline.load(request("x.png"), priority: 2)
        else {
            Issue.record("unexpected cache hit")
            return
        }
        // When one row scrolls away
        pipeline.cancel(a)
        // Then the download goes on
        #expect(loader.handle("x.png")?.isCancelled == false)
        // And when it completes only the remaining two are told
        loader.complete("x.png", with: .success(png))
        let received = recorder.wait(for: 2)
        #expect(Set(received) == [b, c])

        // Given a load wanted by two rows, when both go away, the fetch is cancelled
        guard case .started(let d) = pipeline.load(request("y.png"), priority: 0),
            case .started(let e) = pipeline.load(request("y.png"), priority: 0)
        else {
            Issue.record("unexpected cache hit")
            return
        }
        pipeline.cancel(d)
        #expect(loader.handle("y.png")?.isCancelled == false)
        pipeline.cancel(e)
        #expect(loader.handle("y.png")?.isCancelled == true)
        #expect(pipeline.statistics.fetchesCancelled == 1)
    }

    @Test("with one slot per host, the nearest row starts next; priorities can change")
    func priorityOrder() throws {
        let (pipeline, loader, _) = makePipeline(perHost: 1)
        _ = pipeline.load(request("first.png"), priority: 0)
        _ = pipeline.load(request("far.png"), priority: 9)
        guard case .started(let near) = pipeline.load(request("near.png"), priority: 5) else { return }
        _ = pipeline.load(request("middle.png"), priority: 7)
        #expect(loader.requestedURLs == ["first.png"])
        // When the user scrolls so that "near" is now farthest
        pipeline.setPriority(near, 20)
        loader.complete("first.png", with: .success(png))
        // Then the next to start is the middle one, then far, then near
        #expect(loader.requested(2) == ["first.png", "middle.png"])
        loader.complete("middle.png", with: .success(png))
        #expect(loader.requested(3) == ["first.png", "middle.png", "far.png"])
        loader.complete("far.png", with: .success(png))
        #expect(loader.requested(4) == ["first.png", "middle.png", "far.png", "near.png"])
        #expect(pipeline.statistics.peakInFlight == 1)
    }

    @Test("a cancelled fetch keeps its slot until its completion comes back, then the next starts")
    func cancelledFetchHoldsItsSlot() {
        // Given one slot, a fetch running and a load waiting
        let (pipeline, loader, _) = makePipeline(perHost: 1)
        guard case .started(let first) = pipeline.load(request("first.png"), priority: 0) else {
            Issue.record("unexpected cache hit")
            return
        }
        _ = pipeline.load(request("next.png"), priority: 1)
        #expect(loader.requestedURLs == ["first.png"])
        // When the row that wanted the running one scrolls away
        pipeline.cancel(first)
        // Then the transfer is cancelled, but its connection may still be open: nothing starts
        #expect(loader.handle("first.png")?.isCancelled == true)
        #expect(loader.requestedURLs == ["first.png"])
        #expect(pipeline.statistics.queued == 1)
        // When the loader reports the cancelled transfer finished, the waiting load starts
        loader.complete("first.png", with: .failure(.cancelled))
        #expect(loader.requested(2) == ["first.png", "next.png"])
        #expect(pipeline.statistics.peakInFlight == 1)

        // A forced reload of a running load: the old fetch keeps the slot until it completes
        _ = pipeline.load(
            ImageRequest(url: URL(string: "http://127.0.0.1:9/next.png")!, maxPixelWidth: 8, maxPixelHeight: 8, reload: true),
            priority: 0)
        #expect(loader.requestedURLs == ["first.png", "next.png"])
        loader.complete("next.png", with: .failure(.cancelled))
        #expect(loader.requested(3) == ["first.png", "next.png", "next.png"])
        #expect(pipeline.statistics.peakInFlight == 1)
    }

    @Test("freed memory is handed back once the pipeline runs out of loads, and after each burst")
    func heapTrims() {
        // Given a pipeline whose burst is two bodies' worth, with trims held until the test runs them
        let loader = ManualLoader()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.heapTrimBytes = 2 * png.count
        configuration.notificationCenter = NotificationCenter()
        let trims = HeldTrims()
        let pipeline = ImagePipeline(
            configuration: configuration, dataLoader: loader.weakly,
            heapTrimmer: HeapTrimmer(burstBytes: configuration.heapTrimBytes, scheduler: trims.schedule))
        for i in 0..<4 { _ = pipeline.load(request("\(i).png"), priority: i) }
        // When one body arrives and is decoded and delivered while loads remain: no trim asked
        // (a load's end is reported to the trimmer from its decode operation)
        loader.complete("0.png", with: .success(png))
        #expect(decodesDrained(pipeline))
        #expect(trims.held == 0)
        // When the second arrives (a burst's worth) while loads remain: one trim, asked at once
        loader.complete("1.png", with: .success(png))
        #expect(trims.held == 1)
        #expect(trims.runAll() == 1)
        #expect(pipeline.statistics.heapTrims == 1)
        // When the last loads end (the pipeline is idle): another
        loader.complete("2.png", with: .success(png))
        loader.complete("3.png", with: .success(png))
        #expect(decodesDrained(pipeline))
        #expect(trims.runAll() == 1)
        #expect(pipeline.statistics.heapTrims == 2)
        #expect(trims.held == 0)

        // heapTrimBytes 0: never, not even once the pipeline is idle
        configuration.heapTrimBytes = 0
        let never = HeldTrims()
        let off = ImagePipeline(
            configuration: configuration, dataLoader: loader.weakly,
            heapTrimmer: HeapTrimmer(burstBytes: 0, scheduler: never.schedule))
        _ = off.load(request("4.png"), priority: 0)
        loader.complete("4.png", with: .success(png))
        #expect(decodesDrained(off))
        #expect(off.statistics.running == 0 && off.statistics.queued == 0)
        #expect(never.held == 0)
        #expect(off.statistics.heapTrims == 0)
    }

    @Test("no more than the per-host limit run at once; other hosts are not held up")
    func perHostLimit() {
        let (pipeline, loader, _) = makePipeline(perHost: 6)
        for i in 0..<10 { _ = pipeline.load(request("\(i).png"), priority: i) }
        let other = ImageRequest(url: URL(string: "http://127.0.0.2:9/other.png")!, maxPixelWidth: 8, maxPixelHeight: 8)
        _ = pipeline.load(other, priority: 0)
        #expect(loader.requestedURLs.count == 7)
        #expect(loader.requestedURLs.contains("other.png"))
        #expect(pipeline.statistics.queued == 4)
    }

    @Test("a failed fetch reaches every ticket with its typed error")
    func failureIsReported() async throws {
        let (pipeline, loader, _) = makePipeline()
        async let result: Result<DecodedImage, ImagePipeline.Error> = {
            do throws(ImagePipeline.Error) {
                return .success(try await pipeline.image(for: request("gone.png")))
            } catch { return .failure(error) }
        }()
        #expect(await loader.waitForRequests(1))
        loader.complete("gone.png", with: .failure(.httpStatus(404)))
        let outcome = await result
        #expect(outcome == .failure(.httpStatus(404)))
    }

    @Test("fetches wait while fetched bodies wait for decoding, and start again as decodes end")
    func decodeBacklogHoldsFetches() {
        // Given one decode at a time, held up by an operation the test releases, and a backlog
        // limit of one byte: a single fetched body fills it
        let loader = ManualLoader()
        let recorder = NotificationRecorder()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.decodeConcurrency = 1
        configuration.decodeBacklogBytes = 1
        configuration.notificationCenter = recorder.center
        let pipeline = ImagePipeline(configuration: configuration, dataLoader: loader.weakly)
        let gate = DispatchSemaphore(value: 0)
        pipeline.decodeQueue.addOperation { gate.wait() }
        let names = (0..<20).map { "image\($0).png" }
        for (row, name) in names.enumerated() { _ = pipeline.load(request(name), priority: row) }
        #expect(loader.requestedURLs == Array(names.prefix(6)))

        // When the six running fetches bring their bodies while the decoder is busy
        for name in names.prefix(6) { loader.complete(name, with: .success(png)) }
        // Then all six wait for the decoder, and no further fetch starts. (A completion decides
        // what starts next on its own thread, here, before `complete` returns, so a loader
        // without the limit would have asked for six more by now; and no decode can end and
        // start one, since the gate holds the only decode slot.)
        #expect(pipeline.decodeQueue.operationCount == 7)
        #expect(loader.requestedURLs.count == 6)
        #expect(pipeline.statistics.peakDecodeBacklogBytes == 6 * png.count)

        // When decoding resumes, the held fetches start, nearest first, and every row loads
        gate.signal()
        var answered = 6
        while answered < names.count {
            let asked = loader.requested(answered + 1)
            guard asked.count > answered else { break }
            for name in asked[answered...] { loader.complete(name, with: .success(png)) }
            answered = asked.count
        }
        #expect(loader.requestedURLs == names)
        #expect(recorder.wait(for: 20).count == 20)
        #expect(pipeline.statistics.peakDecodeBacklogBytes <= 6 * png.count)
        #expect(pipeline.statistics.fetchesStarted == 20)
    }
}

/// A `HeapTrimmer.Scheduler` that holds each trim until the test runs it.
final class HeldTrims: Sendable {
    private let trims = Mutex<[@Sendable () -> Void]>([])

    var schedule: HeapTrimmer.Scheduler { { [trims] _, trim in trims.withLock { $0.append(trim) } } }

    /// Trims asked for and not run yet.
    var held: Int { trims.withLock { $0.count } }

    /// Runs the held trims (and any they ask for in turn); how many ran.
    @discardableResult
    func runAll() -> Int {
        var ran = 0
        while let trim = trims.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            trim()
            ran += 1
        }
        return ran
    }
}

/// Waits until every decode operation `pipeline` has queued so far has ended (true), or
/// `seconds` pass (false). A load that decodes is delivered from its decode operation, so its
/// notification or callback, and its report to the heap trimmer, have happened by then.
func decodesDrained(_ pipeline: ImagePipeline, seconds: Double = 10) -> Bool {
    let done = DispatchSemaphore(value: 0)
    pipeline.decodeQueue.addBarrierBlock { done.signal() }
    return done.wait(timeout: .now() + seconds) == .success
}
