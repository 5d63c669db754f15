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

/// Resizes an ``RGBAImage`` to a ``LinearImage`` with an exact area-average (box) filter,
/// premultiplied and in linear light.
///
/// Two separable passes with precomputed ``BoxWeights``: horizontal first (each input row is
/// read once, sequentially, with the sums kept in registers), then vertical on the narrow
/// intermediate. Bytes become linear light through the 256-entry IEC 61966-2-1 table and are
/// premultiplied by alpha before any averaging, so a fully transparent pixel contributes nothing,
/// whatever colour it hides. Cost: about one multiply-add per channel per input pixel.
enum BoxFilter {
    /// `image` resized to `width` x `height` pixels (both at least 1).
    static func resize(_ image: RGBAImage, width: Int, height: Int) -> LinearImage {
        precondition(width > 0 && height > 0, "output size must be positive")
        let inW = image.width, inH = image.height
        let xw = BoxWeights(inputLength: inW, outputLength: width)
        let yw = BoxWeights(inputLength: inH, outputLength: height)
        let alphaScale: [Float] = (0..<256).map { Float($0) / 255 }

        // Pass 1: every input row to `width` premultiplied linear pixels.
        var rows = [Float](repeating: 0, count: inH * width * 4)
        image.pixels.withUnsafeBufferPointer { src in
            LinearLight.table.withUnsafeBufferPointer { lin in
                alphaScale.withUnsafeBufferPointer { alpha in
                    xw.first.withUnsafeBufferPointer { first in
                        xw.offsets.withUnsafeBufferPointer { offsets in
                            xw.weights.withUnsafeBufferPointer { weights in
                                rows.withUnsafeMutableBufferPointer { dst in
                                    for y in 0..<inH {
                                        let rowBase = y * inW * 4
                                        var d = y * width * 4
                                        for o in 0..<width {
                                            var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                                            var p = rowBase + first[o] * 4
                                            for k in offsets[o]..<offsets[o + 1] {
                                                let wa = weights[k] * alpha[Int(src[p + 3])]
                                                r += wa * lin[Int(src[p])]
                                                g += wa * lin[Int(src[p + 1])]
                                                b += wa * lin[Int(src[p + 2])]
                                                a += wa
                                                p += 4
                                            }
                                            dst[d] = r
                                            dst[d + 1] = g
                                            dst[d + 2] = b
                                            dst[d + 3] = a
                                            d += 4
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }

        // Pass 2: columns of the intermediate to `height` rows.
        let stride = width * 4
        var out = [Float](repeating: 0, count: height * stride)
        rows.withUnsafeBufferPointer { src in
            yw.first.withUnsafeBufferPointer { first in
                yw.offsets.withUnsafeBufferPointer { offsets in
                    yw.weights.withUnsafeBufferPointer { weights in
                        out.withUnsafeMutableBufferPointer { dst in
                            for o in 0..<height {
                                let d = o * stride
                                var s = first[o] * stride
                                for k in offsets[o]..<offsets[o + 1] {
                                    let w = weights[k]
                                    for i in 0..<stride {
                                        dst[d + i] += w * src[s + i]
                                    }
                                    s += stride
                                }
                            }
                        }
                    }
                }
            }
        }
        return LinearImage(width: width, height: height, pixels: out)
    }
}
