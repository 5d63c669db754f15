// `vitrine-bench [render] [IMAGE]`: what the renderer costs the TUI, in microseconds
// (docs/PERFORMANCE.md, "TUI cost").
//
// IMAGE (default: mate-backgrounds' nature/LadyBird.jpg, else the demo's sunset.png) is decoded
// once through the real ImagePipeline at the pixel boxes the browser asks for (twice the
// half-block grid: 32x16 pixels for a 16x4-cell thumbnail, 400x240 for a 200x60-cell full view),
// then each stage is timed on that bitmap, many times; the medians and 90th percentiles are
// printed as a Markdown table. Decoding is timed separately (it runs off the UI thread).
import Foundation
import HalfBlock
import ImagePipeline

func renderBench(_ arguments: [String]) {
    let path = arguments.first ?? defaultImagePath()
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
}
