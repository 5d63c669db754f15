import CSixel
import Dispatch
import Foundation
import HalfBlock
import TerminalUI

/// A sixel palette and Vitrine's own sixel encoder for it: the fast path of a pan or zoom step,
/// where libsixel's encoder (its colour lookup, diffusion and band encoding: 100-180 ms for
/// 1200x780 pixels here, docs/PERFORMANCE.md, "sixth part") is too slow for a key; about 0.2x
/// of its time at the same PSNR.
///
/// The palette is chosen for the picture by libsixel's median cut
/// (``init(choosingFor:background:colors:)``, about 1.5 ms); the pixels are mapped to it through
/// a 32x32x32 lookup (5 bits a channel: the nearest colour to each cell's centre, filled as
/// cells are met) after an 8x8 ordered (Bayer) dither of ``ditherAmplitude`` levels, then
/// encoded band by band (``encode(_:background:amplitude:)``), each band's colours in order of
/// use, each pass painting over pixels a later pass draws again where that lengthens its runs
/// (``encodeBandRange(_:width:height:bands:)``). An ordered dither is tied to the
/// pixel's position, not to the pixels before it as error diffusion is, and costs one add a
/// channel.
///
/// The format is DEC's sixel (VT330/VT340 Programmer Reference, "Sixel Graphics"; as libsixel
/// writes it): `DCS q`, raster attributes `"1;1;W;H` (1:1 pixels), colour registers
/// `#n;2;R;G;B` in percent, then for each band of six pixel rows each colour used in it as
/// `#n` and one sixel character a column (`?` plus the six bits, the lowest bit the top row),
/// repeats as `!count char`, `$` back to the band's start for the next colour, `-` to the next
/// band, and `ST`. Bits that are 0 leave what an earlier colour drew; bits that are 1 paint
/// over it.
///
/// Immutable after init: Sendable.
public final class SixelPalette: Sendable {
    /// The colours as the terminal shows them (each channel rounded to a percent and back),
    /// R G B each, `count` of them.
    public let colors: [UInt8]
    /// The colours ordered by green: R, G, B and the colour's index, 4 bytes each (the lookup's
    /// search order).
    let byGreen: [UInt8]
    /// `#n;2;R;G;B` for every colour, in percent: the registers a picture defines.
    let definitions: [UInt8]

    /// The ordered dither's spread, in 8-bit levels: each pixel is offset by -A/2 ..< A/2 (an 8x8
    /// Bayer threshold) before the lookup. On the benchmark's 1200x780 step (docs/PERFORMANCE.md,
    /// "sixth part", PSNR by ImageMagick's decode): 0 scored 33.96 dB in 417 KB but showed
    /// contours in smooth areas, 8 scored 33.48 dB in 626 KB and none, 16 and more lost PSNR
    /// (31.97 dB) and grew the bytes (876 KB); libsixel's Atkinson scored 33.32 dB in 483 KB.
    public static let ditherAmplitude = 8

    /// Number of colours (1-256).
    public var count: Int { colors.count / 3 }

    /// A palette of up to `colors` (1-256) chosen for `image` (alpha composited over
    /// `background`) by libsixel's median cut; nil when libsixel is not available or fails.
    public convenience init?(choosingFor image: RGBAImage, background: RGB, colors: Int = 256) {
        var rgb = SixelPresenter.composite(image, over: background)
        let wanted = min(256, max(1, colors))
        var chosen = [UInt8](repeating: 0, count: wanted * 3)
        let n = rgb.withUnsafeMutableBufferPointer { p in
            chosen.withUnsafeMutableBufferPointer { c in
                csixel_palette(p.baseAddress, Int32(image.width), Int32(image.height), Int32(wanted), c.baseAddress)
            }
        }
        guard n > 0 else { return nil }
        self.init(colors: Array(chosen[0..<(Int(n) * 3)]))
    }

    /// A palette of exactly these colours (R G B each, 1-256 of them; tests).
    public init(colors rgb: [UInt8]) {
        precondition(rgb.count >= 3 && rgb.count <= 768 && rgb.count % 3 == 0, "1-256 RGB colours")
        let n = rgb.count / 3
        var shown = [UInt8](repeating: 0, count: rgb.count)
        var definitions: [UInt8] = []
        for i in 0..<n {
            definitions += Array("#\(i);2".utf8)
            for c in 0..<3 {
                let percent = (Int(rgb[3 * i + c]) * 100 + 127) / 255
                shown[3 * i + c] = UInt8((percent * 255 + 50) / 100)
                definitions += Array(";\(percent)".utf8)
            }
        }
        self.colors = shown
        let order = (0..<n).sorted { (a: Int, b: Int) -> Bool in
            shown[3 * a + 1] != shown[3 * b + 1] ? shown[3 * a + 1] < shown[3 * b + 1] : a < b
        }
        var byGreen: [UInt8] = []
        byGreen.reserveCapacity(4 * n)
        for i in order { byGreen += [shown[3 * i], shown[3 * i + 1], shown[3 * i + 2], UInt8(i)] }
        self.byGreen = byGreen
        self.definitions = definitions
    }

    /// The index of the colour nearest (squared RGB distance) the centre of the 5-bit cell
    /// `key` (`r>>3 << 10 | g>>3 << 5 | b>>3`). `sorted` is the palette ordered by green (R, G,
    /// B, index: 4 bytes each): the search starts at the cell's green and walks both ways,
    /// stopping on a side once the green difference alone is no better than the best found.
    @inline(__always)
    private static func nearest(_ key: Int, _ sorted: UnsafeBufferPointer<UInt8>) -> UInt8 {
        let r = Int32((key >> 10) << 3 | 4), g = Int32(((key >> 5) & 31) << 3 | 4), b = Int32((key & 31) << 3 | 4)
        let n = sorted.count / 4
        // The first entry whose green is at least g.
        var lo = 0, hi = n
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int32(sorted[4 * mid + 1]) < g { lo = mid + 1 } else { hi = mid }
        }
        var best = Int(sorted[4 * min(lo, n - 1) + 3])
        var bestDistance = Int32.max
        var up = lo, down = lo - 1
        while up < n || down >= 0 {
            if up < n {
                let dg = Int32(sorted[4 * up + 1]) - g
                if dg &* dg >= bestDistance {
                    up = n
                } else {
                    let dr = Int32(sorted[4 * up]) - r, db = Int32(sorted[4 * up + 2]) - b
                    let d = dr &* dr &+ dg &* dg &+ db &* db
                    if d < bestDistance {
                        bestDistance = d
                        best = Int(sorted[4 * up + 3])
                    }
                    up += 1
                }
            }
            if down >= 0 {
                let dg = Int32(sorted[4 * down + 1]) - g
                if dg &* dg >= bestDistance {
                    down = -1
                } else {
                    let dr = Int32(sorted[4 * down]) - r, db = Int32(sorted[4 * down + 2]) - b
                    let d = dr &* dr &+ dg &* dg &+ db &* db
                    if d < bestDistance {
                        bestDistance = d
                        best = Int(sorted[4 * down + 3])
                    }
                    down -= 1
                }
            }
        }
        return UInt8(best)
    }

    /// The 8x8 Bayer matrix (0-63).
    private static let bayer: [Int32] = [
        0, 32, 8, 40, 2, 34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26,
        12, 44, 4, 36, 14, 46, 6, 38, 60, 28, 52, 20, 62, 30, 54, 22,
        3, 35, 11, 43, 1, 33, 9, 41, 51, 19, 59, 27, 49, 17, 57, 25,
        15, 47, 7, 39, 13, 45, 5, 37, 63, 31, 55, 23, 61, 29, 53, 21,
    ]

    /// Palette index of every pixel of `image` (alpha composited over `background`), ordered
    /// dither of `amplitude` levels (0: none), rows top first. `origin` (pixels) is where
    /// `image`'s top-left lies in the picture the dither is anchored to: the Bayer tile's
    /// position for pixel (x, y) is ((x + origin.x) mod 8, (y + origin.y) mod 8), so a part of
    /// a larger picture dithered with its offset gets the larger picture's indices (a pan
    /// region's steps, ``SixelRegion``).
    public func indices(
        _ image: RGBAImage, background: RGB, amplitude: Int = ditherAmplitude, origin: (x: Int, y: Int) = (0, 0)
    ) -> [UInt8] {
        let w = image.width, h = image.height
        var out = [UInt8](repeating: 0, count: w * h)
        // Offsets -A/2 ..< A/2 from the Bayer thresholds, per position in the 8x8 tile, applied
        // through a table per position: the 5-bit level of each 8-bit value so offset (clamped
        // to 0-255), 64 x 256 bytes.
        let a = Int32(max(0, amplitude))
        var levels = [UInt8](repeating: 0, count: 64 * 256)
        for (position, threshold) in Self.bayer.enumerated() {
            let offset = (threshold * 2 + 1 - 64) * a / 128
            for v in 0..<256 { levels[position * 256 + v] = UInt8(min(255, max(0, Int32(v) + offset)) >> 3) }
        }
        let bg = (Int32(background.r), Int32(background.g), Int32(background.b))
        // The lookup, filled as cells are met (a photo's picture meets a few thousand of the
        // 32768): 0xFFFF not yet looked up.
        var lookup = [UInt16](repeating: 0xFFFF, count: 32 * 32 * 32)
        image.pixels.withUnsafeBufferPointer { src in
            byGreen.withUnsafeBufferPointer { colors in
                lookup.withUnsafeMutableBufferPointer { lut in
                    levels.withUnsafeBufferPointer { level in
                        out.withUnsafeMutableBufferPointer { dst in
                            let ox = origin.x & 7, oy = origin.y & 7
                            for y in 0..<h {
                                let row = ((y + oy) & 7) << 11
                                var s = y * w * 4
                                var d = y * w
                                for x in 0..<w {
                                    var r = Int32(src[s]), g = Int32(src[s + 1]), b = Int32(src[s + 2])
                                    let alpha = Int32(src[s + 3])
                                    if alpha != 255 {
                                        r = (r * alpha + bg.0 * (255 - alpha) + 127) / 255
                                        g = (g * alpha + bg.1 * (255 - alpha) + 127) / 255
                                        b = (b * alpha + bg.2 * (255 - alpha) + 127) / 255
                                    }
                                    let t = row | ((x + ox) & 7) << 8
                                    let key = Int(level[t | Int(r)]) << 10 | Int(level[t | Int(g)]) << 5 | Int(level[t | Int(b)])
                                    var entry = lut[key]
                                    if entry == 0xFFFF {
                                        entry = UInt16(Self.nearest(key, colors))
                                        lut[key] = entry
                                    }
                                    dst[d] = UInt8(truncatingIfNeeded: entry)
                                    s += 4
                                    d += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// `image` as a complete sixel sequence (`DCS q … ST`, 7-bit) in this palette: mapped by
    /// ``indices(_:background:amplitude:)`` (alpha composited over `background`, sixel has
    /// none; an ordered dither of `amplitude` levels, 0 for none), then encoded band by band. About
    /// 0.45 bytes a pixel on a photo with the default dither (0.3 with none).
    /// `origin`: the dither's anchor, as for ``indices(_:background:amplitude:origin:)``.
    public func encode(
        _ image: RGBAImage, background: RGB, amplitude: Int = ditherAmplitude, origin: (x: Int, y: Int) = (0, 0)
    ) -> [UInt8] {
        Self.encodeBands(
            indices(image, background: background, amplitude: amplitude, origin: origin), width: image.width,
            height: image.height, definitions: definitions)
    }

    /// The sixel sequence of the rectangle `x, y, width, height` (pixels, inside the indices)
    /// of `indices` (this palette's, `stride` pixels a row, rows top first): its rows are
    /// copied out (about 0.1 ms for 1200x780) and encoded as a picture of their own, bands
    /// counted from the rectangle's top row. A pan step from a ``SixelRegion``.
    public func encode(indices: [UInt8], stride: Int, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= stride, "a rectangle inside the rows")
        precondition((y + height) * stride <= indices.count, "a rectangle inside the rows")
        if x == 0 && width == stride && y == 0 && height * stride == indices.count {
            return Self.encodeBands(indices, width: width, height: height, definitions: definitions)
        }
        let cut = [UInt8](unsafeUninitializedCapacity: width * height) { out, initialized in
            indices.withUnsafeBufferPointer { src in
                for row in 0..<height {
                    let from = src.baseAddress! + (y + row) * stride + x
                    (out.baseAddress! + row * width).update(from: from, count: width)
                }
            }
            initialized = width * height
        }
        return Self.encodeBands(cut, width: width, height: height, definitions: definitions)
    }

    /// The sixel sequence of `indices` (this palette's, `width` x `height`, rows top first, as
    /// ``indices(_:background:amplitude:)`` gives), its bands written in up to `parts`
    /// concurrent runs (benchmarks compare them).
    public func encode(indices: [UInt8], width: Int, height: Int, parts: Int) -> [UInt8] {
        Self.encodeBands(indices, width: width, height: height, definitions: definitions, parts: parts)
    }

    /// The sixel sequence of `index` (palette indices, `width` x `height`, rows top first) with
    /// the colour registers `definitions`.
    ///
    /// Each band of six rows is read once into per-colour lists of six-bit column masks, then
    /// written colour by colour, most used first, gaps as `?` (no bit), runs of four or more of
    /// the same character as `!count`, a colour's pass painting over pixels that a later pass
    /// draws again where that makes its runs longer (``encodeBandRange(_:width:height:bands:)``).
    /// The work is linear in the pixels, whatever the number of colours.
    ///
    /// The bands are split into up to `parts` runs of whole bands written concurrently (each
    /// band depends only on its own rows and the palette; the runs are joined with `-`), so a
    /// step takes about 1/`parts` of the time on as many free cores.
    static func encodeBands(
        _ index: [UInt8], width w: Int, height h: Int, definitions: [UInt8], parts: Int = defaultParts
    ) -> [UInt8] {
        let bands = (h + 5) / 6
        // At least 16 bands (96 rows) a part: below that the threads cost more than they save.
        let n = max(1, min(parts, bands / 16))
        var pieces = [[UInt8]](repeating: [], count: n)
        index.withUnsafeBufferPointer { index in
            pieces.withUnsafeMutableBufferPointer { pieces in
                let shared = Parts(index: index, pieces: pieces)
                DispatchQueue.concurrentPerform(iterations: n) { part in
                    let first = bands * part / n, end = bands * (part + 1) / n
                    // Each part writes its own slot and reads the indices only.
                    shared.pieces[part] = encodeBandRange(shared.index, width: w, height: h, bands: first..<end)
                }
            }
        }
        var sequence: [UInt8] = [0x1B, UInt8(ascii: "P"), UInt8(ascii: "q")]
        sequence.reserveCapacity(pieces.reduce(definitions.count + 32) { $0 + $1.count + 1 })
        sequence += Array("\"1;1;\(w);\(h)".utf8)
        sequence += definitions
        for (i, piece) in pieces.enumerated() {
            if i > 0 { sequence.append(UInt8(ascii: "-")) }
            sequence += piece
        }
        sequence += [0x1B, UInt8(ascii: "\\")]
        return sequence
    }

    /// Runs of bands written concurrently by ``encodeBands(_:width:height:definitions:parts:)``:
    /// half the processors the system reports, at most 4, and 1 below 4 processors. On this
    /// 2-core machine, shared (load 4), 2 parts were no faster than 1 (11.8-12.6 against
    /// 8.9-14.9 ms for 1200x780, `vitrine-bench pan-encode`): the main thread and the worker
    /// already want both cores.
    static let defaultParts = {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return cores >= 4 ? min(4, cores / 2) : 1
    }()

    /// The longest gap (columns with none of a colour's pixels) that a colour's pass paints
    /// over to keep its run going, when every pixel it would paint there is drawn again later
    /// by its own colour's pass; longer gaps are written as `!n?`. A longer limit saves a
    /// little more (1200x780 step: 16 columns 521.6 KB, 64 columns 518.7 KB) and checks more.
    static let gapFillLimit = 32

    /// The sixel data of `bands` (6-row bands, 0-based) of `index`, `-` between bands, none
    /// after the last.
    ///
    /// Each band is read once, column by column: every colour in a column's six pixels gets an
    /// entry (the column and a six-bit mask of its pixels), and the entries are sorted by colour
    /// (a counting sort, column order kept). The colours are then written one pass each, the
    /// one with the most entries first. A set bit paints its pixel and a later pass may paint it
    /// again, so a pass may set any bit of a pixel whose own colour comes later (`pending`, per
    /// column: the pixels not yet drawn by their own colour): each character is the previous
    /// one when that covers the colour's pixels and only pending ones, else every pending
    /// pixel of the column (the largest choice, the likeliest to continue), and a gap of up to
    /// ``gapFillLimit`` columns is painted over the same way. Runs get longer and gaps fewer:
    /// the first pass is one run across the band; the picture decodes to the same pixels as
    /// with each colour drawing its own pixels only, in about 0.8x of the bytes (a 1200x780
    /// photo step: 520 KB against 648 KB with the 8-level dither, 337 KB against 430 KB with
    /// none; docs/PERFORMANCE.md, "eighth part, sixel"). It rests on the format's rule that a
    /// set bit paints over what an earlier colour drew (VT330/VT340 Programmer Reference); the
    /// order and the choice of characters are Vitrine's own.
    private static func encodeBandRange(
        _ index: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int, bands: Range<Int>
    ) -> [UInt8] {
        var out = ByteWriter(capacity: w * 6 * bands.count / 3 + 64)
        defer { out.free() }
        let capacity = w * 6
        // Entries in column order (colour apart), then sorted by colour: column << 6 | mask.
        let entryColour = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        let entry = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        let sorted = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        // Per colour: entries in the band, then the next slot while sorting; where its entries
        // start in `sorted`.
        let count = UnsafeMutablePointer<Int32>.allocate(capacity: 256)
        let start = UnsafeMutablePointer<Int32>.allocate(capacity: 257)
        let order = UnsafeMutablePointer<Int>.allocate(capacity: 256)
        // Per column: the pixels not yet drawn by their own colour (bits as in a sixel).
        let pending = UnsafeMutablePointer<UInt8>.allocate(capacity: w)
        defer {
            entryColour.deallocate()
            entry.deallocate()
            sorted.deallocate()
            count.deallocate()
            start.deallocate()
            order.deallocate()
            pending.deallocate()
        }
        count.initialize(repeating: 0, count: 256)
        var y0 = bands.lowerBound * 6
        let end = min(h, bands.upperBound * 6)
        while y0 < end {
            let rows = min(6, h - y0)
            let band = index.baseAddress! + y0 * w
            var n = 0
            if rows == 6 {
                // A whole band (all but maybe the last): the six rows compared directly.
                let row0 = band, row1 = band + w, row2 = band + 2 * w, row3 = band + 3 * w, row4 = band + 4 * w
                let row5 = band + 5 * w
                for x in 0..<w {
                    let c0 = row0[x], c1 = row1[x], c2 = row2[x], c3 = row3[x], c4 = row4[x], c5 = row5[x]
                    let column = UInt32(truncatingIfNeeded: x) << 6
                    var seen: UInt32 = 0
                    var mask: UInt32 = 1
                    if c1 == c0 { mask |= 2 }
                    if c2 == c0 { mask |= 4 }
                    if c3 == c0 { mask |= 8 }
                    if c4 == c0 { mask |= 16 }
                    if c5 == c0 { mask |= 32 }
                    seen |= mask
                    entryColour[n] = c0
                    entry[n] = column | mask
                    count[Int(c0)] &+= 1
                    n &+= 1
                    if seen & 2 == 0 {
                        var mask: UInt32 = 2
                        if c2 == c1 { mask |= 4 }
                        if c3 == c1 { mask |= 8 }
                        if c4 == c1 { mask |= 16 }
                        if c5 == c1 { mask |= 32 }
                        seen |= mask
                        entryColour[n] = c1
                        entry[n] = column | mask
                        count[Int(c1)] &+= 1
                        n &+= 1
                    }
                    if seen & 4 == 0 {
                        var mask: UInt32 = 4
                        if c3 == c2 { mask |= 8 }
                        if c4 == c2 { mask |= 16 }
                        if c5 == c2 { mask |= 32 }
                        seen |= mask
                        entryColour[n] = c2
                        entry[n] = column | mask
                        count[Int(c2)] &+= 1
                        n &+= 1
                    }
                    if seen & 8 == 0 {
                        var mask: UInt32 = 8
                        if c4 == c3 { mask |= 16 }
                        if c5 == c3 { mask |= 32 }
                        seen |= mask
                        entryColour[n] = c3
                        entry[n] = column | mask
                        count[Int(c3)] &+= 1
                        n &+= 1
                    }
                    if seen & 16 == 0 {
                        var mask: UInt32 = 16
                        if c5 == c4 { mask |= 32 }
                        seen |= mask
                        entryColour[n] = c4
                        entry[n] = column | mask
                        count[Int(c4)] &+= 1
                        n &+= 1
                    }
                    if seen & 32 == 0 {
                        entryColour[n] = c5
                        entry[n] = column | 32
                        count[Int(c5)] &+= 1
                        n &+= 1
                    }
                }
            } else {
                for x in 0..<w {
                    // Each new colour in the column collects the rows equal to it.
                    var seen: UInt32 = 0
                    let column = UInt32(x) << 6
                    for i in 0..<rows where seen & (1 << i) == 0 {
                        let c = band[i * w + x]
                        var mask: UInt32 = 1 << i
                        for j in (i + 1)..<max(i + 1, rows) where band[j * w + x] == c { mask |= 1 << j }
                        seen |= mask
                        entryColour[n] = c
                        entry[n] = column | mask
                        count[Int(c)] += 1
                        n += 1
                    }
                }
            }
            var colours = 0
            var total: Int32 = 0
            for c in 0..<256 {
                start[c] = total
                if count[c] > 0 {
                    order[colours] = c
                    colours += 1
                }
                total += count[c]
                count[c] = start[c]
            }
            start[256] = total
            for i in 0..<n {
                let c = Int(entryColour[i])
                sorted[Int(count[c])] = entry[i]
                count[c] += 1
            }
            for c in 0..<256 { count[c] = 0 }
            // The colour with the most entries first (ties: the lower index): sort keys of
            // (inverted entries) << 8 | colour, ascending.
            for i in 0..<colours {
                let c = order[i]
                order[i] = (0xFFFF - Int(start[c + 1] - start[c])) << 8 | c
            }
            var passes = UnsafeMutableBufferPointer(start: order, count: colours)
            passes.sort()
            pending.update(repeating: UInt8((1 << rows) - 1), count: w)
            // At most: per entry two runs flushed (`!NNNN?` and `!NNNNc`, 7 bytes each), per
            // colour `$#NNN` and its last run.
            out.reserve(n * 14 + 256 * 12 + 1)
            for pass in 0..<colours {
                let c = order[pass] & 255
                if pass > 0 { out.append(UInt8(ascii: "$")) }
                out.append(UInt8(ascii: "#"))
                out.appendNumber(c)
                var column = 0
                // The run being written: `bits` (its character less 63) `run` times.
                var bits: UInt8 = 0
                var run = 0
                for k in Int(start[c])..<Int(start[c + 1]) {
                    let x = Int(sorted[k] >> 6)
                    let mask = UInt8(truncatingIfNeeded: sorted[k] & 63)
                    if x > column {
                        var fill = bits != 0 && x - column <= gapFillLimit
                        if fill {
                            for g in column..<x where bits & ~pending[g] != 0 {
                                fill = false
                                break
                            }
                        }
                        if fill {
                            run += x - column
                        } else {
                            out.appendRun(63 + bits, run)
                            bits = 0
                            run = x - column
                        }
                    }
                    let free = pending[x]
                    if bits != 0 && mask & ~bits == 0 && bits & ~free == 0 {
                        run += 1
                    } else {
                        out.appendRun(63 + bits, run)
                        bits = free
                        run = 1
                    }
                    pending[x] = free & ~mask
                    column = x + 1
                }
                out.appendRun(63 + bits, run)
            }
            y0 += 6
            if y0 < end { out.append(UInt8(ascii: "-")) }
        }
        return out.bytes
    }
}

/// The buffers the concurrent parts of ``SixelPalette/encodeBands(_:width:height:definitions:parts:)``
/// share: the indices, read by all, and one result slot per part, written by that part alone.
private struct Parts: @unchecked Sendable {
    let index: UnsafeBufferPointer<UInt8>
    let pieces: UnsafeMutableBufferPointer<[UInt8]>
}

/// A growable byte buffer without `Array`'s per-append checks (room is reserved per band), for
/// the sixel band encoder.
private struct ByteWriter {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    /// Makes room for `more` bytes past the end.
    mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let grown = max(capacity * 2, count + more)
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        new.update(from: base, count: count)
        base.deallocate()
        base = new
        capacity = grown
    }

    /// One byte; room must have been reserved.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    mutating func append(contentsOf bytes: [UInt8]) {
        reserve(bytes.count)
        for b in bytes { append(b) }
    }

    /// The decimal digits of `n` (0 or more; callers reserve 5 bytes a number: a column count
    /// or a colour index).
    @inline(__always)
    mutating func appendNumber(_ n: Int) {
        if n < 10 {
            append(48 &+ UInt8(truncatingIfNeeded: n))
        } else if n < 100 {
            append(48 &+ UInt8(truncatingIfNeeded: n / 10))
            append(48 &+ UInt8(truncatingIfNeeded: n % 10))
        } else if n < 1000 {
            append(48 &+ UInt8(truncatingIfNeeded: n / 100))
            append(48 &+ UInt8(truncatingIfNeeded: n / 10 % 10))
            append(48 &+ UInt8(truncatingIfNeeded: n % 10))
        } else {
            appendDigits(n)
        }
    }

    /// The decimal digits of `n` (1000 or more), kept out of line.
    @inline(never)
    mutating func appendDigits(_ n: Int) {
        var digits: [UInt8] = []
        var v = n
        while v > 0 {
            digits.append(48 &+ UInt8(truncatingIfNeeded: v % 10))
            v /= 10
        }
        for d in digits.reversed() { append(d) }
    }

    /// `run` copies of the sixel character `ch`, as `!run ch` from four on.
    @inline(__always)
    mutating func appendRun(_ ch: UInt8, _ run: Int) {
        guard run > 0 else { return }
        if run >= 4 {
            append(UInt8(ascii: "!"))
            appendNumber(run)
            append(ch)
        } else {
            for _ in 0..<run { append(ch) }
        }
    }

    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    func free() { base.deallocate() }
}
