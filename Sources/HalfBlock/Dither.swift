#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps composited pixels to palette indices, with optional dithering.
///
/// Matching is nearest colour by the palette subset's distance (``XtermPalette/Subset``: OKLab,
/// Ottosson 2020, blended with sRGB for the 256-colour palette). Ordered
/// dithering offsets each pixel by an 8x8 Bayer threshold (Bayer 1973) in gamma-encoded sRGB
/// before matching; error diffusion is Floyd–Steinberg (1976) in linear light with a serpentine
/// scan; the structure-preserving choice (``structured(_:palette:weight:sweeps:)``, the
/// 16-colour default) is iterated conditional modes (Besag 1986) on OKLab error plus lost or
/// added luma detail. Transparent pixels are skipped and receive no error.
enum PaletteQuantizer {
    /// Tuning for one palette: measured with `shared/tools/ansi_quality.py`.
    struct Tuning: Sendable {
        /// Amplitude of the Bayer offset, in sRGB-encoded units (0...1): about one palette step.
        var orderedSpread: Float
        /// Fraction of the quantisation error that Floyd–Steinberg passes on (1 = classic).
        var diffusionStrength: Float
    }

    /// Tuning for the 240-colour part of the xterm palette: a Bayer amplitude of one cube step
    /// (about 40/255) and classic full-strength Floyd–Steinberg gave the best blurred ΔE00.
    static let tuning256 = Tuning(orderedSpread: 0.16, diffusionStrength: 1)
    /// Tuning for the 16 ANSI colours, whose steps are about half the range.
    static let tuning16 = Tuning(orderedSpread: 0.5, diffusionStrength: 1)

    /// OKLab distance under which a pixel is drawn in its nearest palette entry with no
    /// diffused error (about two just-noticeable differences): flat colours close to the
    /// palette stay flat, not speckled by error carried in from elsewhere.
    static let closeEnough: Float = 0.05

    /// The 8x8 Bayer matrix, values 0-63, row-major.
    static let bayer8: [Float] = {
        var m = [Float](repeating: 0, count: 64)
        for y in 0..<8 {
            for x in 0..<8 {
                // Bit-interleave of x XOR y and y, reversed: the standard recursive Bayer order.
                let v = x ^ y
                var r = 0
                for bit in 0..<3 {
                    r |= ((v >> bit) & 1) << (5 - 2 * bit)
                    r |= ((y >> bit) & 1) << (4 - 2 * bit)
                }
                m[y * 8 + x] = Float(r)
            }
        }
        return m
    }()

    /// Palette index per pixel (transparent pixels get 0 and must be ignored).
    static func quantize(_ image: CompositedImage, palette: XtermPalette.Subset, dithering: Dithering, tuning: Tuning) -> [UInt8] {
        switch dithering {
        case .none: return nearest(image, palette: palette)
        case .ordered: return ordered(image, palette: palette, spread: tuning.orderedSpread)
        case .diffusion: return diffused(image, palette: palette, strength: tuning.diffusionStrength)
        case .structure: return structured(image, palette: palette, weight: structureWeight, sweeps: structureSweeps)
        }
    }

    /// Nearest colour, no dithering.
    static func nearest(_ image: CompositedImage, palette: XtermPalette.Subset) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: image.colors.count)
        palette.withSearch { search in
            for i in 0..<image.colors.count where !image.transparent[i] {
                out[i] = UInt8(palette.base + search.nearestOffset(linear: image.colors[i]))
            }
        }
        return out
    }

    /// 8x8 Bayer ordered dithering with amplitude `spread` (sRGB-encoded units).
    static func ordered(_ image: CompositedImage, palette: XtermPalette.Subset, spread: Float) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: image.colors.count)
        palette.withSearch { search in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let i = y * image.width + x
                    if image.transparent[i] { continue }
                    let t = (bayer8[(y & 7) * 8 + (x & 7)] + 0.5) / 64 - 0.5
                    let c = image.colors[i]
                    let shifted = SIMD3<Float>(
                        shift(c.x, by: t * spread), shift(c.y, by: t * spread), shift(c.z, by: t * spread))
                    out[i] = UInt8(palette.base + search.nearestOffset(linear: shifted))
                }
            }
        }
        return out
    }

    /// Linear `l` moved by `delta` in sRGB-encoded units, clamped, back in linear light.
    @inline(__always)
    private static func shift(_ l: Float, by delta: Float) -> Float {
        let e = min(max(LinearLight.encode(Double(l)) + Double(delta), 0), 1)
        return Float(LinearLight.decode(e))
    }

    /// Floyd–Steinberg error diffusion in linear light, serpentine, passing on `strength` of
    /// the error (weights 7, 3, 5, 1 / 16). A pixel within ``closeEnough`` of its nearest entry
    /// takes it, ignores the error carried in and passes none on.
    static func diffused(_ image: CompositedImage, palette: XtermPalette.Subset, strength: Float) -> [UInt8] {
        let w = image.width
        var out = [UInt8](repeating: 0, count: image.colors.count)
        // Error for the current and the next row, with one pixel of padding on each side.
        var current = [SIMD3<Float>](repeating: .zero, count: w + 2)
        var next = current
        // The wanted colour may leave 0...1 a little: clamping it at the gamut edge would throw
        // away the error that pulls a dark colour's other channels back (e.g. red in teal).
        let low = SIMD3<Float>(repeating: -0.5), high = SIMD3<Float>(repeating: 1.5)
        palette.withSearch { search in
            for y in 0..<image.height {
                let leftToRight = y % 2 == 0
                for step in 0..<w {
                    let x = leftToRight ? step : w - 1 - step
                    let i = y * w + x
                    if image.transparent[i] { continue }
                    let own = search.nearestOffset(linear: image.colors[i])
                    let ownDistance = OKLab(linear: image.colors[i]).distanceSquared(to: OKLab(linear: palette.linear[own]))
                    if ownDistance < closeEnough * closeEnough {
                        out[i] = UInt8(palette.base + own)
                        continue
                    }
                    let wanted = (image.colors[i] + current[x + 1]).clamped(lowerBound: low, upperBound: high)
                    let k = search.nearestOffset(linear: wanted)
                    out[i] = UInt8(palette.base + k)
                    let error = (wanted - palette.linear[k]) * (strength / 16)
                    let ahead = leftToRight ? x + 2 : x
                    let behind = leftToRight ? x : x + 2
                    current[ahead] += 7 * error
                    next[behind] += 3 * error
                    next[x + 1] += 5 * error
                    next[ahead] += 1 * error
                }
                swap(&current, &next)
                for j in next.indices { next[j] = .zero }
            }
        }
        return out
    }

    // MARK: Structure-preserving choice

    /// Weight of the luma-detail term against the squared OKLab distance in ``structured``
    /// (luma in 0...1). Chosen with a model of `shared/tools/ansi_quality.py` over weights
    /// 0.5-4 on three photos, the test chart, the zone plate and two sets of flat patches in 16
    /// colours: 3 raised SSIM on every photo (Elephants 0.47 → 0.66, LadyBird 0.60 → 0.66) for
    /// about 1-2 dB of PSNR and at most 1 of mean ΔE00, and moved the chart, the zone plate and
    /// the flat patches by at most 0.6 ΔE00; 4 gained little more SSIM and lost more PSNR.
    static let structureWeight: Float = 3
    /// Refinement sweeps over the picture in ``structured``; the second changes a few pixels,
    /// later ones almost none.
    static let structureSweeps = 2
    /// Standard deviation of the Gaussian that separates local detail from local mean luma, in
    /// pixels of the half-block grid: the window of SSIM (Wang et al. 2004), 7x7 taps.
    static let structureSigma: Float = 1.5
    /// Radius of that Gaussian, in pixels (7x7 taps).
    static let structureRadius = 3

    /// Rec. 709 luma (0...1) of each member of `palette`, from its gamma-encoded sRGB values.
    static func luma(_ palette: XtermPalette.Subset) -> [Float] {
        (palette.base..<(palette.base + palette.count)).map { luma(XtermPalette.colors[$0]) }
    }

    /// Rec. 709 luma Y' = 0.2126 R' + 0.7152 G' + 0.0722 B' of gamma-encoded 8-bit sRGB, 0...1.
    @inline(__always)
    static func luma(_ c: RGB) -> Float {
        (0.2126 * Float(c.r) + 0.7152 * Float(c.g) + 0.0722 * Float(c.b)) / 255
    }

    /// The normalised 1-D Gaussian of ``structureSigma``, `2 * structureRadius + 1` taps.
    static let structureTaps: [Float] = {
        let r = structureRadius
        let taps = (-r...r).map { expf(-0.5 * Float($0 * $0) / (structureSigma * structureSigma)) }
        let sum = taps.reduce(0, +)
        return taps.map { $0 / sum }
    }()

    /// Nearest colour in OKLab, refined so that local detail in luma follows the picture's.
    ///
    /// With few, far-apart colours (16), plain nearest colour draws a whole region whose
    /// shades fall between two entries in one of them: its colour is right on average, its
    /// detail is gone (low SSIM). Dithering brings detail back as noise, also where the picture
    /// is flat. This choice minimises, over the palette index of every pixel,
    ///
    ///     E = Σ |ΔOKLab|² + weight · Σ r²,   r = e − G ∗ e,   e = Y'(drawn) − Y'(wanted)
    ///
    /// where Y' is Rec. 709 luma and G the Gaussian of ``structureSigma`` (SSIM's window): `r`
    /// is the luma error left after its local mean is taken out, i.e. detail that is missing or
    /// added. A flat area has no detail to follow, so any change there raises `E`: flat
    /// colours stay their nearest entry, with no noise. The minimisation is iterated
    /// conditional modes (Besag 1986): start at the OKLab-nearest index, then visit the pixels
    /// in raster order up to `sweeps` times and give each the index that lowers `E` most with
    /// the others fixed; after the first sweep only pixels within 2 * ``structureRadius`` of a
    /// change (whose window saw a new residual) are visited again. Changing pixel p's luma by δ changes `Σ r²` by `2δ s_p + δ² K` with
    /// `s_p = r_p − Σ_q g(q − p) r_q` and `K = 1 − 2 g(0) + Σ g²`, so a visit costs one 7x7
    /// sum plus one per candidate. Transparent pixels keep index 0 and count as no error.
    /// Cost: about 50 + 3 * `palette.count` multiply-adds per pixel and sweep.
    static func structured(_ image: CompositedImage, palette: XtermPalette.Subset, weight: Float, sweeps: Int) -> [UInt8] {
        let w = image.width, h = image.height, n = w * h, m = palette.count
        var out = [UInt8](repeating: 0, count: n)
        guard n > 0, m > 0 else { return out }
        let memberLab = (palette.base..<(palette.base + m)).map { XtermPalette.oklab[$0] }
        let memberLuma = luma(palette)
        // Squared OKLab distance of every pixel to every member, and the nearest member.
        var distance = [Float](repeating: 0, count: n * m)
        var index = [Int](repeating: 0, count: n)
        var error = [Float](repeating: 0, count: n)
        for i in 0..<n where !image.transparent[i] {
            let lab = OKLab(linear: image.colors[i])
            var best = 0
            for k in 0..<m {
                let d = lab.distanceSquared(to: memberLab[k])
                distance[i * m + k] = d
                if d < distance[i * m + best] { best = k }
            }
            index[i] = best
            error[i] = memberLuma[best] - luma(LinearLight.srgb(image.colors[i]))
        }
        // r = e − G ∗ e, zero outside the picture (separable: rows, then columns).
        let taps = structureTaps, radius = structureRadius
        var rowPass = [Float](repeating: 0, count: n)
        for y in 0..<h {
            for x in 0..<w {
                var sum: Float = 0
                for t in max(0, x - radius)...min(w - 1, x + radius) { sum += taps[t - x + radius] * error[y * w + t] }
                rowPass[y * w + x] = sum
            }
        }
        var residual = [Float](repeating: 0, count: n)
        for y in 0..<h {
            for x in 0..<w {
                var sum: Float = 0
                for t in max(0, y - radius)...min(h - 1, y + radius) { sum += taps[t - y + radius] * rowPass[t * w + x] }
                residual[y * w + x] = error[y * w + x] - sum
            }
        }
        let side = 2 * radius + 1
        var kernel = [Float](repeating: 0, count: side * side)
        for dy in 0..<side { for dx in 0..<side { kernel[dy * side + dx] = taps[dy] * taps[dx] } }
        let k = 1 - 2 * kernel[radius * side + radius] + kernel.reduce(0) { $0 + $1 * $1 }
        // Pixels whose window changed since their last visit: only they can gain by a change.
        var dirty = [Bool](repeating: true, count: n)
        residual.withUnsafeMutableBufferPointer { residual in
            kernel.withUnsafeBufferPointer { kernel in
                distance.withUnsafeBufferPointer { distance in
                    memberLuma.withUnsafeBufferPointer { memberLuma in
                        image.transparent.withUnsafeBufferPointer { transparent in
                            dirty.withUnsafeMutableBufferPointer { dirty in
                            for _ in 0..<max(sweeps, 0) {
                                var changed = false
                                for y in 0..<h {
                                    let y0 = max(0, y - radius), y1 = min(h - 1, y + radius)
                                    for x in 0..<w {
                                        let i = y &* w &+ x
                                        if transparent[i] || !dirty[i] { continue }
                                        dirty[i] = false
                                        let x0 = max(0, x &- radius), x1 = min(w &- 1, x &+ radius)
                                        // s = r_p − Σ g(q − p) r_q over the window.
                                        var blurred: Float = 0
                                        for qy in y0...y1 {
                                            let row = qy &* w, krow = (qy &- y &+ radius) &* side &- x &+ radius
                                            for qx in x0...x1 { blurred += kernel[krow &+ qx] * residual[row &+ qx] }
                                        }
                                        let s = residual[i] - blurred
                                        let current = index[i]
                                        let currentLuma = memberLuma[current]
                                        var best = current
                                        var bestCost = distance[i * m + current]
                                        let distances = i &* m
                                        for c in 0..<m where c != current {
                                            let delta = memberLuma[c] - currentLuma
                                            let cost = distance[distances &+ c] + weight * delta * (2 * s + delta * k)
                                            if cost < bestCost { best = c; bestCost = cost }
                                        }
                                        if best == current { continue }
                                        let delta = memberLuma[best] - currentLuma
                                        for qy in y0...y1 {
                                            let row = qy &* w, krow = (qy &- y &+ radius) &* side &- x &+ radius
                                            for qx in x0...x1 { residual[row &+ qx] -= delta * kernel[krow &+ qx] }
                                        }
                                        // Every pixel whose window overlaps this one's sees a new residual.
                                        for qy in max(0, y &- 2 &* radius)...min(h &- 1, y &+ 2 &* radius) {
                                            for qx in max(0, x &- 2 &* radius)...min(w &- 1, x &+ 2 &* radius) { dirty[qy &* w &+ qx] = true }
                                        }
                                        residual[i] += delta
                                        index[i] = best
                                        changed = true
                                    }
                                }
                                if !changed { break }
                            }
                            }
                        }
                    }
                }
            }
        }
        for i in 0..<n where !image.transparent[i] { out[i] = UInt8(palette.base + index[i]) }
        return out
    }
}
