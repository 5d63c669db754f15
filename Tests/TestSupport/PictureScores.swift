import Foundation
import HalfBlock

/// PSNR in dB of the RGB channels of `b` against `a` (alpha is left out): 10·log10(255² / MSE),
/// the MSE taken over every pixel's three 8-bit channels. Identical pictures score `.infinity`.
/// Both pictures must have the same width and height (pixels); a mismatch is a test bug and traps.
public func psnr(_ a: RGBAImage, _ b: RGBAImage) -> Double {
    precondition(a.width == b.width && a.height == b.height, "psnr of pictures of different sizes")
    var sum = 0.0
    for i in 0..<(a.width * a.height) {
        for c in 0..<3 {
            let d = Double(a.pixels[4 * i + c]) - Double(b.pixels[4 * i + c])
            sum += d * d
        }
    }
    let mse = sum / Double(a.width * a.height * 3)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}
