// `vitrine-bench fetch-thumbnails PATTERN --count N [--bytes-only]`: N thumbnails through the real pipeline
// over the network (docs/PERFORMANCE.md, "Network"): PATTERN is a URL with `{i}` replaced by
// 0..N-1 (distinct URLs of small images on a loopback server), all loaded at once with memory
// and disk caches off, the pipeline's own per-host limit and priorities. Prints one line:
// `wall_s cpu_s failures` (CPU = user + system of this process). --bytes-only fetches the bytes
// with `fetchData` (the gallery path: no decode, no pipeline queue) to time the loader alone. Uses only the pipeline's public
// API, so the same file builds against any version of it.
import Foundation
import ImagePipeline

func fetchThumbnailsBench(_ arguments: [String]) {
    let bytesOnly = arguments.contains("--bytes-only")
    let (options, rest) = parseOptions(arguments.filter { $0 != "--bytes-only" }, known: ["--count"])
    guard let pattern = rest.first, pattern.contains("{i}") else { fail("fetch-thumbnails needs a URL with {i}") }
    let count = intOption(options, "--count", default: 1000)
    let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(memoryCacheBytes: 0))
    let failures = Counter()
    let cpu0 = cpuSeconds(RUSAGE_SELF.rawValue)
    let clock = ContinuousClock()
    let start = clock.now
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        let url = URL(string: pattern.replacingOccurrences(of: "{i}", with: "\(i)"))!
        let done: @Sendable (ImagePipeline.Error?) -> Void = { error in
            if let error, failures.add() == 1 { FileHandle.standardError.write(Data("first failure: \(error)\n".utf8)) }
            group.leave()
        }
        if bytesOnly {
            pipeline.fetchData(for: url) { result in
                if case .failure(let error) = result { done(error) } else { done(nil) }
            }
        } else {
            pipeline.load(ImageRequest(url: url, maxPixelWidth: 32, maxPixelHeight: 16), priority: i) { result in
                if case .failure(let error) = result { done(error) } else { done(nil) }
            }
        }
    }
    group.wait()
    let wall = microseconds(clock.now - start) / 1e6
    print(String(format: "%.4f %.4f %d", wall, cpuSeconds(RUSAGE_SELF.rawValue) - cpu0, failures.value))
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var count = 0
    func add() -> Int { lock.withLock { count += 1; return count } }
    var value: Int { lock.withLock { count } }
}
