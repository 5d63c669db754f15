/// The xterm 256-colour palette and nearest-colour search (OKLab, blended with sRGB for 256 colours).
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

    /// A palette restricted to `indices`, laid out for a fast nearest-colour search.
    ///
    /// The distance is a blend of two squared Euclidean distances,
    /// `(1 - s) * |ΔOKLab|² + s * |ΔsRGB|²` with `s = srgbShare` and sRGB scaled to 0...1:
    /// OKLab (Ottosson 2020) matches what the eye sees (mean CIEDE2000, SSIM), gamma-encoded
    /// sRGB matches code values (PSNR). Each point is embedded in six dimensions
    /// (`√(1-s)·(L, a, b)`, `√s·(R, G, B)`), where the plain Euclidean distance is the blend.
    /// The search is exhaustive (the exact nearest member), eight members at a time: the
    /// members' coordinates are stored as groups of six `SIMD8<Float>`, padded with members too
    /// far away to ever win.
    struct Subset: Sendable {
        /// First palette index of the subset.
        let base: Int
        /// Number of members.
        let count: Int
        /// Weight of the sRGB distance in the blend (0 = plain OKLab distance, 1 = plain sRGB).
        let srgbShare: Float
        /// `ceil(count / 8)` groups of six vectors (L, a, b, R, G, B), already weighted.
        let groups: [SIMD8<Float>]
        /// Linear light of each member.
        let linear: [SIMD3<Float>]
        /// `√(1 - srgbShare)` and `√srgbShare`: the factors of the embedding.
        let labFactor: Float, srgbFactor: Float

        init(_ indices: Range<Int>, srgbShare: Float = 0) {
            base = indices.lowerBound
            count = indices.count
            self.srgbShare = srgbShare
            labFactor = (1 - srgbShare).squareRoot()
            srgbFactor = srgbShare.squareRoot()
            linear = indices.map { XtermPalette.linear[$0] }
            var groups = [SIMD8<Float>]()
            let members = Array(indices)
            for start in stride(from: 0, to: members.count, by: 8) {
                var lanes = [SIMD8<Float>](repeating: SIMD8(repeating: 0), count: 6)
                lanes[0] = SIMD8(repeating: 1e9)
                for lane in 0..<8 where start + lane < members.count {
                    let lab = XtermPalette.oklab[members[start + lane]]
                    let rgb = XtermPalette.colors[members[start + lane]]
                    lanes[0][lane] = lab.l * labFactor
                    lanes[1][lane] = lab.a * labFactor
                    lanes[2][lane] = lab.b * labFactor
                    lanes[3][lane] = Float(rgb.r) / 255 * srgbFactor
                    lanes[4][lane] = Float(rgb.g) / 255 * srgbFactor
                    lanes[5][lane] = Float(rgb.b) / 255 * srgbFactor
                }
                groups += lanes
            }
            self.groups = groups
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
                let lab = OKLab(linear: c)
                let labFactor = subset.labFactor
                let l = SIMD8<Float>(repeating: lab.l * labFactor)
                let a = SIMD8<Float>(repeating: lab.a * labFactor)
                let b = SIMD8<Float>(repeating: lab.b * labFactor)
                var best = SIMD8<Float>(repeating: .infinity)
                var bestIndex = SIMD8<Int32>(repeating: 0)
                var index = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
                var g = 0
                if subset.srgbShare == 0 {
                    while g < groups.count {
                        let dl = l - groups[g], da = a - groups[g + 1], db = b - groups[g + 2]
                        let d = dl * dl + da * da + db * db
                        let closer = d .< best
                        best.replace(with: d, where: closer)
                        bestIndex.replace(with: index, where: closer)
                        index &+= 8
                        g += 6
                    }
                } else {
                    let scale = subset.srgbFactor / 255
                    func encoded(_ v: Float) -> SIMD8<Float> {
                        SIMD8(repeating: Float(LinearLight.encode8(v, buckets: buckets, thresholds: thresholds)) * scale)
                    }
                    let r = encoded(c.x), gr = encoded(c.y), bl = encoded(c.z)
                    while g < groups.count {
                        let dl = l - groups[g], da = a - groups[g + 1], db = b - groups[g + 2]
                        let dr = r - groups[g + 3], dg = gr - groups[g + 4], dbl = bl - groups[g + 5]
                        let d = dl * dl + da * da + db * db + dr * dr + dg * dg + dbl * dbl
                        let closer = d .< best
                        best.replace(with: d, where: closer)
                        bestIndex.replace(with: index, where: closer)
                        index &+= 8
                        g += 6
                    }
                }
                var winner = 0
                for lane in 1..<8 where best[lane] < best[winner] || (best[lane] == best[winner] && bestIndex[lane] < bestIndex[winner]) {
                    winner = lane
                }
                return Int(bestIndex[winner])
            }
        }

        /// Palette index (0-255) nearest to the linear-light colour `c`.
        func nearestIndex(linear c: SIMD3<Float>) -> Int {
            withSearch { base + $0.nearestOffset(linear: c) }
        }
    }

    /// Indices 16-255: what the 256-colour mode may use, matched with 30 % sRGB distance and
    /// 70 % OKLab. Chosen by measurement (`docs/PERFORMANCE.md`, "Picture quality"): plain OKLab
    /// had the best mean ΔE00 and SSIM but lost sRGB PSNR to chafa's nearest-in-RGB by 1.2 dB;
    /// this blend is ahead of every peer on all four metrics on the test photos.
    static let extended = Subset(16..<256, srgbShare: 0.3)

    /// Indices 0-15: what the 16-colour mode may use.
    static let ansi16 = Subset(0..<16)

    /// The subset for a palette colour mode's index range.
    static func subset(for indices: Range<Int>) -> Subset {
        indices == 0..<16 ? ansi16 : indices == 16..<256 ? extended : Subset(indices)
    }
}
