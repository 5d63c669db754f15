#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The sRGB transfer function (IEC 61966-2-1:1999) and fast tables for it.
///
/// Image bytes are gamma-encoded sRGB; averaging, compositing and error diffusion are done on
/// linear-light values in 0...1 instead, so that a 1-px black/white checker averages to linear
/// 0.5, which encodes as sRGB 188 (averaging the bytes would give the wrong, darker 127).
///
/// - Decoding (8-bit sRGB to linear) is a 256-entry table.
/// - Encoding (linear to 8-bit sRGB) is exact round-to-nearest: a 4096-bucket table gives a first
///   guess that is at most a step or two low, and the 255 decision thresholds (the linear values
///   of sRGB codes v + 0.5) correct it. So `encode8(decode8(v)) == v` for every byte.
enum LinearLight {
    /// sRGB-encoded `v` (0...1) to linear light (0...1), IEC 61966-2-1.
    static func decode(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear light `l` (0...1) to sRGB-encoded (0...1), IEC 61966-2-1.
    static func encode(_ l: Double) -> Double {
        l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1 / 2.4) - 0.055
    }

    /// Linear value of each 8-bit sRGB code: 256 entries.
    static let table: [Float] = (0..<256).map { Float(decode(Double($0) / 255)) }

    /// `thresholds[v]` is the linear value where the nearest code turns from `v` into `v + 1`:
    /// 255 entries, increasing.
    static let thresholds: [Float] = (0..<255).map { Float(decode((Double($0) + 0.5) / 255)) }

    /// Number of buckets of the encode table.
    static let bucketCount = 4096

    /// `buckets[i]` is the nearest code for linear `i / 4096`, a lower bound for the whole bucket.
    /// Built in one pass (bucket starts and thresholds both increase), so it costs microseconds
    /// at start-up, not the quarter-million comparisons of a search per bucket.
    static let buckets: [UInt8] = {
        var out = [UInt8]()
        out.reserveCapacity(bucketCount)
        var v = 0
        for i in 0..<bucketCount {
            let l = Float(i) / Float(bucketCount)
            while v < 255 && l >= thresholds[v] { v += 1 }
            out.append(UInt8(v))
        }
        return out
    }()

    /// Linear `l` to the nearest 8-bit sRGB code (clamped to 0...255; NaN gives 0).
    @inline(__always)
    static func encode8(_ l: Float, buckets: UnsafeBufferPointer<UInt8>, thresholds: UnsafeBufferPointer<Float>) -> UInt8 {
        guard l > 0 else { return 0 }
        guard l < 1 else { return 255 }
        var v = Int(buckets[Int(l * Float(bucketCount))])
        while v < 255 && l >= thresholds[v] { v += 1 }
        return UInt8(v)
    }

    /// Linear `l` to the nearest 8-bit sRGB code (convenience over the shared tables).
    static func encode8(_ l: Float) -> UInt8 {
        buckets.withUnsafeBufferPointer { b in
            thresholds.withUnsafeBufferPointer { t in encode8(l, buckets: b, thresholds: t) }
        }
    }

    /// An 8-bit sRGB colour to linear light, one Float per channel.
    static func linear(_ c: RGB) -> SIMD3<Float> {
        SIMD3(table[Int(c.r)], table[Int(c.g)], table[Int(c.b)])
    }

    /// Linear light (one Float per channel) to the nearest 8-bit sRGB colour.
    static func srgb(_ l: SIMD3<Float>) -> RGB {
        RGB(encode8(l.x), encode8(l.y), encode8(l.z))
    }
}
