// Timing helpers shared by vitrine-bench's modes.
import Foundation
import ImagePipeline

/// Keeps results alive so the optimiser cannot drop the work.
nonisolated(unsafe) var sink = 0

/// Microseconds in a `Duration`.
func microseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}

/// The `q` quantile (0...1) of sorted `samples` (nearest rank).
func quantile(_ samples: [Double], _ q: Double) -> Double {
    precondition(!samples.isEmpty)
    let rank = Int((q * Double(samples.count)).rounded(.up)) - 1
    return samples[min(samples.count - 1, max(0, rank))]
}

/// Runs `body` `warmup` times, then `iterations` times, timing each run; returns the sorted
/// samples in µs.
func samples(iterations: Int, warmup: Int = 20, _ body: () -> Void) -> [Double] {
    for _ in 0..<warmup { body() }
    let clock = ContinuousClock()
    var samples = [Double]()
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        samples.append(microseconds(clock.measure(body)))
    }
    return samples.sorted()
}

/// Runs `body` `warmup` times, then `iterations` times, timing each run; returns (median, p90) in µs.
func measure(iterations: Int, warmup: Int = 20, _ body: () -> Void) -> (median: Double, p90: Double) {
    let s = samples(iterations: iterations, warmup: warmup, body)
    return (quantile(s, 0.5), quantile(s, 0.9))
}

/// Loads `request` through `pipeline` and waits for the answer; exits 66 on failure.
func decode(_ request: ImageRequest, pipeline: ImagePipeline) -> DecodedImage {
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<DecodedImage, ImagePipeline.Error>?
    pipeline.load(request, priority: 0) {
        result = $0
        semaphore.signal()
    }
    semaphore.wait()
    switch result! {
    case .success(let image): return image
    case .failure(let error): fail("\(request.url.path): \(error)", status: 66)
    }
}

func decode(_ url: URL, width: Int, height: Int, pipeline: ImagePipeline) -> DecodedImage {
    decode(ImageRequest(url: url, maxPixelWidth: width, maxPixelHeight: height), pipeline: pipeline)
}

func fail(_ message: String, status: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data("vitrine-bench: \(message)\n".utf8))
    exit(status)
}

/// User plus system CPU time of this process (`RUSAGE_SELF`) or of its waited-for children
/// (`RUSAGE_CHILDREN`), in seconds.
func cpuSeconds(_ who: Int32) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// A default test image: mate-backgrounds' nature/LadyBird.jpg, else the demo's sunset.png.
func defaultImagePath() -> String {
    let candidates = [
        "/usr/share/backgrounds/mate/nature/LadyBird.jpg",
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Resources/demo/pictures/sunset.png").standardized.path,
    ]
    guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
        fail("no test image; pass one", status: 66)
    }
    return path
}
