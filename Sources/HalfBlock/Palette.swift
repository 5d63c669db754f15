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

    /// A palette restricted to `indices`, with everything the quantiser needs laid out flat.
    struct Subset: Sendable {
        /// First palette index of the subset.
        let base: Int
        /// OKLab of each member, as (l, a, b) triples.
        let lab: [Float]
        /// Linear light of each member.
        let linear: [SIMD3<Float>]

        init(_ indices: Range<Int>) {
            base = indices.lowerBound
            lab = indices.flatMap { [XtermPalette.oklab[$0].l, XtermPalette.oklab[$0].a, XtermPalette.oklab[$0].b] }
            linear = indices.map { XtermPalette.linear[$0] }
        }

        /// Number of members.
        var count: Int { linear.count }

        /// Offset (0-based, within the subset) of the member nearest to `c` in OKLab.
        @inline(__always)
        func nearestOffset(_ c: OKLab, lab: UnsafeBufferPointer<Float>) -> Int {
            var best = 0
            var bestDistance = Float.infinity
            var j = 0
            var i = 0
            while j < lab.count {
                let dl = c.l - lab[j]
                let da = c.a - lab[j + 1]
                let db = c.b - lab[j + 2]
                let d = dl * dl + da * da + db * db
                if d < bestDistance {
                    bestDistance = d
                    best = i
                }
                j += 3
                i += 1
            }
            return best
        }

        /// Palette index (0-255) nearest to the linear-light colour `c`.
        func nearestIndex(linear c: SIMD3<Float>) -> Int {
            lab.withUnsafeBufferPointer { base + nearestOffset(OKLab(linear: c), lab: $0) }
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
