// The image pipeline's benchmarks (docs/PERFORMANCE.md, "Image pipeline"):
//
//   vitrine-bench cache-hit [IMAGE] [--iterations N] [--entries N]
//   vitrine-bench thumbnails [--rounds N] [--box WxH] [--vipsthumbnail PATH] [--decode-concurrency N] FILE...
//
// cache-hit: IMAGE is decoded once at the browser's default thumbnail box (32x16 pixels) into
// a memory cache that also holds N-1 other entries; then the time from the `load` call to the
// image in hand is measured per call, N times, for each of the three ways to call the pipeline.
//
// thumbnails: every FILE (file URLs) goes through the real pipeline at once (memory cache off,
// decode concurrency = cores unless --decode-concurrency, the pipeline's own fetch limit), and the same files through
// `vipsthumbnail -s WxH` in one process and split over one process per core, and against
// libjpeg-turbo alone at the same DCT scale (the decode limit, JPEG files only), interleaved
// round by round. Prints thumbnails per second, CPU per thumbnail, cores used and the ratios.
import CImageCodecs
import Foundation
import HalfBlock
import ImagePipeline

/// Splits `--name value` options from positional arguments.
func parseOptions(_ arguments: [String], known: Set<String>) -> (options: [String: String], rest: [String]) {
    var options: [String: String] = [:]
    var rest: [String] = []
    var i = 0
    while i < arguments.count {
        let arg = arguments[i]
        if known.contains(arg) {
            guard i + 1 < arguments.count else { fail("\(arg) needs a value") }
            options[arg] = arguments[i + 1]
            i += 2
        } else if arg.hasPrefix("--") {
            fail("unknown option \(arg)")
        } else {
            rest.append(arg)
            i += 1
        }
    }
    return (options, rest)
}

func intOption(_ options: [String: String], _ name: String, default value: Int) -> Int {
    guard let text = options[name] else { return value }
    guard let n = Int(text), n > 0 else { fail("\(name) takes a positive number, not '\(text)'") }
    return n
}

func box(_ text: String?) -> (width: Int, height: Int) {
    guard let text else { return (32, 16) }
    let parts = text.split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { fail("--box takes WxH, like 32x16, not '\(text)'") }
    return (parts[0], parts[1])
}

// MARK: cache-hit

func cacheHitBench(_ arguments: [String]) {
    let (options, rest) = parseOptions(arguments, known: ["--iterations", "--entries"])
    let iterations = intOption(options, "--iterations", default: 200_000)
    let entries = intOption(options, "--entries", default: 1000)
    let url = URL(fileURLWithPath: rest.first ?? defaultImagePath())
    let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 256 << 20))

    // The browser's request for a default row (16x4 cells → 32x16 pixels), and entries - 1
    // others (the same file at other boxes), all decoded once so the cache holds `entries`.
    let request = ImageRequest(url: url, maxPixelWidth: 32, maxPixelHeight: 16)
    let image = decode(request, pipeline: pipeline)
    let group = DispatchGroup()
    for i in 1..<entries {
        group.enter()
        let other = ImageRequest(url: url, maxPixelWidth: 33 + i % 64, maxPixelHeight: 17 + i / 64)
        pipeline.load(other, priority: i) { result in
            if case .failure(let error) = result { fail("\(url.path): \(error)", status: 66) }
            group.leave()
        }
    }
    group.wait()
    _ = pipeline.cachedImage(for: request)  // most recently used again (nothing was evicted)
    let stats = pipeline.statistics

    var misses = 0
    let clockOnly = samples(iterations: iterations) { sink &+= 1 }
    let plain = samples(iterations: iterations) {
        switch pipeline.load(request, priority: 0) {
        case .cached(let image): sink &+= image.bitmap.width
        case .started(let ticket):
            misses += 1
            pipeline.cancel(ticket)
        }
    }
    let callback = samples(iterations: iterations) {
        let ticket = pipeline.load(request, priority: 0) { result in
            if case .success(let image) = result { sink &+= image.bitmap.width }
        }
        if let ticket {
            misses += 1
            pipeline.cancel(ticket)
        }
    }
    // The async form, timed inside one task (the clock reads bracket each `await`).
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var asyncSamples: [Double] = []
    Task.detached {
        let clock = ContinuousClock()
        var s = [Double]()
        s.reserveCapacity(iterations)
        for i in 0..<(iterations + 20) {
            let start = clock.now
            let image = try? await pipeline.image(for: request)
            let elapsed = clock.now - start
            sink &+= image?.bitmap.width ?? 0
            if i >= 20 { s.append(microseconds(elapsed)) }
        }
        asyncSamples = s.sorted()
        done.signal()
    }
    done.wait()
    if misses > 0 || pipeline.statistics.fetchesStarted != stats.fetchesStarted {
        fail("\(misses) cache misses during the measurement", status: 70)
    }

    print("<!-- vitrine-bench cache-hit, \(url.lastPathComponent) at 32x16 (\(image.bitmap.width)x\(image.bitmap.height) bitmap), "
        + "\(stats.memoryCacheBytes) bytes in \(entries) entries, \(iterations) calls each, "
        + "\(ProcessInfo.processInfo.activeProcessorCount) cores -->")
    print("| call | median µs | p90 µs | p99 µs | max µs |")
    print("|---|---|---|---|---|")
    func row(_ name: String, _ s: [Double]) {
        print(String(format: "| %@ | %.2f | %.2f | %.2f | %.1f |", name, quantile(s, 0.5), quantile(s, 0.9), quantile(s, 0.99), s.last!))
    }
    row("`load(_:priority:)` → `.cached(image)` (what the browser calls)", plain)
    row("`load(_:priority:completion:)`, handler called at once", callback)
    row("`try await image(for:)`", asyncSamples)
    row("clock reads only (empty body)", clockOnly)
}

// MARK: thumbnails

func thumbnailsBench(_ arguments: [String]) {
    let (options, files) = parseOptions(arguments, known: ["--rounds", "--box", "--vipsthumbnail", "--decode-concurrency"])
    guard !files.isEmpty else { fail("thumbnails needs image files") }
    let rounds = intOption(options, "--rounds", default: 5)
    let size = box(options["--box"])
    let tool = options["--vipsthumbnail"] ?? "/usr/bin/vipsthumbnail"
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let urls = files.map { URL(fileURLWithPath: $0) }
    // Memory cache off, so every round decodes every file; decode concurrency is the default
    // (one per core); file reads go through the pipeline's fetch slots like any load.
    var configuration = ImagePipeline.Configuration(memoryCacheBytes: 0)
    configuration.decodeConcurrency = intOption(options, "--decode-concurrency", default: configuration.decodeConcurrency)
    let pipeline = ImagePipeline(configuration: configuration)
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }

    // Warm-up: libvips, the decode queue and the page cache.
    let sample = decode(urls[0], width: size.width, height: size.height, pipeline: pipeline)
    for url in urls { _ = try? Data(contentsOf: url) }

    func runPipeline() -> (wall: Double, cpu: Double) {
        let cpu0 = cpuSeconds(RUSAGE_SELF.rawValue)
        let clock = ContinuousClock()
        let start = clock.now
        let group = DispatchGroup()
        for (i, url) in urls.enumerated() {
            group.enter()
            pipeline.load(ImageRequest(url: url, maxPixelWidth: size.width, maxPixelHeight: size.height), priority: i) {
                result in
                switch result {
                case .success(let image): sink &+= image.bitmap.width
                case .failure(let error): fail("\(url.path): \(error)", status: 66)
                }
                group.leave()
            }
        }
        group.wait()
        return (microseconds(clock.now - start) / 1e6, cpuSeconds(RUSAGE_SELF.rawValue) - cpu0)
    }

    func runVips(processes: Int) -> (wall: Double, cpu: Double) {
        var chunks = Array(repeating: [String](), count: processes)
        for (i, file) in files.enumerated() { chunks[i % processes].append(file) }
        let cpu0 = cpuSeconds(RUSAGE_CHILDREN.rawValue)
        let clock = ContinuousClock()
        let start = clock.now
        let running = chunks.filter { !$0.isEmpty }.map { chunk -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tool)
            p.arguments = ["-s", "\(size.width)x\(size.height)", "-o", out.path + "/%s.v"] + chunk
            do { try p.run() } catch { fail("cannot run \(tool): \(error)", status: 69) }
            return p
        }
        for p in running {
            p.waitUntilExit()
            if p.terminationStatus != 0 { fail("\(tool) exited with \(p.terminationStatus)", status: 70) }
        }
        return (microseconds(clock.now - start) / 1e6, cpuSeconds(RUSAGE_CHILDREN.rawValue) - cpu0)
    }

    // The decode limit: libjpeg-turbo alone (through the CImageCodecs shim, which is jpeglib at
    // the same DCT scale the pipeline picks, plus the EXIF/ICC checks), every file on `cores`
    // threads, no pipeline, no resize, no copies.
    let bodies = files.map { (try? Data(contentsOf: URL(fileURLWithPath: $0))) ?? Data() }
    func runRaw() -> (wall: Double, cpu: Double) {
        let cpu0 = cpuSeconds(RUSAGE_SELF.rawValue)
        let clock = ContinuousClock()
        let start = clock.now
        DispatchQueue.concurrentPerform(iterations: bodies.count) { i in
            var width: Int32 = 0, height: Int32 = 0
            var message = [CChar](repeating: 0, count: 256)
            bodies[i].withUnsafeBytes { raw in
                _ = ccodec_jpeg_probe(raw.baseAddress, raw.count, &width, &height, &message, message.count)
                let scale = min(Double(size.width) / Double(max(width, 1)), Double(size.height) / Double(max(height, 1)), 1)
                var out = ccodec_image()
                let rc = ccodec_jpeg_decode(
                    raw.baseAddress, raw.count, Int32((Double(width) * scale).rounded()),
                    Int32((Double(height) * scale).rounded()), 0, &out, &message, message.count)
                if rc != 0 { fail("\(files[i]): raw libjpeg-turbo decode failed", status: 66) }
                ccodec_free(out.pixels)
            }
        }
        return (microseconds(clock.now - start) / 1e6, cpuSeconds(RUSAGE_SELF.rawValue) - cpu0)
    }

    let n = Double(urls.count)
    var results: [String: [(wall: Double, cpu: Double)]] = ["pipeline": [], "vips1": [], "vipsN": [], "raw": []]
    let order = ["pipeline", "vips1", "vipsN", "raw"]
    for round in 0..<rounds {
        // Rotate the order each round so drift in machine load hits every contender alike.
        for k in 0..<order.count {
            let name = order[(k + round) % order.count]
            switch name {
            case "pipeline": results[name]!.append(runPipeline())
            case "vips1": results[name]!.append(runVips(processes: 1))
            case "raw": results[name]!.append(runRaw())
            default: results[name]!.append(runVips(processes: cores))
            }
        }
    }

    func median(_ values: [Double]) -> Double { quantile(values.sorted(), 0.5) }
    let rate = { (name: String) -> [Double] in results[name]!.map { n / $0.wall } }
    let cpuPer = { (name: String) -> Double in median(results[name]!.map { $0.cpu / n * 1000 }) }
    // Ratios per round (same moment of machine load), then their median.
    let ratio1 = median(zip(rate("pipeline"), rate("vips1")).map { $0 / $1 })
    let ratioN = median(zip(rate("pipeline"), rate("vipsN")).map { $0 / $1 })
    let ratioRaw = median(zip(rate("pipeline"), rate("raw")).map { $0 / $1 })
    print("<!-- vitrine-bench thumbnails, \(urls.count) files, box \(size.width)x\(size.height) "
        + "(bitmap \(sample.bitmap.width)x\(sample.bitmap.height) from \(sample.sourceWidth)x\(sample.sourceHeight)), "
        + "\(rounds) rounds, \(cores) cores, decode concurrency \(configuration.decodeConcurrency) -->")
    // Cores used = CPU seconds ÷ wall seconds: on this shared machine it shows how much of the
    // two cores each contender got, apart from how much work it does per thumbnail.
    let coresUsed = { (name: String) -> Double in median(results[name]!.map { $0.cpu / $0.wall }) }
    print("| contender | thumbnails/s, median (min-max) | CPU ms per thumbnail | cores used (CPU ÷ wall) | pipeline ÷ this, median per round |")
    print("|---|---|---|---|---|")
    for (name, label, ratio) in [
        ("pipeline", "ImagePipeline, file URLs, all \(urls.count) loads at once", nil),
        ("vips1", "`vipsthumbnail -s \(size.width)x\(size.height)`, one process, all files", ratio1),
        ("vipsN", "the same, \(cores) processes (files split round-robin)", ratioN),
        ("raw", "libjpeg-turbo alone at the same DCT scale, \(cores) threads (the decode limit)", ratioRaw),
    ] as [(String, String, Double?)] {
        let r = rate(name)
        print(String(format: "| %@ | %.1f (%.1f-%.1f) | %.1f | %.2f | %@ |", label, median(r), r.min()!, r.max()!, cpuPer(name),
            coresUsed(name),
            ratio.map { String(format: "%.2f", $0) } ?? "-"))
    }
}

// MARK: calls

/// `vitrine-bench calls BASE [--count N]`: what `load` and `cancel` cost the calling thread (the
/// browser's main thread) for http requests that are then abandoned, as when rows scroll away:
/// loads of BASE/img/I/flags/fr.png (galleryserver.py with a long --delay), one every 20 ms, 14 wanted at
/// once (two pages of look-ahead), the oldest cancelled before each new one. Per-call µs.
func callsBench(_ arguments: [String]) {
    let (options, rest) = parseOptions(arguments, known: ["--count"])
    guard let base = rest.first else { fail("calls needs the server's base URL") }
    let count = intOption(options, "--count", default: 2000)
    let pipeline = ImagePipeline(configuration: .init())
    let clock = ContinuousClock()
    var loads = [Double](), cancels = [Double](), window = [ImagePipeline.Ticket]()
    for i in 0..<count {
        let request = ImageRequest(url: URL(string: "\(base)/img/\(i)/flags/fr.png")!, maxPixelWidth: 32, maxPixelHeight: 16)
        if window.count == 14 {
            let oldest = window.removeFirst()
            cancels.append(microseconds(clock.measure { pipeline.cancel(oldest) }))
        }
        var start: ImagePipeline.LoadStart?
        loads.append(microseconds(clock.measure { start = pipeline.load(request, priority: i) }))
        if case .started(let ticket) = start { window.append(ticket) }
        usleep(20_000)
    }
    for ticket in window { pipeline.cancel(ticket) }
    let stats = pipeline.statistics
    print("<!-- vitrine-bench calls, \(count) http loads, 14 wanted at once, \(stats.fetchesStarted) fetches started, "
        + "\(stats.fetchesCancelled) cancelled, pipeline's own peak in flight \(stats.peakInFlight) -->")
    print("| call on the caller's thread | median µs | p99 µs | max µs |")
    print("|---|---|---|---|")
    for (name, s) in [("`load` (queues; may start a fetch)", loads.sorted()), ("`cancel` (may cancel a fetch and start the next)", cancels.sorted())] {
        print(String(format: "| %@ | %.1f | %.1f | %.1f |", name, quantile(s, 0.5), quantile(s, 0.99), s.last!))
    }
}
