/// A decoded bitmap: 8-bit sRGB RGBA with straight (not premultiplied) alpha.
///
/// Shape: `width * height * 4` bytes, row-major, top row first, R G B A per pixel. This is what
/// the image pipeline hands to the renderer; it lives in `HalfBlock`, the leaf module, so pixels
/// cross modules without conversion.
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels, at least 1.
    public let width: Int
    /// Height in pixels, at least 1.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A for each pixel, row after row.
    public var pixels: [UInt8]

    /// Wraps `pixels`; they must hold exactly `width * height * 4` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0, "an image has at least one pixel")
        precondition(pixels.count == width * height * 4, "pixels must hold width * height * 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Size in bytes of the pixel buffer (what a memory cache charges for it).
    public var byteCount: Int { pixels.count }
}

/// An image read one row at a time, top to bottom, each row once: what a row-by-row decoder
/// (libpng, `png_read_row`) gives, so that a resize never holds the whole image.
///
/// Rows are 8-bit sRGB RGBA with straight alpha, `width * 4` bytes, as in ``RGBAImage``.
public struct RGBARowSource {
    /// Width in pixels, at least 1.
    public let width: Int
    /// Height in pixels (rows), at least 1.
    public let height: Int
    /// Writes the next row into the `width * 4` bytes given; false when the source failed
    /// (damaged data): the consumer then stops and reports the failure.
    public let next: (UnsafeMutablePointer<UInt8>) -> Bool

    /// A source of `height` rows of `width` pixels; `next` fills one row per call.
    public init(width: Int, height: Int, next: @escaping (UnsafeMutablePointer<UInt8>) -> Bool) {
        precondition(width > 0 && height > 0, "an image has at least one pixel")
        self.width = width
        self.height = height
        self.next = next
    }
}
