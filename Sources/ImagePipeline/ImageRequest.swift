import Foundation
import HalfBlock

/// What to load: an image URL and the pixel box it will be shown in.
///
/// The decoder shrinks on load to fit `maxPixelWidth` x `maxPixelHeight` (aspect kept, never
/// enlarged), so a 4000x3000 JPEG for a 16x8-pixel thumbnail never exists at full size in
/// memory. Two requests with the same URL and box share one load and one memory-cache entry.
public struct ImageRequest: Sendable, Hashable {
    /// http, https, file or data URL.
    public var url: URL
    /// Largest width of the decoded bitmap, in pixels (at least 1).
    public var maxPixelWidth: Int
    /// Largest height of the decoded bitmap, in pixels (at least 1).
    public var maxPixelHeight: Int
    /// Ignore the memory cache and download afresh (`r` on a row, `--reload`).
    public var reload: Bool
    /// Decode every frame of an animated GIF or WebP (``DecodedImage/animation``), for the
    /// full view; false (thumbnails, `render`): the first frame only.
    public var animated: Bool

    public init(url: URL, maxPixelWidth: Int, maxPixelHeight: Int, reload: Bool = false, animated: Bool = false) {
        self.url = url
        self.maxPixelWidth = max(1, maxPixelWidth)
        self.maxPixelHeight = max(1, maxPixelHeight)
        self.reload = reload
        self.animated = animated
    }

    /// The memory-cache and coalescing key: URL, pixel box and `animated`, not `reload`.
    var key: Key { Key(url: url.absoluteString, width: maxPixelWidth, height: maxPixelHeight, animated: animated) }

    struct Key: Hashable, Sendable {
        var url: String
        var width: Int
        var height: Int
        var animated = false
    }
}

/// A decoded image and what is known about its source.
public struct DecodedImage: Sendable, Equatable {
    /// The bitmap, shrunk to fit the request's pixel box: 8-bit sRGB RGBA.
    public var bitmap: RGBAImage
    /// Width of the original image in pixels, EXIF orientation applied.
    public var sourceWidth: Int
    /// Height of the original image in pixels, EXIF orientation applied (one frame's, for
    /// an animation).
    public var sourceHeight: Int
    /// Every frame of an animated GIF or WebP, for a request with `animated` set (the first is
    /// `bitmap`); nil for still images and for every other request.
    public var animation: Animation?

    public init(bitmap: RGBAImage, sourceWidth: Int, sourceHeight: Int, animation: Animation? = nil) {
        self.bitmap = bitmap
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.animation = animation
    }

    /// Bytes of pixels held: the bitmap's, or every frame's for an animation (the memory
    /// cache's cost).
    public var byteCount: Int { animation?.byteCount ?? bitmap.byteCount }
}
