// `vitrine-bench kitty-region IMAGE [--regions N]`: what the worker spends on one kitty pan
// region at 1:1 (docs/PERFORMANCE.md, "The browser's full view", eighth part), in 120x39 cells
// of 10x20 pixels: the region (`Viewport.panRegion`, at most 8 million pixels, as the full
// view asks) cut from the decode, then encoded for the direct path (base64 chunks, `t=d`) or
// copied into a shared memory object (`t=s`), the two interleaved region by region. The
// shared memory objects are unlinked after each (no terminal reads them here).
import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI

func kittyRegionBench(_ arguments: [String]) {
    var args = arguments[...]
    var path: String?
    var regions = 15
    while let arg = args.popFirst() {
        if arg == "--regions", let n = args.popFirst().flatMap(Int.init), n > 0 { regions = n } else { path = arg }
    }
    guard let path else { fail("usage: vitrine-bench kitty-region IMAGE [--regions N]") }
    let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 0))
    let decoded = decode(URL(fileURLWithPath: path), width: 100_000, height: 100_000, pipeline: pipeline).bitmap
    let size = PixelSize(width: decoded.width, height: decoded.height)
    var viewport = Viewport(image: size, columns: 120, rows: 39, cell: PixelSize(width: 10, height: 20))
    viewport.actualSize()
    let context = PresenterContext(cellWidth: 10, cellHeight: 20)
    let direct = PictureEncoder(.kitty, context: context)
    var shared = direct
    shared.sharedMedium = .sharedMemory
    var times: [String: [Double]] = [:]
    var bytes: [String: Int] = [:]
    let clock = ContinuousClock()
    var region = PixelSize(width: 0, height: 0)
    for n in 0..<regions {
        viewport.pan(columns: n % 4 < 2 ? 40 : -40, rows: 0)
        let frame = viewport.panRegion(maxPixels: 8_000_000)
        for (name, encoder) in n % 2 == 0 ? [("direct", direct), ("shared", shared)] : [("shared", shared), ("direct", direct)] {
            var cut = RGBAImage(width: 1, height: 1, pixels: [0, 0, 0, 0])
            times["\(name): cut", default: []].append(microseconds(clock.measure { cut = frame.pixels(from: decoded, imageSize: size) }))
            region = PixelSize(width: cut.width, height: cut.height)
            var picture: EncodedPicture?
            times["\(name): encode", default: []].append(microseconds(clock.measure { picture = encoder.encode(cut) }))
            var presenter = KittyPresenter(context: context)
            bytes[name] = presenter.transmitOnly(picture!).bytes.count
            KittySharedObject.unlinkOutstanding()
            if name == "shared" {
                // The object alone: create, size, map, copy the rows, unmap (no opacity scan).
                let n = cut.width * cut.height * 4
                times["object: create+copy", default: []].append(microseconds(clock.measure {
                    _ = KittySharedObject(medium: .sharedMemory, byteCount: n) { out in
                        cut.pixels.withUnsafeBytes { out.copyMemory(from: $0) }
                    }
                }))
                times["object: write", default: []].append(microseconds(clock.measure {
                    _ = cut.pixels.withUnsafeBytes { KittySharedObject(medium: .sharedMemory, copying: $0) }
                }))
            }
        }
    }
    print("\(path): \(decoded.width)x\(decoded.height); kitty pan regions at 1:1 in 120x39 cells of 10x20 px, "
        + "region \(region.width)x\(region.height); \(regions) regions, interleaved; ms")
    for name in ["direct", "shared"] {
        let cut = times["\(name): cut"]!.sorted(), enc = times["\(name): encode"]!.sorted()
        let total = zip(times["\(name): cut"]!, times["\(name): encode"]!).map { $0 + $1 }.sorted()
        print(String(format: "  %-7@ cut p50 %6.1f  encode p50 %6.1f  cut+encode p50 %6.1f max %6.1f  escape bytes %d",
            name as NSString, cut[cut.count / 2] / 1000, enc[enc.count / 2] / 1000, total[total.count / 2] / 1000,
            total.last! / 1000, bytes[name] ?? 0))
    }
    let object = times["object: create+copy"]!.sorted()
    let written = times["object: write"]!.sorted()
    print(String(format: "  shared memory object alone, create to unlink: mmap+memcpy p50 %6.1f, write(2) p50 %6.1f",
        object[object.count / 2] / 1000, written[written.count / 2] / 1000))
}
