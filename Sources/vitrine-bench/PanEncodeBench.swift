// `vitrine-bench pan-encode IMAGE [--steps N] [--dump DIR] [--region-pixels N]`: the encode of one pan step at 1:1
// for sixel and iTerm2 (docs/PERFORMANCE.md, "The browser's full view", sixth part), in 120x40
// cells of 10x20 pixels (1200x780 a picture), each way interleaved step by step: libsixel (the
// fit's encoder) against Vitrine's own (a palette chosen for each step, or the first step's
// kept), and the iTerm2 sequences (PNG, and JPEG at several settings). `--dump DIR`
// writes the first step's pixels (`frame.rgba`, raw) and each encoder's output, for a PSNR
// scored by ImageMagick outside (the unit tests do the same on a small picture). Times are wall
// and process CPU. The sixel pan region (`SixelRegion`, as the browser makes it past the fit):
// its making, once (and its parts alone), and a step from it (`--region-pixels`: another cap
// than the browser's); `--dump` adds `region/`: nine steps across the region
// (its corners, edges and centre), each as the region's picture, with its own palette, and
// through libsixel (the candidates for the picture left once the keys stop).
import Foundation
import Browse
import HalfBlock
import ImagePipeline
import TerminalGraphics

func panEncodeBench(_ arguments: [String]) {
    var args = arguments[...]
    var path: String?
    var dump: String?
    var steps = 20
    var regionPixels = ImageView.maxSixelRegionPixels
    while let arg = args.popFirst() {
        if arg == "--steps", let n = args.popFirst().flatMap(Int.init), n > 0 {
            steps = n
        } else if arg == "--region-pixels", let n = args.popFirst().flatMap(Int.init), n > 0 {
            regionPixels = n
        } else if arg == "--dump" {
            dump = args.popFirst()
        } else {
            path = arg
        }
    }
    guard let path else { fail("usage: vitrine-bench pan-encode IMAGE [--steps N] [--dump DIR] [--region-pixels N]") }
    let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 0))
    let decoded = decode(URL(fileURLWithPath: path), width: 100_000, height: 100_000, pipeline: pipeline).bitmap
    let size = PixelSize(width: decoded.width, height: decoded.height)
    var viewport = Viewport(image: size, columns: 120, rows: 39, cell: PixelSize(width: 10, height: 20))
    viewport.actualSize()
    let background = RGB(0, 0, 0)
    // The first step's palette, kept for the later ones (the alternative to a palette a step).
    var firstPalette: SixelPalette?
    let context = PresenterContext(cellWidth: 10, cellHeight: 20)
    let fast = PictureEncoder(.sixel, context: context, fastSixel: true)
    let iterm = PictureEncoder(.iterm, context: context)
    let itermJPEG = PictureEncoder(.iterm, context: context, itermJPEG: true)
    var times: [String: [Double]] = [:]
    var bytes: [String: [Int]] = [:]
    // CPU time of the process (all threads) as well: on a loaded machine the wall time
    // follows the other processes, the CPU time much less.
    var cpu: [String: [Double]] = [:]
    let clock = ContinuousClock()
    func processCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1e6 + Double(t.tv_nsec) / 1e3
    }
    func timed(_ name: String, _ body: () -> Int) {
        var n = 0
        let before = processCPU()
        times[name, default: []].append(microseconds(clock.measure { n = body() }))
        cpu[name, default: []].append(processCPU() - before)
        bytes[name, default: []].append(n)
    }
    print("\(path): \(decoded.width)x\(decoded.height) decoded; pan steps at 1:1 in 120x39 cells of 10x20 px; \(steps) steps; ms")
    for n in 0..<steps {
        viewport.pan(columns: n % 8 < 4 ? 15 : -15, rows: n % 4 < 2 ? 2 : -2)
        let frame = viewport.frame.pixels(from: decoded, imageSize: size)
        if n == 0, let dump {
            try? FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: dump + "/frame.rgba", contents: Data(frame.pixels))
            print("frame \(frame.width)x\(frame.height)")
            FileManager.default.createFile(atPath: dump + "/libsixel.six", contents: Data(SixelPresenter.encode(frame, background: background)))
            if let palette = SixelPalette(choosingFor: frame, background: background) {
                FileManager.default.createFile(atPath: dump + "/palette.rgb", contents: Data(palette.colors))
                for amplitude in [0, 8, 16, 24, 32] {
                    FileManager.default.createFile(
                        atPath: dump + "/fixed-\(amplitude).six",
                        contents: Data(palette.encode(frame, background: background, amplitude: amplitude)))
                }
            }
        }
        if n == 3, let dump, let palette = firstPalette {
            // A later step in the first step's palette, against libsixel's palette for itself.
            let later = dump + "/step3"
            try? FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: later + "/frame.rgba", contents: Data(frame.pixels))
            FileManager.default.createFile(atPath: later + "/libsixel.six", contents: Data(SixelPresenter.encode(frame, background: background)))
            FileManager.default.createFile(atPath: later + "/fixed-first-palette.six", contents: Data(palette.encode(frame, background: background)))
            if let own = SixelPalette(choosingFor: frame, background: background) {
                FileManager.default.createFile(atPath: later + "/fixed-own-palette.six", contents: Data(own.encode(frame, background: background)))
            }
        }
        timed("sixel: libsixel") { SixelPresenter.encode(frame, background: background).count }
        timed("sixel: Vitrine (palette a step)") { fast.encode(frame).byteCount }
        timed("sixel: palette alone (libsixel's median cut)") { SixelPalette(choosingFor: frame, background: background)?.count ?? 0 }
        timed("iTerm2") { iterm.encode(frame).byteCount }
        timed("iTerm2: PNG alone (libpng full API, RGB, Up, Z_RLE 1)") { PNG.encodeFast(frame, opaque: true)?.count ?? 0 }
        timed("iTerm2: PNG alone (simplified API, RGBA, FLAG_FAST, as before)") { PNG.encode(frame)?.count ?? 0 }
        timed("iTerm2: JPEG step (q\(JPEG.panQuality) \(JPEG.panSubsample ? "4:2:0" : "4:4:4"), sequence)") { itermJPEG.encode(frame).byteCount }
        for (quality, subsample, fastDCT) in [(85, false, false), (90, false, false), (90, false, true), (90, true, false), (95, false, false)] {
            let name = "iTerm2: JPEG alone q\(quality) \(subsample ? "4:2:0" : "4:4:4")\(fastDCT ? " fast DCT" : "")"
            timed(name) { JPEG.encode(frame, quality: quality, subsample: subsample, fastDCT: fastDCT)?.count ?? 0 }
            if n == 0, let dump, let jpeg = JPEG.encode(frame, quality: quality, subsample: subsample, fastDCT: fastDCT) {
                _ = FileManager.default.createFile(
                    atPath: dump + "/q\(quality)-\(subsample ? "420" : "444")\(fastDCT ? "-fast" : "").jpg", contents: Data(jpeg))
            }
        }
        if firstPalette == nil { firstPalette = SixelPalette(choosingFor: frame, background: background) }
        if let palette = firstPalette {
            timed("sixel: the first step's palette kept") { palette.encode(frame, background: background).count }
            timed("sixel: mapping alone (kept palette)") { palette.indices(frame, background: background).count }
            let index = palette.indices(frame, background: background)
            timed("sixel: bands alone, 1 part") {
                palette.encode(indices: index, width: frame.width, height: frame.height, parts: 1).count
            }
            timed("sixel: bands alone, 2 parts") {
                palette.encode(indices: index, width: frame.width, height: frame.height, parts: 2).count
            }
        }
    }
    // The pan region (Browse.ImageView.maxSixelRegionPixels around the view, as the browser
    // makes it): made once, then each step only the band encoder over its indices.
    var regionViewport = Viewport(image: size, columns: 120, rows: 39, cell: PixelSize(width: 10, height: 20))
    regionViewport.actualSize()
    let regionFrame = regionViewport.panRegion(maxPixels: regionPixels)
    var region: SixelRegion?
    for _ in 0..<5 {
        timed("sixel region: made once (cut, median cut, dither and lookup of \(regionFrame.display.width)x\(regionFrame.display.height))") {
            region = SixelRegion(pixels: regionFrame.pixels(from: decoded, imageSize: size), background: background)
            return region?.indices.count ?? 0
        }
    }
    let regionPicture = regionFrame.pixels(from: decoded, imageSize: size)
    for _ in 0..<5 {
        timed("sixel region, part: the cut alone") { regionFrame.pixels(from: decoded, imageSize: size).width }
        timed("sixel region, part: the median cut alone") { SixelPalette(choosingFor: regionPicture, background: background)?.count ?? 0 }
        if let region {
            timed("sixel region, part: dither and lookup alone") { region.palette.indices(regionPicture, background: background).count }
        }
    }
    if let region {
        for n in 0..<steps {
            regionViewport.pan(columns: n % 8 < 4 ? 15 : -15, rows: n % 4 < 2 ? 2 : -2)
            guard let rect = regionViewport.sourceRect(in: regionFrame) else { continue }
            timed("sixel region: a step (bands of the visible rectangle)") { fast.encode(region: region, rect: rect).byteCount }
        }
        if let dump {
            // Steps across the region (its corners, its edges' middles, its centre): the
            // region's picture against one with the step's own palette, for PSNR outside.
            let w = regionViewport.frame.display.width, h = regionViewport.frame.display.height
            let dir = dump + "/region"
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (i, (fx, fy)) in [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2), (1, 2), (2, 2)].enumerated() {
                let x = (region.width - w) * fx / 2, y = (region.height - h) * fy / 2
                let rect = Viewport.PixelRect(x: x, y: y, width: w, height: h)
                var pixels = [UInt8]()
                for row in y..<(y + h) {
                    pixels += regionPicture.pixels[((row * region.width + x) * 4)..<((row * region.width + x + w) * 4)]
                }
                let step = RGBAImage(width: w, height: h, pixels: pixels)
                FileManager.default.createFile(atPath: dir + "/step\(i).rgba", contents: Data(pixels))
                FileManager.default.createFile(atPath: dir + "/step\(i)-region.six", contents: Data(region.sixel(rect)))
                // libsixel whole (the fit's encoder): the other candidate for the settled picture.
                FileManager.default.createFile(
                    atPath: dir + "/step\(i)-libsixel.six", contents: Data(SixelPresenter.encode(step, background: background)))
                if let own = SixelPalette(choosingFor: step, background: background) {
                    FileManager.default.createFile(
                        atPath: dir + "/step\(i)-own.six", contents: Data(own.encode(step, background: background, origin: (x, y))))
                }
            }
            print("region \(region.width)x\(region.height), steps \(w)x\(h) in \(dir)")
        }
    }
    print("| encoder | p50 ms | p99 ms | CPU p50 ms | bytes p50 |")
    print("|---|---|---|---|---|")
    for name in times.keys.sorted() {
        let t = times[name]!.sorted(), c = cpu[name]!.sorted(), b = bytes[name]!.sorted()
        print(
            String(
                format: "| %@ | %.1f | %.1f | %.1f | %d |", name, quantile(t, 0.5) / 1000, quantile(t, 0.99) / 1000,
                quantile(c, 0.5) / 1000, b[b.count / 2]))
    }
}
