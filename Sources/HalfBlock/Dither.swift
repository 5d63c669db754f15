/// Maps composited pixels to palette indices, with optional dithering.
///
/// Matching is nearest colour by the palette subset's distance (``XtermPalette/Subset``: OKLab,
/// Ottosson 2020, blended with sRGB for the 256-colour palette). Ordered
/// dithering offsets each pixel by an 8x8 Bayer threshold (Bayer 1973) in gamma-encoded sRGB
/// before matching; error diffusion is Floyd–Steinberg (1976) in linear light with a serpentine
/// scan. Transparent pixels are skipped and receive no error.
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
}
