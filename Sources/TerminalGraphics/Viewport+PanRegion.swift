import HalfBlock

/// A pan region: a part of the image larger than the area, at the viewport's scale, sent to a
/// terminal that keeps images (kitty) once, so that each pan step inside it is a placement of
/// a part of it (a source rectangle) instead of new pixels.
extension Viewport {
    /// A rectangle of pixels: in source pixels for regions, in the region picture's pixels for
    /// ``sourceRect(in:)``.
    public struct PixelRect: Sendable, Equatable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
        /// True when `other` lies inside this rectangle.
        public func contains(_ other: PixelRect) -> Bool {
            other.x >= x && other.y >= y && other.x + other.width <= x + width && other.y + other.height <= y + height
        }
    }

    /// The frame of a pan region around the visible one: the visible region (``frame``) with a
    /// margin of up to one visible region on each side, clipped to the image, at the current
    /// scale (``Frame/display`` is the region times the scale, not capped by the area). The
    /// margins shrink, in eighths, until the region's picture has at most `maxPixels` screen
    /// pixels (at the least it is the visible frame itself). Cut it with
    /// ``Frame/pixels(from:imageSize:)`` as any frame.
    public func panRegion(maxPixels: Int) -> Frame {
        let f = frame
        let s = scale
        var k = 8
        while true {
            let mx = f.region.width * k / 8, my = f.region.height * k / 8
            let x0 = max(0, f.region.x - mx), y0 = max(0, f.region.y - my)
            let x1 = min(image.width, f.region.x + f.region.width + mx)
            let y1 = min(image.height, f.region.y + f.region.height + my)
            let display = PixelSize(
                width: max(1, Int((Double(x1 - x0) * s).rounded())), height: max(1, Int((Double(y1 - y0) * s).rounded())))
            if k == 0 || display.width * display.height <= maxPixels {
                if k == 0 { return f }
                return Frame(region: (x0, y0, x1 - x0, y1 - y0), display: display, shrink: f.shrink, offset: f.offset)
            }
            k -= 1
        }
    }

    /// Where the visible frame lies in the picture of `region` (a ``panRegion(maxPixels:)``
    /// made at the same scale): its source rectangle in the region picture's pixels, ``frame``'s
    /// display size; nil when the visible region is not inside `region` (a new one is needed).
    public func sourceRect(in region: Frame) -> PixelRect? {
        let f = frame
        let outer = PixelRect(x: region.region.x, y: region.region.y, width: region.region.width, height: region.region.height)
        let inner = PixelRect(x: f.region.x, y: f.region.y, width: f.region.width, height: f.region.height)
        guard outer.contains(inner) else { return nil }
        let s = scale
        let w = min(f.display.width, region.display.width), h = min(f.display.height, region.display.height)
        let x = min(region.display.width - w, max(0, Int((Double(inner.x - outer.x) * s).rounded())))
        let y = min(region.display.height - h, max(0, Int((Double(inner.y - outer.y) * s).rounded())))
        return PixelRect(x: x, y: y, width: w, height: h)
    }

    /// Where the visible frame lies in the picture of `region`, a pan region made at another
    /// scale (`regionScale`, screen pixels per source pixel) of the same image, area and cell,
    /// for a terminal that scales a placement (kitty's `c` and `r` keys) to show a new zoom at
    /// once from the picture it has, while the region at the new scale is made: the cells the
    /// frame's display takes (`columns` x `rows`, rounded up) and the rectangle of the region
    /// picture's pixels that fills them undistorted (so up to a cell's worth of picture more
    /// than the display, to the right and below). Nil when that rectangle is not inside the
    /// region picture (the visible region is not inside `region`, or lies at its edge).
    public func scaledSourceRect(in region: Frame, regionScale: Double) -> (rect: PixelRect, columns: Int, rows: Int)? {
        let f = frame
        guard regionScale > 0 else { return nil }
        let outer = PixelRect(x: region.region.x, y: region.region.y, width: region.region.width, height: region.region.height)
        let inner = PixelRect(x: f.region.x, y: f.region.y, width: f.region.width, height: f.region.height)
        guard outer.contains(inner) else { return nil }
        let columns = (f.display.width + cell.width - 1) / cell.width
        let rows = (f.display.height + cell.height - 1) / cell.height
        // The cells' screen pixels in source pixels (at `scale`), then in the region picture's.
        let k = regionScale / scale
        let w = max(1, Int((Double(columns * cell.width) * k).rounded()))
        let h = max(1, Int((Double(rows * cell.height) * k).rounded()))
        let x = max(0, Int((Double(inner.x - outer.x) * regionScale).rounded()))
        let y = max(0, Int((Double(inner.y - outer.y) * regionScale).rounded()))
        guard x + w <= region.display.width, y + h <= region.display.height else { return nil }
        return (PixelRect(x: x, y: y, width: w, height: h), columns, rows)
    }

    /// True when the visible region comes within `eighths` eighths of a visible region (in
    /// width or height; 4, half of it, by default) of an edge of `region` that is not also the
    /// image's edge: time to ask for the next region (a prefetch), so it is there before the
    /// view leaves this one. False when the visible region is not inside `region`.
    public func nearsEdge(of region: Frame, eighths: Int = 4) -> Bool {
        let f = frame.region, r = region.region
        guard f.x >= r.x, f.y >= r.y, f.x + f.width <= r.x + r.width, f.y + f.height <= r.y + r.height else { return false }
        let mx = f.width * eighths / 8, my = f.height * eighths / 8
        if r.x > 0 && f.x - r.x < mx { return true }
        if r.x + r.width < image.width && r.x + r.width - (f.x + f.width) < mx { return true }
        if r.y > 0 && f.y - r.y < my { return true }
        if r.y + r.height < image.height && r.y + r.height - (f.y + f.height) < my { return true }
        return false
    }
}
