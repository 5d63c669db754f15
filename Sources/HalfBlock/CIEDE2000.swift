#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A colour in CIELAB (CIE 1976 L*a*b*) under D65, computed as `shared/tools/ansi_quality.py`
/// does (`srgb_to_lab`): linear sRGB to XYZ with the IEC 61966-2-1 matrix, divided by the D65
/// white (0.95047, 1, 1.08883), then CIE's `f` (cube root above (6/29)³, the linear segment
/// below). `l` is 0 (black) ... 100 (white); `a`, `b` about -128...128.
struct CIELab: Equatable {
    var l: Float
    var a: Float
    var b: Float

    init(l: Float, a: Float, b: Float) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// Converts linear-light sRGB (each channel 0...1; a little outside is allowed, as error
    /// diffusion asks).
    init(linear c: SIMD3<Float>) {
        let x = (0.4124564 * c.x + 0.3575761 * c.y + 0.1804375 * c.z) / 0.95047
        let y = 0.2126729 * c.x + 0.7151522 * c.y + 0.0721750 * c.z
        let z = (0.0193339 * c.x + 0.1191920 * c.y + 0.9503041 * c.z) / 1.08883
        @inline(__always) func f(_ t: Float) -> Float {
            t > 216 / 24389 ? cbrtf(t) : (24389 / 27 * t + 16) / 116
        }
        let fx = f(x), fy = f(y), fz = f(z)
        l = 116 * fy - 16
        a = 500 * (fx - fy)
        b = 200 * (fy - fz)
    }

    /// Converts an 8-bit sRGB colour.
    init(_ c: RGB) {
        self.init(linear: LinearLight.linear(c))
    }
}

/// The CIEDE2000 colour difference (CIE 142-2001; the formulas as in G. Sharma, W. Wu,
/// E. N. Dalal, "The CIEDE2000 color-difference formula: implementation notes, supplementary
/// test data, and mathematical observations", Color Res. Appl. 30, 2005), with kL = kC = kH = 1:
/// the metric `shared/tools/ansi_quality.py` scores mean ΔE00 with, and the one issue 14 names
/// for flat colours.
///
/// ``squaredDifferences(_:_:)`` measures one colour against 16 at once, as `SIMD16` lanes, with
/// no trigonometric call: the hue difference ΔH' comes from the dot and cross products of the
/// two (a', b) vectors, the mean hue h̄' from the sum of their unit vectors (the bisector of the
/// shorter arc, which is the standard's rule; for nearly opposite hues the perpendicular of
/// their difference), cos(n h̄') from products of cos h̄' and sin h̄',
/// and the rotation term's atan2, exp and sin are polynomials (errors under 2.1e-4 rad,
/// 1e-4 relative and 1e-7, which move Δθ by under 0.02°: far below the 0.0001 ΔE00 digits
/// of the published test data, which the unit tests reproduce to 0.002).
enum CIEDE2000 {
    /// Up to 16 colours laid out in lanes for ``squaredDifferences(_:_:)``.
    struct Members: Sendable {
        /// CIELAB L*, a*, b* of each member (lanes past ``count``: zero, never chosen).
        let l: SIMD16<Float>, a: SIMD16<Float>, b: SIMD16<Float>
        /// Chroma √(a*² + b*²) of each member.
        let chroma: SIMD16<Float>
        /// Number of real members (1...16).
        let count: Int
        /// Lanes at or past ``count``.
        let padding: SIMDMask<SIMD16<Int32>>

        init(_ colours: [CIELab]) {
            precondition(!colours.isEmpty && colours.count <= 16, "1 to 16 members")
            var l = SIMD16<Float>(repeating: 0), a = l, b = l
            for (lane, c) in colours.enumerated() {
                l[lane] = c.l
                a[lane] = c.a
                b[lane] = c.b
            }
            self.l = l
            self.a = a
            self.b = b
            chroma = (a * a + b * b).squareRoot()
            count = colours.count
            var lanes = SIMD16<Int32>(repeating: 0)
            for lane in 0..<16 { lanes[lane] = Int32(lane) }
            padding = lanes .>= Int32(colours.count)
        }
    }

    /// 25⁷, the constant of G and R_C, rounded to the nearest `Float` (6,103,515,648: a float
    /// cannot hold 6,103,515,625; written from the `Double` so the rounding is stated, not warned).
    static let twentyFive7 = Float(6_103_515_625.0 as Double)

    /// ΔE00² from `p` to every member (lanes past the members' count: +∞). Squared, since
    /// comparing needs no square root.
    @inline(__always)
    static func squaredDifferences(_ p: CIELab, _ m: Members) -> SIMD16<Float> {
        typealias V = SIMD16<Float>
        let zero = V(repeating: 0), one = V(repeating: 1)
        let c1 = (p.a * p.a + p.b * p.b).squareRoot()
        // a' = (1 + G) a, G = (1 - √(C̄⁷ / (C̄⁷ + 25⁷))) / 2 over the mean chroma C̄.
        let cMean = (m.chroma + c1) * 0.5
        let g = 0.5 * (one - (pow7(cMean) / (pow7(cMean) + twentyFive7)).squareRoot())
        let a1 = (one + g) * p.a, a2 = (one + g) * m.a
        let b1 = V(repeating: p.b)
        let c1p = (a1 * a1 + b1 * b1).squareRoot(), c2p = (a2 * a2 + m.b * m.b).squareRoot()
        let dL = m.l - p.l
        let dC = c2p - c1p
        // ΔH' = 2 √(C1' C2') sin(Δh' / 2): its square is Δa'² + Δb² - ΔC'² (= 2 (C1' C2' -
        // a1' a2' - b1 b2), which cancels for equal colours) and its sign the cross product's;
        // both are 0 when either chroma is (Δh' := 0).
        let da = a2 - a1, db = m.b - b1
        let dH2 = (da * da + db * db - dC * dC).replacing(with: 0, where: (c1p * c2p) .== zero)
        var dH = dH2.replacing(with: 0, where: dH2 .< zero).squareRoot()
        dH.replace(with: -dH, where: (a1 * m.b - b1 * a2) .< zero)
        let lMean = (p.l + m.l) * 0.5 - 50
        let sL = one + 0.015 * lMean * lMean / (20 + lMean * lMean).squareRoot()
        let cMeanP = (c1p + c2p) * 0.5
        let sC = one + 0.045 * cMeanP
        // h̄' as a unit vector: the sum of the two hue directions (a zero chroma has none, and
        // then h̄' is the other's hue, as the standard's h1' + h2').
        let u1x = (a1 / c1p).replacing(with: 0, where: c1p .== zero), u1y = (b1 / c1p).replacing(with: 0, where: c1p .== zero)
        let u2x = (a2 / c2p).replacing(with: 0, where: c2p .== zero), u2y = (m.b / c2p).replacing(with: 0, where: c2p .== zero)
        // Nearly opposite hues cancel in that sum: there the bisector is taken as the
        // perpendicular of the difference, on the side of the shorter arc (the cross product's).
        let sx = u1x + u2x, sy = u1y + u2y, wx = u1x - u2x, wy = u1y - u2y
        let side = V(repeating: 1).replacing(with: -1, where: (u1x * u2y - u1y * u2x) .< zero)
        let opposite = (wx * wx + wy * wy) .> (sx * sx + sy * sy)
        let vx = sx.replacing(with: -wy * side, where: opposite), vy = sy.replacing(with: wx * side, where: opposite)
        let norm = (vx * vx + vy * vy).squareRoot()
        let none = norm .== zero
        let cosH = (vx / norm).replacing(with: 1, where: none), sinH = (vy / norm).replacing(with: 0, where: none)
        let cos2 = cosH * cosH - sinH * sinH, sin2 = 2 * cosH * sinH
        let cos3 = cos2 * cosH - sin2 * sinH, sin3 = sin2 * cosH + cos2 * sinH
        let cos4 = cos2 * cos2 - sin2 * sin2, sin4 = 2 * sin2 * cos2
        // T = 1 - 0.17 cos(h̄' - 30°) + 0.24 cos 2h̄' + 0.32 cos(3h̄' + 6°) - 0.20 cos(4h̄' - 63°).
        let term1: V = cosH * 0.866_025_4 + sinH * 0.5
        let term3: V = cos3 * 0.994_521_9 - sin3 * 0.104_528_46
        let term4: V = cos4 * 0.453_990_5 + sin4 * 0.891_006_5
        var t: V = one - 0.17 * term1
        t += 0.24 * cos2
        t += 0.32 * term3
        t -= 0.20 * term4
        let sH = one + 0.015 * cMeanP * t
        // R_T = -sin(2 Δθ) R_C, Δθ = 30° exp(-((h̄' - 275°) / 25°)²), R_C = 2 √(C̄'⁷ / (C̄'⁷ + 25⁷)).
        let cos275: Float = 0.087_155_74, sin275: Float = -0.996_194_7
        let fromBlue = atan2Degrees(sinH * cos275 - cosH * sin275, cosH * cos275 + sinH * sin275)
        let x = fromBlue / 25
        let dTheta = 30 * expNegative(x * x)
        let rC = 2 * (pow7(cMeanP) / (pow7(cMeanP) + twentyFive7)).squareRoot()
        let rT = -sinSmall(dTheta * (2 * Float.pi / 180)) * rC
        // One division for the three quotients dL / S_L, dC / S_C, dH / S_H.
        let sCH = sC * sH, inverse = one / (sL * sCH)
        let l = dL * sCH * inverse, c = dC * (sL * sH) * inverse, h = dH * (sL * sC) * inverse
        let e2 = l * l + c * c + h * h + rT * c * h
        return e2.replacing(with: .infinity, where: m.padding)
    }

    /// x⁷, lane by lane.
    @inline(__always)
    static func pow7(_ x: SIMD16<Float>) -> SIMD16<Float> {
        let x2 = x * x
        return x2 * x2 * x2 * x
    }

    /// atan2(y, x) in degrees (-180...180), lane by lane: a degree-7 odd polynomial on 0...1
    /// (error under 2.1e-4 rad, 0.012°) and octant folding.
    @inline(__always)
    static func atan2Degrees(_ y: SIMD16<Float>, _ x: SIMD16<Float>) -> SIMD16<Float> {
        typealias V = SIMD16<Float>
        // (No pointwiseMin/Max or clamped: pointwiseMax on SIMD16 measured 184 ns a call here,
        // a lane-by-lane loop; comparisons and replacing compile to vector operations.)
        let ax: V = x.replacing(with: -x, where: x .< 0), ay: V = y.replacing(with: -y, where: y .< 0)
        let yHigher = ay .> ax
        let high: V = ax.replacing(with: ay, where: yHigher), low: V = ay.replacing(with: ax, where: yHigher)
        let ratio: V = low / high
        let t: V = ratio.replacing(with: 0, where: high .== V(repeating: 0))
        let s: V = t * t
        var p: V = -0.046_496_474_9 * s
        p += 0.159_314_22
        p = p * s
        p -= 0.327_622_764
        var r: V = p * s * t
        r += t
        r.replace(with: Float.pi / 2 - r, where: yHigher)
        r.replace(with: Float.pi - r, where: x .< 0)
        r.replace(with: -r, where: y .< 0)
        return r * (180 / Float.pi)
    }

    /// e^(-z) for z ≥ 0, lane by lane: (e^(-z/64))⁶⁴ with a degree-6 Taylor polynomial
    /// (relative error about 1e-4); 0 beyond z = 30.
    @inline(__always)
    static func expNegative(_ z: SIMD16<Float>) -> SIMD16<Float> {
        let big = z .> 30
        typealias V = SIMD16<Float>
        let u: V = z.replacing(with: 0, where: big).replacing(with: 0, where: z .< 0) * (-1.0 / 64)
        var e = V(repeating: 1.0 / 720)
        e = e * u + 1.0 / 120
        e = e * u + 1.0 / 24
        e = e * u + 1.0 / 6
        e = e * u + 0.5
        e = e * u + 1
        e = e * u + 1
        for _ in 0..<6 { e *= e }
        return e.replacing(with: 0, where: big)
    }

    /// sin x for 0 ≤ x ≤ π/3, lane by lane: Taylor to x⁹ (error under 1e-7).
    @inline(__always)
    static func sinSmall(_ x: SIMD16<Float>) -> SIMD16<Float> {
        typealias V = SIMD16<Float>
        let s: V = x * x
        var p = V(repeating: 1.0 / 362_880)
        p = 1.0 / 5040 - s * p
        p = 1.0 / 120 - s * p
        p = 1.0 / 6 - s * p
        p = 1 - s * p
        return x * p
    }
}
