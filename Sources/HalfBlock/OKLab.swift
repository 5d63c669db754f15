#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A colour in OKLab (Björn Ottosson, "A perceptual color space for image processing", 2020,
/// https://bottosson.github.io/posts/oklab/).
///
/// `l` is perceived lightness (0 black ... 1 white); `a` green-red and `b` blue-yellow, about
/// -0.4...0.4. Euclidean distance approximates perceived difference, which is what the
/// 256-colour mode minimises (blended) when it picks the nearest palette colour; the 16-colour
/// mode, whose entries are far apart, uses ``CIEDE2000`` instead.
struct OKLab: Equatable {
    var l: Float
    var a: Float
    var b: Float

    init(l: Float, a: Float, b: Float) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// Converts linear-light sRGB (each channel 0...1, D65) with Ottosson's published M1/M2
    /// matrices and a cube root.
    init(linear c: SIMD3<Float>) {
        let l = 0.4122214708 * c.x + 0.5363325363 * c.y + 0.0514459929 * c.z
        let m = 0.2119034982 * c.x + 0.6806995451 * c.y + 0.1073969566 * c.z
        let s = 0.0883024619 * c.x + 0.2817188376 * c.y + 0.6299787005 * c.z
        let l3 = cbrtf(l)
        let m3 = cbrtf(m)
        let s3 = cbrtf(s)
        self.l = 0.2104542553 * l3 + 0.7936177850 * m3 - 0.0040720468 * s3
        self.a = 1.9779984951 * l3 - 2.4285922050 * m3 + 0.4505937099 * s3
        self.b = 0.0259040371 * l3 + 0.7827717662 * m3 - 0.8086757660 * s3
    }

    /// Converts an 8-bit sRGB colour.
    init(_ c: RGB) {
        self.init(linear: LinearLight.linear(c))
    }

    /// Squared Euclidean distance: enough to compare, no square root needed.
    @inline(__always)
    func distanceSquared(to o: OKLab) -> Float {
        let dl = l - o.l
        let da = a - o.a
        let db = b - o.b
        return dl * dl + da * da + db * db
    }

    /// OKLab lightness of a grey of linear luminance `y` (0...1): the cube root, since a grey
    /// has l = m = s = y.
    static func lightness(ofLuminance y: Float) -> Float {
        cbrtf(max(0, y))
    }
}
