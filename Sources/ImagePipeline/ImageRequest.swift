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

    public init(url: URL, maxPixelWidth: Int, maxPixelHeight: Int, reload: Bool = false) {
        self.url = url
        self.maxPixelWidth = max(1, maxPixelWidth)
        self.maxPixelHeight = max(1, maxPixelHeight)
        self.reload = reload
    }

    /// The memory-cache and coalescing key: URL and pixel box, not `reload`.
    var key: Key { Key(url: url.absoluteString, width: maxPixelWidth, height: maxPixelHeight) }

    struct Key: Hashable, Sendable {
        var url: String
        var width: Int
        var height: Int
    }
}

/// A decoded image and what is known about its source.
public struct DecodedImage: Sendable, Equatable {
    /// The bitmap, shrunk to fit the request's pixel box: 8-bit sRGB RGBA.
    public var bitmap: RGBAImage
    /// Width of the original image in pixels, EXIF orientation applied.
    public var sourceWidth: Int
    /// Height of the original image in pixels, EXIF orientation applied.
    public var sourceHeight: Int

    public init(bitmap: RGBAImage, sourceWidth: Int, sourceHeight: Int) {
        self.bitmap = bitmap
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
    }
}
