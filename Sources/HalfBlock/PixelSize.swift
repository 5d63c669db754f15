/// A size in pixels: a decoded image's, a decode box's (the most pixels a decoder should hand
/// back, aspect kept, never enlarged), or a terminal cell's. One type for the pipeline's box, the
/// browser and the presenters; `width` and `height` are pixels, not clamped (callers that need at
/// least 1 say so).
public struct PixelSize: Hashable, Sendable {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}
