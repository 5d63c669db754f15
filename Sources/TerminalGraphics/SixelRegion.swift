import HalfBlock

/// A sixel pan region: one palette and the dithered palette indices of a picture larger than
/// the area (a ``Viewport/panRegion(maxPixels:)`` cut at the viewport's scale), made once, so
/// that each pan step inside it is only Vitrine's band encoder over the indices of the visible
/// rectangle (``sixel(_:)``): no median cut, no resample, no dither or lookup a step.
///
/// The palette is libsixel's median cut over the whole region (``SixelPalette/init(choosingFor:background:colors:)``),
/// one for every step inside it instead of one chosen for each step; the ordered dither is
/// anchored to the region's top-left, so the indices of a rectangle are those of dithering
/// that rectangle alone with its offset in the region as the origin
/// (``SixelPalette/indices(_:background:amplitude:origin:)``), and two steps agree on the
/// pixels they share. Bands are counted from the rectangle's top row (the view's, as a
/// picture of its own). Memory: one byte a region pixel.
///
/// Immutable after init: Sendable (made on the picture worker's queue, used there for the
/// steps).
public final class SixelRegion: Sendable {
    /// The region's palette.
    public let palette: SixelPalette
    /// Palette index of each region pixel, `width` a row, rows top first.
    public let indices: [UInt8]
    /// The region picture's size, in pixels.
    public let width: Int
    public let height: Int
    /// True when every pixel of the region's picture had alpha 255 (so every cut of it has).
    public let opaque: Bool

    /// The ordered dither's amplitude for a region's indices: 4 levels, half the settled
    /// picture's (``SixelPalette/ditherAmplitude``). A region's steps are drawn only while keys
    /// come (the settled picture replaces them 250 ms after the last), and on the nine views of
    /// the 1200x780 test step they are 0.72x the bytes at 8 levels with 0.2-0.6 dB more PSNR
    /// (ImageMagick's decode), so 2-3 ms less a step through the pty; smooth areas show
    /// slightly coarser contours meanwhile (docs/PERFORMANCE.md, "tenth part").
    public static let ditherAmplitude = 4

    /// The region of `pixels` (the region's picture, alpha composited over `background`): its
    /// palette chosen by median cut and its indices dithered (``ditherAmplitude``) from its
    /// top-left. Nil when libsixel is not available (its median cut).
    public init?(pixels: RGBAImage, background: RGB) {
        guard let palette = SixelPalette(choosingFor: pixels, background: background) else { return nil }
        self.palette = palette
        indices = palette.indices(pixels, background: background, amplitude: Self.ditherAmplitude)
        width = pixels.width
        height = pixels.height
        opaque = KittyPresenter.isOpaque(pixels)
    }

    /// The complete sixel sequence (`DCS q … ST`, 7-bit, not wrapped for tmux) of the rectangle
    /// `rect` of the region (pixels of the region's picture; clipped to it).
    public func sixel(_ rect: Viewport.PixelRect) -> [UInt8] {
        let x = min(max(0, rect.x), width - 1), y = min(max(0, rect.y), height - 1)
        let w = max(1, min(rect.width, width - x)), h = max(1, min(rect.height, height - y))
        return palette.encode(indices: indices, stride: width, x: x, y: y, width: w, height: h)
    }

    /// The sixel sequence of the rectangle `rect` of the region (clipped to it) scaled to
    /// `size` pixels by nearest neighbour on the indices: a draft of a zoom step from the
    /// region of the last zoom (``Viewport/scaledSourceRect(in:regionScale:)``), until the
    /// region at the new zoom is made. The dither pattern is scaled with the picture.
    public func sixel(scaling rect: Viewport.PixelRect, to size: PixelSize) -> [UInt8] {
        let x = min(max(0, rect.x), width - 1), y = min(max(0, rect.y), height - 1)
        let w = max(1, min(rect.width, width - x)), h = max(1, min(rect.height, height - y))
        let outW = max(1, size.width), outH = max(1, size.height)
        // Source column of each output column (the centre of the output pixel, floored).
        let columns = (0..<outW).map { x + min(w - 1, (2 * $0 + 1) * w / (2 * outW)) }
        let scaled = [UInt8](unsafeUninitializedCapacity: outW * outH) { out, count in
            indices.withUnsafeBufferPointer { src in
                columns.withUnsafeBufferPointer { cx in
                    for oy in 0..<outH {
                        let row = (y + min(h - 1, (2 * oy + 1) * h / (2 * outH))) * width
                        let o = oy * outW
                        for ox in 0..<outW { out[o + ox] = src[row + cx[ox]] }
                    }
                }
            }
            count = outW * outH
        }
        return palette.encode(indices: scaled, stride: outW, x: 0, y: 0, width: outW, height: outH)
    }
}

extension PictureEncoder {
    /// The rectangle `rect` of `region` scaled to `size` as a sixel picture for this encoder's
    /// terminal (wrapped for tmux when needed): a zoom step's draft (``SixelRegion/sixel(scaling:to:)``).
    public func encode(region: SixelRegion, scaling rect: Viewport.PixelRect, to size: PixelSize) -> EncodedPicture {
        let sixel = region.sixel(scaling: rect, to: size)
        return EncodedPicture(
            pixelProtocol: .sixel, width: max(1, size.width), height: max(1, size.height), opaque: region.opaque,
            payload: .sequence(context.wrap(sixel)))
    }

    /// The rectangle `rect` of `region` as a sixel picture for this encoder's terminal
    /// (wrapped for tmux when needed): a pan step from the region (``SixelRegion/sixel(_:)``).
    public func encode(region: SixelRegion, rect: Viewport.PixelRect) -> EncodedPicture {
        let x = min(max(0, rect.x), region.width - 1), y = min(max(0, rect.y), region.height - 1)
        let w = max(1, min(rect.width, region.width - x)), h = max(1, min(rect.height, region.height - y))
        let sixel = region.sixel(Viewport.PixelRect(x: x, y: y, width: w, height: h))
        return EncodedPicture(
            pixelProtocol: .sixel, width: w, height: h, opaque: region.opaque, payload: .sequence(context.wrap(sixel)))
    }
}
