/// A bitmap after compositing: opaque linear-light RGB per pixel, plus which pixels stay
/// transparent (shown as the terminal's default background).
struct CompositedImage {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// `width * height` colours, linear light, each channel 0...1, row-major.
    var colors: [SIMD3<Float>]
    /// `width * height` flags: `true` where the pixel is left to the terminal's background.
    /// Their entry in `colors` is black and must not be shown.
    var transparent: [Bool]
}

/// Composites premultiplied linear pixels onto a ``Background``, in linear light
/// (`out = premultiplied + (1 - alpha) * background`, Porter & Duff 1984 "over").
enum Compositor {
    /// Light squares of the `.checker` background, 8-bit sRGB.
    static let checkerLight = RGB(153, 153, 153)
    /// Dark squares of the `.checker` background, 8-bit sRGB.
    static let checkerDark = RGB(102, 102, 102)
    /// Side of a checker square, in pixels of the half-block grid.
    static let checkerSize = 8

    /// Composites `image` onto `background`.
    ///
    /// With `.terminalDefault` and `.terminal(rgb)`, pixels whose alpha is below `threshold`
    /// become transparent and the rest are composited onto black or `rgb`; the other
    /// backgrounds make every pixel opaque.
    static func composite(_ image: LinearImage, onto background: Background, threshold: Float) -> CompositedImage {
        let count = image.width * image.height
        var colors = [SIMD3<Float>](repeating: .zero, count: count)
        var transparent = [Bool](repeating: false, count: count)
        let light = LinearLight.linear(checkerLight), dark = LinearLight.linear(checkerDark)
        let fixed: SIMD3<Float>
        switch background {
        case .color(let c), .terminal(let c): fixed = LinearLight.linear(c)
        default: fixed = .zero
        }
        let one = SIMD3<Float>(repeating: 1)
        image.pixels.withUnsafeBufferPointer { px in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let i = y * image.width + x
                    let p = SIMD3(px[i * 4], px[i * 4 + 1], px[i * 4 + 2])
                    let alpha = min(max(px[i * 4 + 3], 0), 1)
                    switch background {
                    case .terminalDefault:
                        if alpha < threshold {
                            transparent[i] = true
                        } else {
                            colors[i] = p.clamped(lowerBound: .zero, upperBound: one)
                        }
                    case .terminal:
                        if alpha < threshold {
                            transparent[i] = true
                        } else {
                            colors[i] = (p + (1 - alpha) * fixed).clamped(lowerBound: .zero, upperBound: one)
                        }
                    case .color:
                        colors[i] = (p + (1 - alpha) * fixed).clamped(lowerBound: .zero, upperBound: one)
                    case .checker:
                        let lightSquare = ((x / checkerSize) + (y / checkerSize)) % 2 == 0
                        let under = lightSquare ? light : dark
                        colors[i] = (p + (1 - alpha) * under).clamped(lowerBound: .zero, upperBound: one)
                    }
                }
            }
        }
        return CompositedImage(width: image.width, height: image.height, colors: colors, transparent: transparent)
    }
}
