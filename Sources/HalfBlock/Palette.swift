/// The xterm 256-colour palette and nearest-colour search (256 colours: OKLab first; within a
/// tolerance of the OKLab-nearest, blended with sRGB and a relative luma error. 16 colours:
/// nearest by CIEDE2000).
///
/// Indices 0-15 are xterm's default ANSI colours (the table in xterm's `XTerm-col.ad`, as used
/// by `shared/tools/ansi_quality.py`); 16-231 are the 6x6x6 cube with levels
/// 0, 95, 135, 175, 215, 255; 232-255 the grey ramp 8, 18, ..., 238. All values are 8-bit sRGB.
enum XtermPalette {
    /// The 256 colours, 8-bit sRGB.
    static let colors: [RGB] = {
        var p: [RGB] = [
            RGB(0, 0, 0), RGB(205, 0, 0), RGB(0, 205, 0), RGB(205, 205, 0),
            RGB(0, 0, 238), RGB(205, 0, 205), RGB(0, 205, 205), RGB(229, 229, 229),
            RGB(127, 127, 127), RGB(255, 0, 0), RGB(0, 255, 0), RGB(255, 255, 0),
            RGB(92, 92, 255), RGB(255, 0, 255), RGB(0, 255, 255), RGB(255, 255, 255),
        ]
        let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
        for r in levels {
            for g in levels {
                for b in levels {
                    p.append(RGB(r, g, b))
                }
            }
        }
        for i in 0..<24 {
            let v = UInt8(8 + 10 * i)
            p.append(RGB(v, v, v))
        }
        return p
    }()

    /// The 256 colours in linear light.
    static let linear: [SIMD3<Float>] = colors.map(LinearLight.linear)

    /// The 256 colours in OKLab.
    static let oklab: [OKLab] = colors.map { OKLab($0) }

    /// The 256 colours in CIELAB (D65).
    static let cielab: [CIELab] = colors.map { CIELab($0) }

    /// A palette restricted to `indices`, laid out for a fast nearest-colour search.
    ///
    /// The choice is perceptual first: the candidates are the members whose OKLab distance
    /// (Ottosson 2020) to the wanted colour is within `1 + okTolerance` times the nearest
    /// member's. Among them the one with the smallest blended cost
    /// `(1 - s) * |ΔOKLab|² + s * |ΔsRGB|² + w * (y - y')² / (y² + y'² + C1)` wins (`s =
    /// srgbShare`, `w = lumaWeight`, sRGB scaled to 0...1; `y`, `y'` the Rec. 709 luma of the
    /// wanted colour and the member on sRGB values, `C1 = 0.01²`): OKLab matches what the eye
    /// sees (mean CIEDE2000, flat colours), gamma-encoded sRGB matches code values (PSNR), and
    /// the third term is SSIM's luminance comparison (Wang et al. 2004), which a dark flat colour
    /// loses when its member's luma is off by a few codes. With `srgbShare == 0` or
    /// `okTolerance == 0` this is plain nearest in OKLab. The tolerance is what keeps a flat
    /// colour true: the French flag's red (237, 41, 57) is 0.042 from index 196 (255, 0, 0) and
    /// 0.061 from 197 (255, 0, 95), so a tolerance under 0.45 keeps 196 where the plain blend
    /// chose the hot pink 197.
    /// The search is exhaustive (the exact answer), eight members at a time: the members'
    /// coordinates are stored as groups of seven `SIMD8<Float>` (L, a, b, R, G, B, luma),
    /// padded with members too far away to ever win.
    ///
    /// A subset of at most 16 members built with `deltaE: true` ignores all of that and takes
    /// the member nearest by CIEDE2000 (``CIEDE2000``, all 16 in one `SIMD16` evaluation): the
    /// 16-colour palette, whose entries are so far apart that OKLab's Euclidean distance and
    /// ΔE00 disagree on many saturated colours (OKLab drew green (0, 128, 0) as grey 8, 28.4
    /// ΔE00 away, where green 2 is 23.7 away).
    struct Subset: Sendable {
        /// First palette index of the subset.
        let base: Int
        /// Number of members.
        let count: Int
        /// Weight of the sRGB distance in the blend (0 = plain OKLab distance, 1 = plain sRGB).
        let srgbShare: Float
        /// How much farther than the OKLab-nearest member (as a fraction of its distance) a
        /// member may be and still be chosen for its blended distance.
        let okTolerance: Float
        /// Weight of the relative luma error (SSIM's luminance term) in the blend.
        let lumaWeight: Float
        /// `ceil(count / 8)` groups of seven vectors: OKLab L, a, b, sRGB R, G, B (0...1) and
        /// Rec. 709 luma of the sRGB values (0...1).
        let groups: [SIMD8<Float>]
        /// Vectors per group in ``groups``.
        static let groupStride = 7
        /// SSIM's C1 for luma in 0...1: `(0.01 * 1)²`.
        static let lumaC1: Float = 1e-4
        /// Linear light of each member.
        let linear: [SIMD3<Float>]
        /// The members in CIELAB when the match is nearest by CIEDE2000 (at most 16 members);
        /// `nil` for the OKLab rule above.
        let deltaEMembers: CIEDE2000.Members?

        init(_ indices: Range<Int>, srgbShare: Float = 0, okTolerance: Float = 0, lumaWeight: Float = 0, deltaE: Bool = false) {
            precondition(!deltaE || indices.count <= 16, "the CIEDE2000 match takes at most 16 members")
            base = indices.lowerBound
            count = indices.count
            self.srgbShare = srgbShare
            self.okTolerance = okTolerance
            self.lumaWeight = lumaWeight
            linear = indices.map { XtermPalette.linear[$0] }
            deltaEMembers = deltaE ? CIEDE2000.Members(indices.map { XtermPalette.cielab[$0] }) : nil
            var groups = [SIMD8<Float>]()
            let members = Array(indices)
            for start in stride(from: 0, to: members.count, by: 8) {
                var lanes = [SIMD8<Float>](repeating: SIMD8(repeating: 0), count: Self.groupStride)
                lanes[0] = SIMD8(repeating: 1e9)
                for lane in 0..<8 where start + lane < members.count {
                    let lab = XtermPalette.oklab[members[start + lane]]
                    let rgb = XtermPalette.colors[members[start + lane]]
                    lanes[0][lane] = lab.l
                    lanes[1][lane] = lab.a
                    lanes[2][lane] = lab.b
                    lanes[3][lane] = Float(rgb.r) / 255
                    lanes[4][lane] = Float(rgb.g) / 255
                    lanes[5][lane] = Float(rgb.b) / 255
                    lanes[6][lane] = Self.luma(lanes[3][lane], lanes[4][lane], lanes[5][lane])
                }
                groups += lanes
            }
            self.groups = groups
        }

        /// The same members matched by the OKLab rule (this subset itself when it has no
        /// CIEDE2000 match): for error diffusion.
        var oklabOnly: Subset {
            if deltaEMembers == nil { return self }
            if base == 0 && count == 16 { return XtermPalette.ansi16OKLab }
            return Subset(base..<(base + count), srgbShare: srgbShare, okTolerance: okTolerance, lumaWeight: lumaWeight)
        }

        /// Rec. 709 luma of gamma-encoded sRGB values (0...1), as SSIM's luma is measured.
        @inline(__always)
        static func luma(_ r: Float, _ g: Float, _ b: Float) -> Float {
            0.2126 * r + 0.7152 * g + 0.0722 * b
        }

        /// Calls `body` with a ``Search`` over this subset; the search must not escape `body`.
        @inline(__always)
        func withSearch<R>(_ body: (Search) throws -> R) rethrows -> R {
            try groups.withUnsafeBufferPointer { groups in
                try LinearLight.buckets.withUnsafeBufferPointer { buckets in
                    try LinearLight.thresholds.withUnsafeBufferPointer { thresholds in
                        try body(Search(subset: self, groups: groups, buckets: buckets, thresholds: thresholds))
                    }
                }
            }
        }

        /// The nearest-member search with the subset's tables pinned in memory (see
        /// ``withSearch(_:)``), for per-pixel loops.
        struct Search {
            let subset: Subset
            let groups: UnsafeBufferPointer<SIMD8<Float>>
            let buckets: UnsafeBufferPointer<UInt8>
            let thresholds: UnsafeBufferPointer<Float>

            /// Offset (0-based, within the subset) of the member nearest to the linear-light
            /// colour `c` (components may leave 0...1 a little, as error diffusion asks); ties go
            /// to the lowest offset.
            @inline(__always)
            func nearestOffset(linear c: SIMD3<Float>) -> Int {
                if let members = subset.deltaEMembers {
                    let d = CIEDE2000.squaredDifferences(CIELab(linear: c), members)
                    let least = d.min()
                    for lane in 0..<16 where d[lane] == least { return lane }
                    return 0
                }
                return match(linear: c).offset
            }

            /// The OKLab rule's answer for the linear-light colour `c` (not for a subset matched
            /// by CIEDE2000): the chosen member's offset, and `reach`, the largest squared OKLab
            /// distance a candidate may have, `(1 + okTolerance)²` times the OKLab-nearest
            /// member's (that member's own distance when the rule is plain OKLab).
            @inline(__always)
            func match(linear c: SIMD3<Float>) -> (offset: Int, reach: Float) {
                let lab = OKLab(linear: c)
                let l = SIMD8<Float>(repeating: lab.l)
                let a = SIMD8<Float>(repeating: lab.a)
                let b = SIMD8<Float>(repeating: lab.b)
                var best = SIMD8<Float>(repeating: .infinity)
                var bestIndex = SIMD8<Int32>(repeating: 0)
                var index = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
                var g = 0
                // Pass 1: nearest in OKLab.
                while g < groups.count {
                    let dl = l - groups[g], da = a - groups[g + 1], db = b - groups[g + 2]
                    let d = dl * dl + da * da + db * db
                    let closer = d .< best
                    best.replace(with: d, where: closer)
                    bestIndex.replace(with: index, where: closer)
                    index &+= 8
                    g += Subset.groupStride
                }
                let okWinner = Self.winner(best, bestIndex)
                if subset.srgbShare == 0 || subset.okTolerance == 0 { return (okWinner.index, okWinner.distance) }
                // Pass 2: within the tolerance of that distance, the smallest blended distance.
                let reach = (1 + subset.okTolerance) * (1 + subset.okTolerance) * okWinner.distance
                let limit = SIMD8<Float>(repeating: reach)
                let s = subset.srgbShare
                let labWeight = SIMD8<Float>(repeating: 1 - s), rgbWeight = SIMD8<Float>(repeating: s)
                func encoded(_ v: Float) -> SIMD8<Float> {
                    SIMD8(repeating: Float(LinearLight.encode8(v, buckets: buckets, thresholds: thresholds)) / 255)
                }
                let r = encoded(c.x), gr = encoded(c.y), bl = encoded(c.z)
                let y = Subset.luma(r[0], gr[0], bl[0])
                let wantedLuma = SIMD8<Float>(repeating: y)
                let lumaWeight = SIMD8<Float>(repeating: subset.lumaWeight)
                let lumaFloor = SIMD8<Float>(repeating: y * y + Subset.lumaC1)
                best = SIMD8<Float>(repeating: .infinity)
                bestIndex = SIMD8<Int32>(repeating: 0)
                index = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
                g = 0
                while g < groups.count {
                    let dl = l - groups[g], da = a - groups[g + 1], db = b - groups[g + 2]
                    let dr = r - groups[g + 3], dg = gr - groups[g + 4], dbl = bl - groups[g + 5]
                    let dok = dl * dl + da * da + db * db
                    let memberLuma = groups[g + 6], dy = wantedLuma - memberLuma
                    var d = labWeight * dok + rgbWeight * (dr * dr + dg * dg + dbl * dbl)
                    d += lumaWeight * dy * dy / (lumaFloor + memberLuma * memberLuma)
                    let closer = (d .< best) .& (dok .<= limit)
                    best.replace(with: d, where: closer)
                    bestIndex.replace(with: index, where: closer)
                    index &+= 8
                    g += Subset.groupStride
                }
                return (Self.winner(best, bestIndex).index, reach)
            }

            /// The blended cost of pass 2 above for each member in `lanes`, for the wanted
            /// linear-light colour `c`: `(1 - s) |ΔOKLab|² + s |ΔsRGB|² + w (y - y')² / (y² +
            /// y'² + C1)`, the same arithmetic lane for lane, so the member ``match(linear:)``
            /// chose has the least cost among the lanes that hold it. `.infinity` for members
            /// farther than `reach` in OKLab (not candidates) and for empty lanes. For the
            /// blended rule only (`srgbShare` and `okTolerance` above 0).
            @inline(__always)
            func costs(linear c: SIMD3<Float>, reach: Float, of lanes: Lanes) -> SIMD16<Float> {
                let lab = OKLab(linear: c)
                let dl = SIMD16<Float>(repeating: lab.l) - lanes.l
                let da = SIMD16<Float>(repeating: lab.a) - lanes.a
                let db = SIMD16<Float>(repeating: lab.b) - lanes.b
                func encoded(_ v: Float) -> Float {
                    Float(LinearLight.encode8(v, buckets: buckets, thresholds: thresholds)) / 255
                }
                let r = encoded(c.x), gr = encoded(c.y), bl = encoded(c.z)
                let y = Subset.luma(r, gr, bl)
                let dr = SIMD16<Float>(repeating: r) - lanes.red
                let dg = SIMD16<Float>(repeating: gr) - lanes.green
                let dbl = SIMD16<Float>(repeating: bl) - lanes.blue
                let dok = dl * dl + da * da + db * db
                let s = subset.srgbShare
                let dy = SIMD16<Float>(repeating: y) - lanes.luma
                var d = SIMD16<Float>(repeating: 1 - s) * dok + SIMD16<Float>(repeating: s) * (dr * dr + dg * dg + dbl * dbl)
                d += SIMD16<Float>(repeating: subset.lumaWeight) * dy * dy
                    / (SIMD16<Float>(repeating: y * y + Subset.lumaC1) + lanes.luma * lanes.luma)
                return d.replacing(with: .infinity, where: dok .> SIMD16<Float>(repeating: reach))
            }

            /// The lane with the smallest distance (ties: the lowest index).
            @inline(__always)
            static func winner(_ best: SIMD8<Float>, _ bestIndex: SIMD8<Int32>) -> (index: Int, distance: Float) {
                var winner = 0
                for lane in 1..<8 where best[lane] < best[winner] || (best[lane] == best[winner] && bestIndex[lane] < bestIndex[winner]) {
                    winner = lane
                }
                return (Int(bestIndex[winner]), best[winner])
            }
        }

        /// Up to 16 members in the lanes of `SIMD16` vectors, for ``Search/costs(linear:reach:of:)``.
        struct Lanes: Sendable {
            /// The members' offsets within the subset, one per used lane.
            let offsets: [Int]
            /// OKLab L, a, b; unused lanes far away (L = 1e9), so never within reach.
            let l, a, b: SIMD16<Float>
            /// sRGB R, G, B (0...1) and their Rec. 709 luma.
            let red, green, blue, luma: SIMD16<Float>

            init(subset: Subset, offsets: [Int]) {
                precondition(offsets.count <= 16, "at most 16 members a group of lanes")
                self.offsets = offsets
                var l = SIMD16<Float>(repeating: 1e9), a = SIMD16<Float>.zero, b = a, red = a, green = a, blue = a, luma = a
                for (lane, offset) in offsets.enumerated() {
                    let lab = XtermPalette.oklab[subset.base + offset], rgb = XtermPalette.colors[subset.base + offset]
                    l[lane] = lab.l
                    a[lane] = lab.a
                    b[lane] = lab.b
                    red[lane] = Float(rgb.r) / 255
                    green[lane] = Float(rgb.g) / 255
                    blue[lane] = Float(rgb.b) / 255
                    luma[lane] = Subset.luma(red[lane], green[lane], blue[lane])
                }
                (self.l, self.a, self.b, self.red, self.green, self.blue, self.luma) = (l, a, b, red, green, blue, luma)
            }
        }

        /// Offsets (ascending) of the members that are neutral greys (R = G = B): in 16-255 the
        /// cube's six (16, 59, 102, 145, 188, 231) and the 24-step ramp 232-255.
        var greyOffsets: [Int] {
            (0..<count).filter { let c = XtermPalette.colors[base + $0]; return c.r == c.g && c.g == c.b }
        }

        /// Palette index (0-255) nearest to the linear-light colour `c`.
        func nearestIndex(linear c: SIMD3<Float>) -> Int {
            withSearch { base + $0.nearestOffset(linear: c) }
        }
    }

    /// Indices 16-255: what the 256-colour mode may use. Perceptual first: among the members
    /// within 30 % of the OKLab-nearest distance, the one with the smallest 50 % OKLab + 50 %
    /// sRGB blend plus 0.1 times the relative luma error. Chosen by measurement
    /// (`docs/PERFORMANCE.md`, "Picture quality" and "256 colours: SSIM's luminance term"):
    /// the plain blend drew the French flag's red as hot pink (197); plain OKLab lost 1.3 dB of
    /// sRGB PSNR on photos; the luma term wins SSIM on the flag patches (dark blues that the
    /// sRGB blend alone drew too dark) and lowers their mean ΔE00, with every metric that was
    /// best still best.
    static let extended = Subset(16..<256, srgbShare: 0.5, okTolerance: 0.3, lumaWeight: 0.1)

    /// Indices 0-15: what the 16-colour mode may use, nearest by CIEDE2000. Chosen by
    /// measurement (`docs/PERFORMANCE.md`, "16 colours: nearest by CIEDE2000"): nearest in
    /// OKLab drew saturated mid greens and violets as grey 8 (green (0, 128, 0), ColorChecker
    /// green (70, 148, 73), the Nigerian green (0, 146, 70)); by ΔE00, the metric the quality
    /// table scores, they keep their hue, and the 48 flat patches' mean ΔE00 drops from 14.39
    /// to 13.33, chafa's being 17.95.
    static let ansi16 = Subset(0..<16, deltaE: true)

    /// Indices 0-15 matched in plain OKLab: what error diffusion uses in 16 colours
    /// (``PaletteQuantizer/diffused(_:palette:strength:)``).
    static let ansi16OKLab = Subset(0..<16)

    /// The subset for a palette colour mode's index range.
    static func subset(for indices: Range<Int>) -> Subset {
        indices == 0..<16 ? ansi16 : indices == 16..<256 ? extended : Subset(indices)
    }
}
