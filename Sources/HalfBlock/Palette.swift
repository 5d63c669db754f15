/// The xterm 256-colour palette and nearest-colour search in OKLab.
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
    /// The search is exhaustive (exact nearest in OKLab), eight members at a time: the members'
    /// OKLab coordinates are stored as groups of three `SIMD8<Float>` (l, a, b), padded with
    /// members too far away to ever win.
    struct Subset: Sendable {
        /// First palette index of the subset.
        let base: Int
        /// Number of members.
        let count: Int
        /// Factor on OKLab l before distances are taken (1 = plain OKLab distance).
        let lightnessScale: Float
        /// `ceil(count / 8)` groups of (l, a, b) vectors; l is multiplied by `lightnessScale`.
        let groups: [SIMD8<Float>]
        /// Linear light of each member.
        let linear: [SIMD3<Float>]

        init(_ indices: Range<Int>, lightnessScale: Float = 1) {
            base = indices.lowerBound
            count = indices.count
            self.lightnessScale = lightnessScale
            linear = indices.map { XtermPalette.linear[$0] }
            var groups = [SIMD8<Float>]()
            let members = Array(indices)
            for start in stride(from: 0, to: members.count, by: 8) {
                var l = SIMD8<Float>(repeating: 1e9), a = SIMD8<Float>(repeating: 0), b = SIMD8<Float>(repeating: 0)
                for lane in 0..<8 where start + lane < members.count {
                    let lab = XtermPalette.oklab[members[start + lane]]
                    l[lane] = lab.l * lightnessScale
                    a[lane] = lab.a
                    b[lane] = lab.b
                }
                groups += [l, a, b]
            }
            self.groups = groups
        }

        /// Offset (0-based, within the subset) of the member nearest to `c` in OKLab; ties go
        /// to the lowest offset.
        @inline(__always)
        func nearestOffset(_ c: OKLab, groups: UnsafeBufferPointer<SIMD8<Float>>) -> Int {
            let l = SIMD8<Float>(repeating: c.l * lightnessScale)
            let a = SIMD8<Float>(repeating: c.a)
            let b = SIMD8<Float>(repeating: c.b)
            var best = SIMD8<Float>(repeating: .infinity)
            var bestIndex = SIMD8<Int32>(repeating: 0)
            var index = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
            var g = 0
            while g < groups.count {
                let dl = l - groups[g], da = a - groups[g + 1], db = b - groups[g + 2]
                let d = dl * dl + da * da + db * db
                let closer = d .< best
                best.replace(with: d, where: closer)
                bestIndex.replace(with: index, where: closer)
                index &+= 8
                g += 3
            }
            var winner = 0
            for lane in 1..<8 where best[lane] < best[winner] || (best[lane] == best[winner] && bestIndex[lane] < bestIndex[winner]) {
                winner = lane
            }
            return Int(bestIndex[winner])
        }

        /// Palette index (0-255) nearest to the linear-light colour `c`.
        func nearestIndex(linear c: SIMD3<Float>) -> Int {
            groups.withUnsafeBufferPointer { base + nearestOffset(OKLab(linear: c), groups: $0) }
        }
    }

    /// Indices 16-255: what the 256-colour mode may use.
    static let extended = Subset(16..<256)

    /// Indices 0-15: what the 16-colour mode may use.
    static let ansi16 = Subset(0..<16)

    /// The subset for a palette colour mode's index range.
    static func subset(for indices: Range<Int>) -> Subset {
        indices == 0..<16 ? ansi16 : indices == 16..<256 ? extended : Subset(indices)
    }
}
