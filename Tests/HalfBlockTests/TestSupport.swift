@testable import HalfBlock

/// One RGBA pixel for building test images, 8-bit sRGB with straight alpha.
struct Pixel {
    var r: UInt8, g: UInt8, b: UInt8, a: UInt8
    init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    static let black = Pixel(0, 0, 0)
    static let white = Pixel(255, 255, 255)
    static let red = Pixel(255, 0, 0)
    static let green = Pixel(0, 255, 0)
    static let blue = Pixel(0, 0, 255)
    static let clear = Pixel(0, 0, 0, 0)
}

/// A `width` x `height` image from row-major pixels.
func makeImage(_ width: Int, _ height: Int, _ pixels: [Pixel]) -> RGBAImage {
    precondition(pixels.count == width * height)
    return RGBAImage(width: width, height: height, pixels: pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] })
}

/// A `width` x `height` image where every pixel is `pixel`.
func solidImage(_ width: Int, _ height: Int, _ pixel: Pixel) -> RGBAImage {
    makeImage(width, height, Array(repeating: pixel, count: width * height))
}

/// A `width` x `height` image whose pixels come from `color(x, y)`.
func makeImage(_ width: Int, _ height: Int, _ color: (Int, Int) -> Pixel) -> RGBAImage {
    var pixels = [Pixel]()
    for y in 0..<height {
        for x in 0..<width {
            pixels.append(color(x, y))
        }
    }
    return makeImage(width, height, pixels)
}

/// Shorthands for expected cells.
let upper: Unicode.Scalar = "\u{2580}"
let lower: Unicode.Scalar = "\u{2584}"
func rgb(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> TerminalColor { .rgb(RGB(r, g, b)) }
func grey(_ v: UInt8) -> TerminalColor { .rgb(RGB(v, v, v)) }
func space(_ c: TerminalColor) -> Cell { Cell(glyph: " ", foreground: c, background: c) }

/// Renders with `options`, at exactly `columns` x `rows` cells.
func render(_ image: RGBAImage, _ columns: Int, _ rows: Int, _ options: RenderOptions = RenderOptions()) -> CellGrid {
    HalfBlockRenderer.render(image, columns: columns, rows: rows, options: options)
}

let ESC = "\u{1B}"
