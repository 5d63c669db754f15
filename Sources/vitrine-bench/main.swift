// vitrine-bench: what the renderer costs the TUI, in microseconds (docs/PERFORMANCE.md, "TUI cost").
//
//   swift run -c release vitrine-bench [IMAGE]
//
// IMAGE (default: mate-backgrounds' nature/LadyBird.jpg, else the demo's sunset.png) is decoded
// once through the real ImagePipeline at the pixel boxes the browser asks for (twice the
// half-block grid: 32x16 pixels for a 16x4-cell thumbnail, 400x240 for a 200x60-cell full view),
// then each stage is timed on that bitmap, many times; the medians and 90th percentiles are
// printed as a Markdown table. Decoding is timed separately (it runs off the UI thread).
import Foundation
import HalfBlock
import ImagePipeline

/// Runs `body` `warmup` times, then `iterations` times, timing each run; returns (median, p90) in µs.
func measure(iterations: Int, warmup: Int = 20, _ body: () -> Void) -> (median: Double, p90: Double) {
    for _ in 0..<warmup { body() }
    let clock = ContinuousClock()
    var samples = [Double]()
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let elapsed = clock.measure(body)
        samples.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
    }
    samples.sort()
    return (samples[samples.count / 2], samples[min(samples.count - 1, samples.count * 9 / 10)])
}

/// Keeps results alive so the optimiser cannot drop the work.
nonisolated(unsafe) var sink = 0

func decode(_ url: URL, width: Int, height: Int, pipeline: ImagePipeline) -> DecodedImage {
    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<DecodedImage, ImagePipeline.Error>?
    pipeline.load(ImageRequest(url: url, maxPixelWidth: width, maxPixelHeight: height), priority: 0) {
        result = $0
        semaphore.signal()
    }
    semaphore.wait()
    switch result! {
    case .success(let image): return image
    case .failure(let error):
        FileHandle.standardError.write(Data("vitrine-bench: \(url.path): \(error)\n".utf8))
        exit(66)
    }
}

let arguments = CommandLine.arguments.dropFirst()
let candidates = [
    "/usr/share/backgrounds/mate/nature/LadyBird.jpg",
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Resources/demo/pictures/sunset.png").standardized.path,
]
guard let path = arguments.first ?? candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
    FileHandle.standardError.write(Data("vitrine-bench: no test image; pass one\n".utf8))
    exit(66)
}
let url = URL(fileURLWithPath: path)
let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 0))

struct Case {
    var name: String
    var columns: Int
    var rows: Int
    var iterations: Int
}
let cases = [
    Case(name: "thumbnail row, 16x4 cells", columns: 16, rows: 4, iterations: 5000),
    Case(name: "full screen, 200x60 cells", columns: 200, rows: 60, iterations: 300),
]

print("<!-- vitrine-bench, \(url.lastPathComponent), \(ProcessInfo.processInfo.activeProcessorCount) cores -->")
print("| what | bitmap | grid | render truecolor | render 256 | render 16 | ANSI text (truecolor) | decode (pipeline, file) |")
print("|---|---|---|---|---|---|---|---|")
for c in cases {
    // The browser's request: twice the half-block grid (ARCHITECTURE.md, step 2).
    let boxWidth = c.columns * 2, boxHeight = c.rows * 4
    let decodeTime = measure(iterations: c.columns > 100 ? 20 : 50, warmup: 2) {
        sink &+= decode(url, width: boxWidth, height: boxHeight, pipeline: pipeline).bitmap.width
    }
    let image = decode(url, width: boxWidth, height: boxHeight, pipeline: pipeline)
    let fitted = HalfBlockRenderer.fittedSize(
        imageWidth: image.sourceWidth, imageHeight: image.sourceHeight, maxColumns: c.columns, maxRows: c.rows)
    var cells: [String] = []
    for mode in [ColorMode.truecolor, .palette256, .palette16] {
        let options = RenderOptions(colorMode: mode)
        let t = measure(iterations: c.iterations) {
            sink &+= HalfBlockRenderer.render(image.bitmap, columns: fitted.columns, rows: fitted.rows, options: options).cells.count
        }
        cells.append(String(format: "%.0f µs (p90 %.0f)", t.median, t.p90))
    }
    let grid = HalfBlockRenderer.render(image.bitmap, columns: fitted.columns, rows: fitted.rows, options: RenderOptions())
    let text = measure(iterations: c.iterations) { sink &+= ANSIWriter.bytes(for: grid, colorMode: .truecolor).count }
    print("| \(c.name) | \(image.bitmap.width)x\(image.bitmap.height) | \(fitted.columns)x\(fitted.rows) | "
        + cells.joined(separator: " | ")
        + String(format: " | %.0f µs (p90 %.0f) | %.2f ms (p90 %.2f) |", text.median, text.p90, decodeTime.median / 1000, decodeTime.p90 / 1000))
}
if sink == 42 { print("") }
