import HalfBlock

/// The zoom and pan state of the full image view, pure: which part of the image is on screen,
/// at what scale, and what decode that needs.
///
/// Units: the image and regions in source pixels (EXIF orientation applied); the area in cells;
/// `scale` in screen pixels per source pixel (1 = 1:1, 0.5 = each screen pixel covers 2x2
/// source pixels). Zoom goes in steps along ``steps`` from ``Zoom/fit`` (the whole image in
/// the area, never enlarged) to 16x. Each ``Frame`` says which source region to decode and at
/// which shrink-on-load factor, so each step resamples from a decode at the resolution it needs
/// (never by enlarging an earlier, smaller decode).
public struct Viewport: Sendable, Equatable {
    /// The zoom: fitted to the area, or a fixed scale.
    public enum Zoom: Sendable, Equatable {
        case fit
        case scale(Double)
    }

    /// The zoom ladder, screen pixels per source pixel. 1 is 1:1.
    public static let steps: [Double] = [
        1.0 / 16, 1.0 / 12, 1.0 / 8, 1.0 / 6, 1.0 / 4, 1.0 / 3, 1.0 / 2, 2.0 / 3, 1, 1.5, 2, 3, 4, 6, 8, 12, 16,
    ]

    /// Size of the image in source pixels.
    public let image: PixelSize
    /// The area in cells and the cell size in pixels.
    public private(set) var columns: Int
    public private(set) var rows: Int
    public let cell: PixelSize
    public private(set) var zoom: Zoom = .fit
    /// The source pixel at the middle of the area (clamped so the view stays on the image).
    public private(set) var center: (x: Double, y: Double)

    public init(image: PixelSize, columns: Int, rows: Int, cell: PixelSize) {
        self.image = PixelSize(width: max(1, image.width), height: max(1, image.height))
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.cell = PixelSize(width: max(1, cell.width), height: max(1, cell.height))
        self.center = (Double(self.image.width) / 2, Double(self.image.height) / 2)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.image == b.image && a.columns == b.columns && a.rows == b.rows && a.cell == b.cell && a.zoom == b.zoom
            && a.center.x == b.center.x && a.center.y == b.center.y
    }

    /// The area in screen pixels.
    public var areaPixels: PixelSize { PixelSize(width: columns * cell.width, height: rows * cell.height) }

    /// The scale at which the whole image fits the area, at most 1 (small images are not enlarged).
    public var fitScale: Double {
        min(1, Double(areaPixels.width) / Double(image.width), Double(areaPixels.height) / Double(image.height))
    }

    /// The current scale, screen pixels per source pixel.
    public var scale: Double {
        switch zoom {
        case .fit: return fitScale
        case .scale(let s): return s
        }
    }

    /// One step in: the next ladder step above the current scale (at most 16).
    public mutating func zoomIn() {
        let s = scale
        if let next = Self.steps.first(where: { $0 > s * 1.0001 }) { zoom = .scale(next) }
        clampCenter()
    }

    /// One step out: the next ladder step below the current scale; never below the fit, where
    /// it becomes ``Zoom/fit`` again.
    public mutating func zoomOut() {
        let s = scale
        let fit = fitScale
        if let next = Self.steps.last(where: { $0 < s * 0.9999 }), next > fit * 1.0001 {
            zoom = .scale(next)
        } else {
            zoom = .fit
        }
        clampCenter()
    }

    /// Fit the whole image (`0` / `=` in viewers), centred.
    public mutating func fit() {
        zoom = .fit
        center = (Double(image.width) / 2, Double(image.height) / 2)
    }

    /// 1:1 pixels, keeping the centre.
    public mutating func actualSize() {
        zoom = .scale(1)
        clampCenter()
    }

    /// Moves the view by `columns` x `rows` cells (positive: right and down), clamped to the image.
    public mutating func pan(columns dx: Int, rows dy: Int) {
        center.x += Double(dx * cell.width) / scale
        center.y += Double(dy * cell.height) / scale
        clampCenter()
    }

    /// A new area size (terminal resize): zoom and centre kept, then clamped.
    public mutating func resize(columns: Int, rows: Int) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        clampCenter()
    }

    /// The same view with cells of `cell` pixels and an area of `columns` x `rows` cells (the
    /// terminal's font or its reported pixel size changed): the zoom and the centre are kept, as
    /// for a resize, then clamped; at ``Zoom/fit`` the new area's fit.
    public func withCell(_ cell: PixelSize, columns: Int, rows: Int) -> Viewport {
        var v = Viewport(image: image, columns: columns, rows: rows, cell: cell)
        v.zoom = zoom
        v.center = center
        v.clampCenter()
        return v
    }

    /// Keeps the visible region inside the image; a dimension smaller than the area stays centred.
    mutating func clampCenter() {
        let halfW = Double(areaPixels.width) / scale / 2
        let halfH = Double(areaPixels.height) / scale / 2
        let w = Double(image.width), h = Double(image.height)
        center.x = halfW * 2 >= w ? w / 2 : min(max(center.x, halfW), w - halfW)
        center.y = halfH * 2 >= h ? h / 2 : min(max(center.y, halfH), h - halfH)
    }

    /// What to draw now.
    public struct Frame: Sendable, Equatable {
        /// The visible part of the image in source pixels: x, y, width, height, inside the image.
        public var region: (x: Int, y: Int, width: Int, height: Int)
        /// Its size on screen in pixels (region times scale, at most the area).
        public var display: PixelSize
        /// Shrink-on-load factor for the decode: 1, 2, 4 or 8 (libjpeg's DCT scaling; libvips
        /// shrinks other formats by box averaging), the largest that still leaves at least
        /// `display` pixels, so the final resample only shrinks (or, past 1:1, enlarges the
        /// full-resolution decode).
        public var shrink: Int
        /// Where the picture goes inside the area, in cells from its top-left (centred when it
        /// is smaller than the area).
        public var offset: (columns: Int, rows: Int)

        public static func == (a: Self, b: Self) -> Bool {
            a.region.x == b.region.x && a.region.y == b.region.y && a.region.width == b.region.width
                && a.region.height == b.region.height && a.display == b.display && a.shrink == b.shrink
                && a.offset.columns == b.offset.columns && a.offset.rows == b.offset.rows
        }
    }

    /// The frame for the current zoom and centre.
    public var frame: Frame {
        let s = scale
        let area = areaPixels
        let regionW = min(image.width, max(1, Int((Double(area.width) / s).rounded(.down))))
        let regionH = min(image.height, max(1, Int((Double(area.height) / s).rounded(.down))))
        let x = min(max(0, Int((center.x - Double(regionW) / 2).rounded())), image.width - regionW)
        let y = min(max(0, Int((center.y - Double(regionH) / 2).rounded())), image.height - regionH)
        let display = PixelSize(
            width: min(area.width, max(1, Int((Double(regionW) * s).rounded()))),
            height: min(area.height, max(1, Int((Double(regionH) * s).rounded()))))
        var shrink = 1
        while shrink < 8 && Double(regionW) / Double(shrink * 2) >= Double(display.width)
            && Double(regionH) / Double(shrink * 2) >= Double(display.height)
        {
            shrink *= 2
        }
        let usedColumns = (display.width + cell.width - 1) / cell.width
        let usedRows = (display.height + cell.height - 1) / cell.height
        return Frame(
            region: (x, y, regionW, regionH), display: display, shrink: shrink,
            offset: ((columns - usedColumns) / 2, (rows - usedRows) / 2))
    }

    /// For the status line: `fit 16%` or `200%`, then the region, e.g.
    /// `200% · 1600,1200 800x600 of 4000x3000`.
    public var statusText: String {
        let f = frame
        let percent = Int((scale * 100).rounded())
        let zoomText = zoom == .fit ? "fit \(percent)%" : "\(percent)%"
        return "\(zoomText) · \(f.region.x),\(f.region.y) \(f.region.width)x\(f.region.height) of \(image.width)x\(image.height)"
    }
}
