/// A bitmap of premultiplied linear-light RGBA, 4 Floats per pixel (0...1), row-major.
///
/// The output of ``BoxFilter``: what compositing, quantising and cell building read.
struct LinearImage {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// `width * height * 4` Floats: premultiplied R, G, B (linear light) and alpha.
    var pixels: [Float]

    /// The premultiplied RGBA of the pixel at `x`, `y`.
    subscript(x: Int, y: Int) -> SIMD4<Float> {
        let i = (y * width + x) * 4
        return SIMD4(pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}

/// The weights of an exact area-average (box) filter that maps `inputLength` pixels onto
/// `outputLength` pixels along one axis.
///
/// Output pixel `o` covers the input interval `[o * n / m, (o + 1) * n / m)`; each input pixel
/// it touches weighs the length it has inside that interval (fractional at the edges), divided
/// by the interval's length `n / m`, so each output's weights sum to 1. Computed in integers
/// (units of `1 / m` input pixels), so they are exact before the final division. The same
/// formula upscales: an output pixel then lies inside one input pixel or straddles two.
struct BoxWeights {
    /// First input index each output pixel reads.
    private(set) var first: [Int] = []
    /// Offset of each output pixel's weights in `weights`; one extra entry at the end.
    private(set) var offsets: [Int] = [0]
    /// All weights, output after output.
    private(set) var weights: [Float] = []

    init(inputLength n: Int, outputLength m: Int) {
        precondition(n > 0 && m > 0, "box filter lengths must be positive")
        first.reserveCapacity(m)
        offsets.reserveCapacity(m + 1)
        weights.reserveCapacity(n + m)
        for o in 0..<m {
            let start = o * n, end = (o + 1) * n          // in units of 1/m input pixel
            let firstInput = start / m
            let lastInput = (end - 1) / m
            first.append(firstInput)
            for k in firstInput...lastInput {
                let covered = min(end, (k + 1) * m) - max(start, k * m)
                weights.append(Float(Double(covered) / Double(n)))
            }
            offsets.append(weights.count)
        }
    }
}

/// Resizes 8-bit sRGB RGBA with an exact area-average (box) filter, premultiplied and in linear
/// light.
///
/// Two separable passes with precomputed ``BoxWeights``: horizontal first, then vertical, one
/// output row at a time, streaming (each input row is filtered horizontally when the first
/// output row that needs it is made; only that one narrow row is kept). Each input row is converted once into
/// premultiplied linear (R, G, B, alpha) vectors: bytes become linear light through the
/// 256-entry IEC 61966-2-1 table and are multiplied by alpha before any averaging, so a fully
/// transparent pixel contributes nothing, whatever colour it hides. Both passes then cost one
/// 4-wide multiply-add per weight.
///
/// Two outputs: ``resize(_:width:height:)`` keeps the floats for the renderer;
/// ``resizeRGBA(_:width:height:toWidth:toHeight:)`` encodes back to bytes for the image
/// pipeline, which shrinks PNG and GIF images that libvips decoded whole.
package enum BoxFilter {
    /// `image` resized to `width` x `height` pixels (both at least 1).
    static func resize(_ image: RGBAImage, width: Int, height: Int) -> LinearImage {
        image.pixels.withUnsafeBufferPointer { src in
            let base = src.baseAddress!
            let stride = image.width * 4
            precondition(src.count == image.width * image.height * 4, "input must hold width * height * 4 bytes")
            return resize(inputWidth: image.width, inputHeight: image.height, width: width, height: height) { y in
                UnsafePointer(base + y * stride)
            }!
        }
    }

    /// `source` resized to `width` x `height` pixels (both at least 1), its rows read top to
    /// bottom, each once, as the filter reaches them: the whole image is never held. Nil when
    /// the source fails (`next` returns false).
    static func resize(_ source: RGBARowSource, width: Int, height: Int) -> LinearImage? {
        readingRows(source) { rowAt in
            resize(inputWidth: source.width, inputHeight: source.height, width: width, height: height, rowAt: rowAt)
        }
    }

    /// `body` given a `rowAt` over `source`: row y is read into one `source.width * 4`-byte
    /// buffer when asked, nil when the source fails. The filter asks for rows in order, each
    /// once (see `average`); anything else is a programming error.
    private static func readingRows<T>(
        _ source: RGBARowSource, _ body: (_ rowAt: (Int) -> UnsafePointer<UInt8>?) -> T
    ) -> T {
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: source.width * 4)
        defer { row.deallocate() }
        var expected = 0
        return body { y in
            precondition(y == expected, "rows are read in order")
            expected += 1
            return source.next(row) ? UnsafePointer(row) : nil
        }
    }

    private static func resize(
        inputWidth: Int, inputHeight: Int, width: Int, height: Int, rowAt: (Int) -> UnsafePointer<UInt8>?
    ) -> LinearImage? {
        var failed = false
        let out = [Float](unsafeUninitializedCapacity: width * height * 4) { out, count in
            failed = !average(rowAt, width: inputWidth, height: inputHeight, toWidth: width, toHeight: height) { o, sums in
                var i = o * width * 4
                for v in sums {
                    out[i] = v.x
                    out[i + 1] = v.y
                    out[i + 2] = v.z
                    out[i + 3] = v.w
                    i += 4
                }
            }
            if failed { out.initialize(repeating: 0) }
            count = width * height * 4
        }
        return failed ? nil : LinearImage(width: width, height: height, pixels: out)
    }

    /// Area-averages an 8-bit sRGB RGBA bitmap to `toWidth` x `toHeight` pixels of the same
    /// format: the exact area average in linear light, premultiplied by alpha, encoded back.
    ///
    /// - Parameters:
    ///   - pixels: `width * height * 4` bytes, row-major, top row first, R G B A per pixel,
    ///     sRGB-encoded colour with straight (not premultiplied) alpha; both sizes at least 1.
    ///   - toWidth: output width in pixels, at least 1 (usually at most `width`: a shrink).
    ///   - toHeight: output height in pixels, at least 1.
    /// - Returns: a `toWidth` x `toHeight` ``RGBAImage``, 8-bit sRGB with straight alpha. Alpha
    ///   is the mean coverage (0...1) times 255, rounded to nearest, ties to even; colour is
    ///   the premultiplied linear mean divided by that coverage, encoded to the nearest 8-bit
    ///   sRGB code (``LinearLight/encode8(_:buckets:thresholds:)``). An output pixel whose alpha
    ///   rounds to 0 is (0, 0, 0, 0), so colours hidden under transparency never show.
    package static func resizeRGBA(
        _ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, toWidth: Int, toHeight: Int
    ) -> RGBAImage {
        precondition(pixels.count == width * height * 4, "input must hold width * height * 4 bytes")
        let src = pixels.baseAddress!
        return resizeRGBA(inputWidth: width, inputHeight: height, toWidth: toWidth, toHeight: toHeight) { y in
            src + y * width * 4
        }!
    }

    /// `source` area-averaged to `toWidth` x `toHeight` pixels, as
    /// ``resizeRGBA(_:width:height:toWidth:toHeight:)`` (the same bytes), its rows read top to
    /// bottom, each once, as the filter reaches them: the whole image is never held (one
    /// `source.width * 4`-byte row and the filter's `source.width * 16`-byte line). Nil when
    /// the source fails (`next` returns false).
    package static func resizeRGBA(_ source: RGBARowSource, toWidth: Int, toHeight: Int) -> RGBAImage? {
        readingRows(source) { rowAt in
            resizeRGBA(inputWidth: source.width, inputHeight: source.height, toWidth: toWidth, toHeight: toHeight, rowAt: rowAt)
        }
    }

    private static func resizeRGBA(
        inputWidth width: Int, inputHeight height: Int, toWidth: Int, toHeight: Int,
        rowAt: (Int) -> UnsafePointer<UInt8>?
    ) -> RGBAImage? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: toWidth * toHeight * 4) { out, count in
            LinearLight.buckets.withUnsafeBufferPointer { buckets in
                LinearLight.thresholds.withUnsafeBufferPointer { thresholds in
                    let base = out.baseAddress!
                    failed = !average(rowAt, width: width, height: height, toWidth: toWidth, toHeight: toHeight) { o, sums in
                        var q = base + o * toWidth * 4
                        for v in sums {
                            let a = v.w
                            let alpha = (a * 255).rounded(.toNearestOrEven)
                            if alpha > 0 && a > 0 {
                                q[0] = LinearLight.encode8(v.x / a, buckets: buckets, thresholds: thresholds)
                                q[1] = LinearLight.encode8(v.y / a, buckets: buckets, thresholds: thresholds)
                                q[2] = LinearLight.encode8(v.z / a, buckets: buckets, thresholds: thresholds)
                                q[3] = UInt8(min(alpha, 255))
                            } else {
                                q[0] = 0
                                q[1] = 0
                                q[2] = 0
                                q[3] = 0
                            }
                            q += 4
                        }
                    }
                }
            }
            if failed { out.initialize(repeating: 0) }
            count = toWidth * toHeight * 4
        }
        return failed ? nil : RGBAImage(width: toWidth, height: toHeight, pixels: bytes)
    }

    /// The two passes over `src` (`width * height * 4` bytes of sRGB RGBA, straight alpha):
    /// calls `row(o, sums)` for each output row `o` in order, with `sums` holding `toWidth`
    /// premultiplied linear (R, G, B, alpha) means, valid only during the call.
    ///
    /// Streams: output rows are made in order, and the input rows each needs are filtered
    /// horizontally as it reaches them, into one row buffer. Consecutive output rows share at
    /// most their boundary input row (shrinking) or the same rows (enlarging), and that row is
    /// the one still in the buffer, so every input row is filtered once. Before, all `height`
    /// filtered rows were kept (`inH * toWidth * 16` bytes: 640 KiB and 160 page faults for a
    /// 512x512 image at 80 columns). The sums are the same, in the same order.
    @inline(__always)
    private static func average(
        _ rowAt: (Int) -> UnsafePointer<UInt8>?, width inW: Int, height inH: Int, toWidth width: Int, toHeight height: Int,
        row body: (Int, UnsafeBufferPointer<SIMD4<Float>>) -> Void
    ) -> Bool {
        precondition(width > 0 && height > 0, "output size must be positive")
        precondition(inW > 0 && inH > 0, "input must have at least one pixel")
        let xw = BoxWeights(inputLength: inW, outputLength: width)
        let yw = BoxWeights(inputLength: inH, outputLength: height)
        let alphaScale: [Float] = (0..<256).map { Float($0) / 255 }
        // One input row as premultiplied linear (R, G, B, alpha): written as Floats (scalar
        // stores are cheaper than assembling vectors without SSE4.1), read as SIMD4 vectors.
        let line = UnsafeMutableRawPointer.allocate(byteCount: inW * MemoryLayout<SIMD4<Float>>.stride, alignment: 16)
        let filtered = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: width)
        let sums = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: width)
        defer {
            line.deallocate()
            filtered.deallocate()
            sums.deallocate()
        }

        return LinearLight.table.withUnsafeBufferPointer { lin in
            alphaScale.withUnsafeBufferPointer { alpha in
                xw.first.withUnsafeBufferPointer { xFirst in
                    xw.offsets.withUnsafeBufferPointer { xOffsets in
                        xw.weights.withUnsafeBufferPointer { xWeights in
                            yw.first.withUnsafeBufferPointer { yFirst in
                                yw.offsets.withUnsafeBufferPointer { yOffsets in
                                    yw.weights.withUnsafeBufferPointer { yWeights in
                                        let lineFloats = line.bindMemory(to: Float.self, capacity: inW * 4)
                                        // Input row `y` converted into `line`, then to `width`
                                        // pixels of `filtered` (the horizontal pass).
                                        func filterRow(_ y: Int) -> Bool {
                                            guard var p = rowAt(y) else { return false }
                                            var l = lineFloats
                                            for _ in 0..<inW {
                                                let a = alpha[Int(p[3])]
                                                l[0] = a * lin[Int(p[0])]
                                                l[1] = a * lin[Int(p[1])]
                                                l[2] = a * lin[Int(p[2])]
                                                l[3] = a
                                                p += 4
                                                l += 4
                                            }
                                            var k = 0
                                            for o in 0..<width {
                                                var sum = SIMD4<Float>()
                                                var q = line + xFirst[o] * MemoryLayout<SIMD4<Float>>.stride
                                                let end = xOffsets[o + 1]
                                                while k < end {
                                                    sum += xWeights[k] * q.load(as: SIMD4<Float>.self)
                                                    q += MemoryLayout<SIMD4<Float>>.stride
                                                    k += 1
                                                }
                                                filtered[o] = sum
                                            }
                                            return true
                                        }
                                        // The vertical pass, one output row at a time.
                                        var inBuffer = -1
                                        for o in 0..<height {
                                            sums.update(repeating: SIMD4())
                                            var y = yFirst[o]
                                            for k in yOffsets[o]..<yOffsets[o + 1] {
                                                if y != inBuffer {
                                                    if !filterRow(y) { return false }
                                                    inBuffer = y
                                                }
                                                let w = yWeights[k]
                                                for x in 0..<width {
                                                    sums[x] += w * filtered[x]
                                                }
                                                y += 1
                                            }
                                            body(o, UnsafeBufferPointer(sums))
                                        }
                                        return true
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
