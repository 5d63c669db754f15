// `vitrine-bench zoom IMAGE [--steps N]`: one zoom or pan step of the full view once the image
// is decoded (docs/PERFORMANCE.md, "Real pixels"): Viewport's frame cut from the in-memory
// decode, then the kitty and sixel presenters' bytes, in 120x40 cells of 10x20 pixels.
import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics

func zoomBench(_ arguments: [String]) {
    var args = arguments[...]
    var path: String?
    var steps = 200
    while let arg = args.popFirst() {
        if arg == "--steps", let n = args.popFirst().flatMap(Int.init), n > 0 { steps = n } else { path = arg }
    }
    guard let path else { fail("usage: vitrine-bench zoom IMAGE [--steps N]") }
    let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 0))
    // The whole image, decoded once (what the full view keeps for 1:1 and beyond).
    let decoded = decode(URL(fileURLWithPath: path), width: 100_000, height: 100_000, pipeline: pipeline).bitmap
    let cell = PixelSize(width: 10, height: 20)
    let context = PresenterContext(cellWidth: 10, cellHeight: 20)
    print("\(path): \(decoded.width)x\(decoded.height) decoded; 120x40 cells of 10x20 px; \(steps) steps each; ms")
    func row(_ name: String, setUp: (inout Viewport) -> Void, step: @escaping (inout Viewport, Int) -> Void) {
        var viewport = Viewport(image: PixelSize(width: decoded.width, height: decoded.height), columns: 120, rows: 40, cell: cell)
        setUp(&viewport)
        var n = 0
        let frameOnly = samples(iterations: steps, warmup: 5) {
            step(&viewport, n)
            n += 1
            sink &+= viewport.frame.pixels(from: decoded, decodedShrink: 1).width
        }
        var kitty = KittyPresenter(context: context)
        let withKitty = samples(iterations: steps, warmup: 5) {
            step(&viewport, n)
            n += 1
            sink &+= kitty.show(viewport.frame.pixels(from: decoded, decodedShrink: 1), in: CellArea(origin: (0, 0), columns: 120, rows: 40)).count
        }
        var sixel = SixelPresenter(context: context)
        let sixelSteps = max(5, steps / 10)
        let withSixel = samples(iterations: sixelSteps, warmup: 2) {
            step(&viewport, n)
            n += 1
            sink &+= sixel.show(viewport.frame.pixels(from: decoded, decodedShrink: 1), in: CellArea(origin: (0, 0), columns: 120, rows: 40)).count
        }
        func ms(_ s: [Double], _ q: Double) -> String { String(format: "%.1f", quantile(s, q) / 1000) }
        print("| \(name) | \(ms(frameOnly, 0.5)) | \(ms(frameOnly, 0.99)) | \(ms(withKitty, 0.5)) | \(ms(withKitty, 0.99)) | \(ms(withSixel, 0.5)) | \(ms(withSixel, 0.99)) |")
    }
    let pan: (inout Viewport, Int) -> Void = { v, n in v.pan(columns: n % 40 < 20 ? 3 : -3, rows: n % 20 < 10 ? 1 : -1) }
    // The in-run reference for the kitty column: Foundation's base64 of the same 1200x800 RGB
    // bytes alone (no chunking), interleaved with the presenter on the same frame.
    do {
        var v = Viewport(image: PixelSize(width: decoded.width, height: decoded.height), columns: 120, rows: 40, cell: cell)
        v.actualSize()
        let frame = v.frame.pixels(from: decoded, decodedShrink: 1)
        var rgb = [UInt8](repeating: 0, count: frame.width * frame.height * 3)
        for i in 0..<(frame.width * frame.height) {
            rgb[3 * i] = frame.pixels[4 * i]
            rgb[3 * i + 1] = frame.pixels[4 * i + 1]
            rgb[3 * i + 2] = frame.pixels[4 * i + 2]
        }
        var kitty = KittyPresenter(context: context)
        var ours: [Double] = [], foundation: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<steps {
            ours.append(microseconds(clock.measure {
                sink &+= kitty.show(frame, in: CellArea(origin: (0, 0), columns: 120, rows: 40)).count
            }))
            foundation.append(microseconds(clock.measure { sink &+= Data(rgb).base64EncodedData().count }))
        }
        ours.sort()
        foundation.sort()
        print(String(format: "kitty bytes for one 1200x800 frame: p50 %.1f ms (p99 %.1f); Foundation base64 of its RGB alone, same run: p50 %.1f ms (p99 %.1f)",
            quantile(ours, 0.5) / 1000, quantile(ours, 0.99) / 1000, quantile(foundation, 0.5) / 1000, quantile(foundation, 0.99) / 1000))
    }
    print("| step | frame pixels p50 | p99 | + kitty bytes p50 | p99 | + sixel bytes p50 | p99 |")
    print("|---|---|---|---|---|---|---|")
    row("pan at 1:1", setUp: { $0.actualSize() }, step: pan)
    row("pan at 2x", setUp: { $0.actualSize(); $0.zoomIn(); $0.zoomIn() }, step: pan)
    row("zoom fit <-> 1/2", setUp: { _ in }, step: { v, n in if n % 2 == 0 { v.zoomIn(); v.zoomIn() } else { v.fit() } })
}
