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
/// Ottosson 2020, blended with sRGB for the 256-colour palette; CIEDE2000 for the 16 colours,
/// except under error diffusion, which keeps OKLab). Ordered
/// dithering offsets each pixel by an 8x8 Bayer threshold (Bayer 1973) in gamma-encoded sRGB
/// before matching; error diffusion is Floyd–Steinberg (1976) in linear light with a serpentine
/// scan; the structure-preserving choice (``structured(_:palette:weight:sweeps:)``, the
/// 16-colour default) is iterated conditional modes (Besag 1986) on OKLab error plus lost or
/// added luma detail, and in 256 colours (the default there too) moves greys only
/// (``greysStructured(_:palette:weight:sweeps:)``). Transparent pixels are skipped and receive no error.
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
        case .diffusion: return diffused(image, palette: palette.oklabOnly, strength: tuning.diffusionStrength)
        case .structure:
            if palette.deltaEMembers == nil, palette.srgbShare > 0, palette.okTolerance > 0 {
                return greysStructured(image, palette: palette, weight: greyStructureWeight, sweeps: structureSweeps)
            }
            return structured(image, palette: palette, weight: structureWeight, sweeps: structureSweeps)
        }
    }

    /// Nearest colour, no dithering.
    static func nearest(_ image: CompositedImage, palette: XtermPalette.Subset) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: image.colors.count)
        palette.withSearch { search in
            for i in 0..<image.colors.count where !image.transparent[i] {
                // A run of one colour (flat areas) is matched once.
                if i > 0, image.colors[i] == image.colors[i - 1], !image.transparent[i - 1] {
                    out[i] = out[i - 1]
                    continue
                }
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
    /// takes it, ignores the error carried in and passes none on. ``quantize`` calls it with
    /// the palette's OKLab rule (``XtermPalette/Subset/oklabOnly``) also in 16 colours: the
    /// colours it matches carry error and leave the gamut, and nearest by CIEDE2000, which
    /// compresses chroma, let a dark teal's diffused error pile up against the clamp until its
    /// mean turned red (`PaletteTests.diffusionKeepsMean`).
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
    /// Factor from ΔE00² to the data term of ``structured`` for a palette matched by CIEDE2000
    /// (the 16 colours): `2 (ΔE00 / 100)²`, near the scale of the squared OKLab distance that
    /// ``structureWeight`` was chosen against (OKLab L is 0...1 where CIELAB L* is 0...100; for
    /// greys ΔE00 is 66-116 times the OKLab distance). Measured with the quality table's 16-colour
    /// rows (`docs/PERFORMANCE.md`, "16 colours: nearest by CIEDE2000"): at 2e-4 the photos keep
    /// the SSIM of the OKLab data term (LadyBird 0.657, Elephants 0.657) with 2.1-2.5 less mean
    /// ΔE00; 1e-4 and 5e-5 raise photo SSIM (to 0.676-0.755) for PSNR and ΔE00 on every row
    /// but the zone plate.
    static let deltaEScale: Float = 2e-4
    /// Refinement sweeps over the picture in ``structured``; the second changes a few pixels,
    /// later ones almost none.
    static let structureSweeps = 2
    /// Standard deviation of the Gaussian that separates local detail from local mean luma, in
    /// pixels of the half-block grid: the window of SSIM (Wang et al. 2004), 7x7 taps.
    static let structureSigma: Float = 1.5
    /// Radius of that Gaussian, in pixels (7x7 taps).
    static let structureRadius = 3

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

    /// Nearest colour (by the palette's colour error `D`), refined so that local detail in luma
    /// follows the picture's.
    ///
    /// With few, far-apart colours (16), plain nearest colour draws a whole region whose
    /// shades fall between two entries in one of them: its colour is right on average, its
    /// detail is gone (low SSIM). Dithering brings detail back as noise, also where the picture
    /// is flat. This choice minimises, over the palette index of every pixel,
    ///
    ///     E = Σ D + weight · Σ r²,   r = e − (G ∗ e) / Z,   e = Y'(drawn) − Y'(wanted)
    ///
    /// where D is the squared OKLab distance, or for a palette matched by CIEDE2000 (the 16
    /// colours) ``deltaEScale`` · ΔE00², so that a flat area takes its ΔE00-nearest entry.
    /// Y' is Rec. 709 luma, G the Gaussian of ``structureSigma`` (SSIM's window) and
    /// `Z = G ∗ 1` its weight inside the picture, so `(G ∗ e) / Z` is the local mean of `e`
    /// and `r` the luma error left after it is taken out: detail that is missing or added. A
    /// flat area, up to the picture's borders, has no detail to follow, so any change there
    /// raises `E`: flat colours stay their nearest entry, with no noise. The minimisation is
    /// iterated conditional modes (Besag 1986): start at the D-nearest index, then visit
    /// the pixels in raster order up to `sweeps` times and give each the index that lowers `E`
    /// most with the others fixed; after the first sweep only pixels within
    /// 2 * ``structureRadius`` of a change (whose windows saw a new residual) are visited
    /// again. Changing pixel p's luma by δ changes `Σ r²` by `2δ s_p + δ² K_p` with
    /// `s_p = r_p − (G ∗ (r / Z))_p` and `K_p = 1 − 2 g(0) / Z_p + Σ_q g(q − p)² / Z_q²`
    /// (separable, as Z is). `G ∗ (r / Z)` is kept up to date on every change (exactly, by
    /// separable updates over the 13x13 pixels it reaches), so a visit costs one cost vector
    /// per 16 members. Checked against a direct evaluation of `E` for every candidate: the
    /// same indices. Transparent pixels keep index 0 and count as no error. Cost: about 130 ns
    /// a pixel for 16 colours on the build machine with the OKLab data term (the plain search:
    /// 20); the CIEDE2000 data term adds about 250-350 ns (one ``CIEDE2000`` evaluation a
    /// pixel, reused along runs of one colour; `docs/PERFORMANCE.md`, "16 colours: nearest by
    /// CIEDE2000"). Memory about 100 bytes a pixel.
    static func structured(_ image: CompositedImage, palette: XtermPalette.Subset, weight: Float, sweeps: Int) -> [UInt8] {
        let w = image.width, h = image.height, n = w * h, m = palette.count
        var out = [UInt8](repeating: 0, count: n)
        guard n > 0, m > 0 else { return out }
        // Members in groups of 16 lanes (padding: far away, never chosen), and every pixel's
        // squared OKLab distance to each, group by group.
        let groups = (m + 15) / 16
        var groupL = [SIMD16<Float>](repeating: SIMD16(repeating: 1e9), count: groups)
        var groupA = [SIMD16<Float>](repeating: .zero, count: groups), groupB = groupA, groupLuma = groupA
        for member in 0..<m {
            let lab = XtermPalette.oklab[palette.base + member]
            groupL[member / 16][member % 16] = lab.l
            groupA[member / 16][member % 16] = lab.a
            groupB[member / 16][member % 16] = lab.b
            groupLuma[member / 16][member % 16] = luma(XtermPalette.colors[palette.base + member])
        }
        var distance = [SIMD16<Float>](repeating: .zero, count: n * groups)
        var index = [Int](repeating: 0, count: n)
        var error = [Float](repeating: 0, count: n)
        let deltaEMembers = palette.deltaEMembers
        for i in 0..<n where !image.transparent[i] {
            let lab = deltaEMembers == nil ? OKLab(linear: image.colors[i]) : OKLab(l: 0, a: 0, b: 0)
            var best = 0, bestDistance = Float.infinity
            for g in 0..<groups {
                let d: SIMD16<Float>
                if let members = deltaEMembers {  // at most 16 members: one group
                    // A run of one colour (flat areas) is measured once.
                    if i > 0, image.colors[i] == image.colors[i - 1], !image.transparent[i - 1] {
                        d = distance[i - 1]
                    } else {
                        d = CIEDE2000.squaredDifferences(CIELab(linear: image.colors[i]), members) * deltaEScale
                    }
                } else {
                    let dl = groupL[g] - lab.l, da = groupA[g] - lab.a, db = groupB[g] - lab.b
                    d = dl * dl + da * da + db * db
                }
                distance[i * groups + g] = d
                let least = d.min()
                if least < bestDistance {
                    bestDistance = least
                    best = g * 16 + Self.firstLane(of: d, equalTo: least)
                }
            }
            index[i] = best
            error[i] = groupLuma[best / 16][best % 16] - luma(LinearLight.srgb(image.colors[i]))
        }
        refine(&index, error: error, distance: distance, groups: groups, groupLuma: groupLuma, frozen: image.transparent,
               width: w, height: h, weight: weight, sweeps: sweeps)
        for i in 0..<n where !image.transparent[i] { out[i] = UInt8(palette.base + index[i]) }
        return out
    }

    /// Weight of the luma-detail term in ``greysStructured(_:palette:weight:sweeps:)``, against
    /// the 256-colour rule's blended cost. Measured with a numpy model of
    /// `shared/tools/ansi_quality.py` over 0.03-3 and with the quality table's 256-colour rows
    /// (`docs/PERFORMANCE.md`, "256 colours: greys that keep their detail").
    static let greyStructureWeight: Float = 0.3

    /// The 256-colour palette's choice (the blended rule of ``XtermPalette/Subset``), with the
    /// greys refined so that their local luma detail follows the picture's.
    ///
    /// Each pixel starts at its entry by the palette's rule. A pixel drawn in a neutral grey
    /// entry (the cube's six greys and the 24-step ramp: ``XtermPalette/Subset/greyOffsets``)
    /// may then move to another grey entry among its candidates (within the rule's OKLab
    /// tolerance), by the minimisation of ``structured(_:palette:weight:sweeps:)`` with the
    /// rule's blended cost as the data term `D`; every other pixel keeps its entry, and its
    /// luma error still counts in the residual. Between two grey entries only luma changes,
    /// which SSIM measures and no hue is at stake; where the picture is flat (up to its
    /// borders) there is no detail to follow, and a grey that the picture's own small noise
    /// (a code or two, e.g. around 163, halfway between ramp greys 158 and 168) would draw as
    /// scattered steps of a whole ramp step is drawn in the one entry of its surroundings.
    /// Coloured pixels are not moved: letting every pixel move (the OKLab data term of the
    /// 16 colours) cost photos mean ΔE00 and PSNR in 256 colours. Cost: the plain search, plus
    /// one blended cost vector for 2 x 16 grey lanes per grey pixel (128 bytes a pixel) and the
    /// refinement's visits to grey pixels.
    static func greysStructured(_ image: CompositedImage, palette: XtermPalette.Subset, weight: Float, sweeps: Int) -> [UInt8] {
        let w = image.width, h = image.height, n = w * h
        var out = [UInt8](repeating: 0, count: n)
        guard n > 0, palette.count > 0 else { return out }
        let greys = palette.greyOffsets
        let lanes = stride(from: 0, to: greys.count, by: 16).map {
            XtermPalette.Subset.Lanes(subset: palette, offsets: Array(greys[$0..<min($0 + 16, greys.count)]))
        }
        let groups = max(lanes.count, 1)
        // Slot (g * 16 + lane) of each grey member, by offset; -1 for the others.
        var slot = [Int](repeating: -1, count: palette.count)
        for (k, offset) in greys.enumerated() { slot[offset] = k }
        let groupLuma = lanes.map { group in
            var v = SIMD16<Float>.zero
            for (lane, offset) in group.offsets.enumerated() { v[lane] = luma(XtermPalette.colors[palette.base + offset]) }
            return v
        }
        var chosen = [Int](repeating: 0, count: n)
        var distance = [SIMD16<Float>](repeating: .zero, count: n * groups)
        var index = [Int](repeating: 0, count: n)
        var error = [Float](repeating: 0, count: n)
        var frozen = image.transparent
        palette.withSearch { search in
            for i in 0..<n where !image.transparent[i] {
                // A run of one colour (flat areas) is matched once.
                if i > 0, image.colors[i] == image.colors[i - 1], !image.transparent[i - 1] {
                    chosen[i] = chosen[i - 1]
                    index[i] = index[i - 1]
                    frozen[i] = frozen[i - 1]
                    error[i] = error[i - 1]
                    for g in 0..<groups { distance[i * groups + g] = distance[(i - 1) * groups + g] }
                    continue
                }
                let c = image.colors[i]
                let (offset, reach) = search.match(linear: c)
                chosen[i] = offset
                error[i] = luma(XtermPalette.colors[palette.base + offset]) - luma(LinearLight.srgb(c))
                guard slot[offset] >= 0 else {
                    frozen[i] = true
                    continue
                }
                index[i] = slot[offset]
                for g in 0..<lanes.count { distance[i * groups + g] = search.costs(linear: c, reach: reach, of: lanes[g]) }
            }
        }
        refine(&index, error: error, distance: distance, groups: groups, groupLuma: groupLuma, frozen: frozen,
               width: w, height: h, weight: weight, sweeps: sweeps)
        for i in 0..<n where !image.transparent[i] {
            out[i] = UInt8(palette.base + (frozen[i] ? chosen[i] : greys[index[i]]))
        }
        return out
    }

    /// The minimisation of ``structured(_:palette:weight:sweeps:)`` (iterated conditional modes
    /// on `Σ D + weight · Σ r²`), from the start `index` (member slots: slot `k` is lane
    /// `k % 16` of group `k / 16`).
    ///
    /// - `error`: each pixel's luma error `e` at the start (drawn minus wanted, 0...1).
    /// - `distance`: the data term `D`, `groups` vectors a pixel; `groupLuma` each slot's luma.
    /// - `frozen`: pixels that keep their index (transparent ones, with error 0, or pixels
    ///   whose colour must not move; their error still counts in the residual).
    static func refine(
        _ index: inout [Int], error: [Float], distance: [SIMD16<Float>], groups: Int, groupLuma: [SIMD16<Float>],
        frozen: [Bool], width w: Int, height h: Int, weight: Float, sweeps: Int
    ) {
        let n = w * h
        guard n > 0 else { return }
        // The local mean is the Gaussian renormalised to the picture, (G ∗ e) / Z with
        // Z = G ∗ 1 = zx(x) zy(y), so that a flat picture has no detail at its borders either:
        // r = e − (G ∗ e) / Z. A visit needs s_p = r_p − B_p with B = G ∗ (r / Z), kept exact
        // on every change (below), and K_p = 1 − 2 g(0) / Z_p + kx(x) ky(y), where
        // kx(x) = Σ_qx g(qx − x)² / zx(qx)² (ky likewise).
        let taps = structureTaps, radius = structureRadius
        func coverage(_ count: Int) -> [Float] {
            (0..<count).map { c in (max(0, c - radius)...min(count - 1, c + radius)).reduce(0) { $0 + taps[$1 - c + radius] } }
        }
        let zx = coverage(w), zy = coverage(h)
        let inverseSquareX = zx.map { 1 / ($0 * $0) }, inverseSquareY = zy.map { 1 / ($0 * $0) }
        func spread(_ inverseSquare: [Float]) -> [Float] {
            (0..<inverseSquare.count).map { c in
                (max(0, c - radius)...min(inverseSquare.count - 1, c + radius)).reduce(0) {
                    $0 + taps[$1 - c + radius] * taps[$1 - c + radius] * inverseSquare[$1]
                }
            }
        }
        let kx = spread(inverseSquareX), ky = spread(inverseSquareY)
        let centre = taps[radius] * taps[radius]
        var residual = error
        let blurredError = blur(error, width: w, height: h)
        for y in 0..<h { for x in 0..<w { residual[y * w + x] -= blurredError[y * w + x] / (zx[x] * zy[y]) } }
        var scaled = residual
        for y in 0..<h { for x in 0..<w { scaled[y * w + x] /= zx[x] * zy[y] } }
        var blurred = blur(scaled, width: w, height: h)
        // Pixels within 2 * radius of a change since their last visit: only they can gain.
        var dirty = [Bool](repeating: true, count: n)
        // Per change: u(tx) = Σ_qx g(tx − qx) g(qx − px) over the picture's columns, v likewise
        // over its rows (the Gaussian is separable, so is the picture's box).
        let reach = 2 * radius
        var u = [Float](repeating: 0, count: 2 * reach + 1), v = u
        residual.withUnsafeMutableBufferPointer { residual in
            blurred.withUnsafeMutableBufferPointer { blurred in
                distance.withUnsafeBufferPointer { distance in
                    groupLuma.withUnsafeBufferPointer { groupLuma in
                        frozen.withUnsafeBufferPointer { frozen in
                            dirty.withUnsafeMutableBufferPointer { dirty in
                                taps.withUnsafeBufferPointer { taps in
                                    u.withUnsafeMutableBufferPointer { u in
                                        v.withUnsafeMutableBufferPointer { v in
                                            for _ in 0..<max(sweeps, 0) {
                                                var changed = false
                                                for y in 0..<h {
                                                    for x in 0..<w {
                                                        let i = y &* w &+ x
                                                        if frozen[i] || !dirty[i] { continue }
                                                        dirty[i] = false
                                                        let s = residual[i] - blurred[i]
                                                        let k = 1 - 2 * centre / (zx[x] * zy[y]) + kx[x] * ky[y]
                                                        let current = index[i]
                                                        let currentLuma = groupLuma[current / 16][current % 16]
                                                        var best = current
                                                        var bestCost = distance[i &* groups &+ current / 16][current % 16]
                                                        for g in 0..<groups {
                                                            // The current member's own lane costs exactly its distance.
                                                            let delta = groupLuma[g] - currentLuma
                                                            let cost = distance[i &* groups &+ g] + weight * delta * (2 * s + delta * k)
                                                            let least = cost.min()
                                                            if least < bestCost {
                                                                bestCost = least
                                                                best = g * 16 + Self.firstLane(of: cost, equalTo: least)
                                                            }
                                                        }
                                                        if best == current { continue }
                                                        let delta = groupLuma[best / 16][best % 16] - currentLuma
                                                        index[i] = best
                                                        changed = true
                                                        // Δr = δ (1[q = p] − g(q − p)) on the picture.
                                                        let y0 = max(0, y &- radius), y1 = min(h &- 1, y &+ radius)
                                                        let x0 = max(0, x &- radius), x1 = min(w &- 1, x &+ radius)
                                                        for qy in y0...y1 {
                                                            let gy = delta * taps[qy &- y &+ radius], row = qy &* w
                                                            let gz = gy / zy[qy]
                                                            for qx in x0...x1 { residual[row &+ qx] -= gz * taps[qx &- x &+ radius] / zx[qx] }
                                                        }
                                                        residual[i] += delta
                                                        // ΔB(t) = δ g(t − p) − δ u(tx) v(ty).
                                                        let tx0 = max(0, x &- reach), tx1 = min(w &- 1, x &+ reach)
                                                        let ty0 = max(0, y &- reach), ty1 = min(h &- 1, y &+ reach)
                                                        for tx in tx0...tx1 {
                                                            var sum: Float = 0
                                                            for qx in max(x0, tx &- radius)...min(x1, tx &+ radius) {
                                                                sum += taps[tx &- qx &+ radius] * taps[qx &- x &+ radius] * inverseSquareX[qx]
                                                            }
                                                            u[tx &- x &+ reach] = sum
                                                        }
                                                        for ty in ty0...ty1 {
                                                            var sum: Float = 0
                                                            for qy in max(y0, ty &- radius)...min(y1, ty &+ radius) {
                                                                sum += taps[ty &- qy &+ radius] * taps[qy &- y &+ radius] * inverseSquareY[qy]
                                                            }
                                                            v[ty &- y &+ reach] = delta * sum
                                                        }
                                                        for ty in ty0...ty1 {
                                                            let vy = v[ty &- y &+ reach], row = ty &* w
                                                            for tx in tx0...tx1 {
                                                                blurred[row &+ tx] -= vy * u[tx &- x &+ reach]
                                                                dirty[row &+ tx] = true
                                                            }
                                                        }
                                                        for qy in y0...y1 {
                                                            let gy = delta * taps[qy &- y &+ radius], row = qy &* w
                                                            let gz = gy / (zx[x] * zy[y])
                                                            for qx in x0...x1 { blurred[row &+ qx] += gz * taps[qx &- x &+ radius] }
                                                        }
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
                }
            }
        }
    }

    /// `x` (`width` x `height`, row-major) convolved with the 2-D Gaussian of ``structureTaps``,
    /// values outside the picture taken as zero: rows, then columns.
    static func blur(_ x: [Float], width w: Int, height h: Int) -> [Float] {
        let radius = structureRadius
        var rows = [Float](repeating: 0, count: x.count)
        var out = rows
        structureTaps.withUnsafeBufferPointer { taps in
            x.withUnsafeBufferPointer { x in
                rows.withUnsafeMutableBufferPointer { rows in
                    for y in 0..<h {
                        let row = y &* w
                        for col in 0..<w {
                            var sum: Float = 0
                            for t in max(0, col &- radius)...min(w &- 1, col &+ radius) { sum += taps[t &- col &+ radius] * x[row &+ t] }
                            rows[row &+ col] = sum
                        }
                    }
                }
            }
            rows.withUnsafeBufferPointer { rows in
                out.withUnsafeMutableBufferPointer { out in
                    for y in 0..<h {
                        let t0 = max(0, y &- radius), t1 = min(h &- 1, y &+ radius)
                        for col in 0..<w {
                            var sum: Float = 0
                            for t in t0...t1 { sum += taps[t &- y &+ radius] * rows[t &* w &+ col] }
                            out[y &* w &+ col] = sum
                        }
                    }
                }
            }
        }
        return out
    }

    /// The first lane of `v` that equals `value` (which must be one of its lanes).
    @inline(__always)
    static func firstLane(of v: SIMD16<Float>, equalTo value: Float) -> Int {
        for lane in 0..<16 where v[lane] == value { return lane }
        return 0
    }
}
