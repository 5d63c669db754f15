import Foundation
import TestSupport
import Testing

@testable import ImagePipeline

@Suite("Retry with backoff")
struct RetryTests {
    let png = TestPNG.solid(width: 4, height: 4, [9, 8, 7, 255])

    func makePipeline(retries: Int = 2) -> (ImagePipeline, ManualLoader) {
        let loader = ManualLoader()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.maxRetries = retries
        configuration.retryBaseDelay = 0.05
        configuration.notificationCenter = NotificationCenter()
        return (ImagePipeline(configuration: configuration, dataLoader: loader.weakly), loader)
    }

    func request(_ name: String) -> ImageRequest {
        ImageRequest(url: URL(string: "http://127.0.0.1:9/\(name)")!, maxPixelWidth: 4, maxPixelHeight: 4)
    }

    /// Answers the `index`-th request once it has been made (retries come after a pause).
    func answer(_ loader: ManualLoader, at index: Int, with result: Result<Data, ImagePipeline.Error>) async throws {
        guard await loader.waitForRequests(index + 1) else {
            Issue.record("request \(index) never came")
            return
        }
        loader.requests[index].completion(result)
    }

    func outcome(_ pipeline: ImagePipeline, _ name: String) -> Task<Result<DecodedImage, ImagePipeline.Error>, Never> {
        let request = request(name)
        return Task {
            do throws(ImagePipeline.Error) { return .success(try await pipeline.image(for: request)) } catch {
                return .failure(error)
            }
        }
    }

    @Test("503 twice, then 200: the image arrives after two retries")
    func serverErrorsAreRetried() async throws {
        let (pipeline, loader) = makePipeline()
        let result = outcome(pipeline, "flaky.png")
        try await answer(loader, at: 0, with: .failure(.serverBusy(status: 503, retryAfter: nil)))
        try await answer(loader, at: 1, with: .failure(.httpStatus(502)))
        try await answer(loader, at: 2, with: .success(png))
        guard case .success(let image) = await result.value else {
            Issue.record("expected the image after retries")
            return
        }
        #expect(image.bitmap.width == 4)
        #expect(loader.requests.count == 3)
        #expect(pipeline.statistics.retries == 2)
    }

    @Test("a 404 fails at once, with no retry")
    func clientErrorsFailAtOnce() async throws {
        let (pipeline, loader) = makePipeline()
        let result = outcome(pipeline, "gone.png")
        try await answer(loader, at: 0, with: .failure(.httpStatus(404)))
        #expect(await result.value == .failure(.httpStatus(404)))
        // No retry is coming: the failure was delivered, so the pipeline decided against one (a
        // retry is decided when the fetch fails, counted, and keeps the load queued, delivering
        // nothing); the load is gone and no retry was counted
        #expect(pipeline.statistics.retries == 0)
        #expect(pipeline.statistics.queued == 0 && pipeline.statistics.running == 0)
        #expect(loader.requests.count == 1)
    }

    @Test("timeouts are retried a few times, then the row fails with the last reason")
    func timeoutsGiveUp() async throws {
        let (pipeline, loader) = makePipeline(retries: 2)
        let result = outcome(pipeline, "slow.png")
        for index in 0..<3 { try await answer(loader, at: index, with: .failure(.timedOut)) }
        #expect(await result.value == .failure(.timedOut))
        #expect(loader.requests.count == 3)
    }

    @Test("429 waits as long as Retry-After says before asking again")
    func retryAfterIsHonoured() async throws {
        let (pipeline, loader) = makePipeline()
        let result = outcome(pipeline, "busy.png")
        try await answer(loader, at: 0, with: .failure(.serverBusy(status: 429, retryAfter: 0.3)))
        let failedAt = ContinuousClock.now
        try await answer(loader, at: 1, with: .success(png))
        let waited = ContinuousClock.now - failedAt
        #expect(waited >= .milliseconds(290))
        guard case .success = await result.value else {
            Issue.record("expected the image after Retry-After")
            return
        }
    }

    @Test("the retry policy: transient errors only, Retry-After capped, doubling backoff")
    func policy() {
        let policy = RetryPolicy(maxRetries: 3, base: 0.5, maxDelay: 30)
        #expect(policy.delay(after: .httpStatus(500), attempt: 1) == 0.5)
        #expect(policy.delay(after: .httpStatus(500), attempt: 2) == 1.0)
        #expect(policy.delay(after: .timedOut, attempt: 3) == 2.0)
        #expect(policy.delay(after: .timedOut, attempt: 4) == nil)
        #expect(policy.delay(after: .httpStatus(404), attempt: 1) == nil)
        #expect(policy.delay(after: .httpStatus(501), attempt: 1) == nil)
        #expect(policy.delay(after: .notAnImage("HTML page"), attempt: 1) == nil)
        #expect(policy.delay(after: .serverBusy(status: 429, retryAfter: 7), attempt: 1) == 7)
        #expect(policy.delay(after: .serverBusy(status: 429, retryAfter: 120), attempt: 1) == nil)
        #expect(RetryAfter.seconds("3") == 3)
        #expect(RetryAfter.seconds(nil) == nil)
        #expect(RetryAfter.seconds("soon") == nil)
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:10 GMT", now: now) == 10)
    }
}
