import HalfBlock

/// A size on the screen in cells (columns x rows; a cell is one character).
public struct CellSize: Hashable, Sendable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
}

/// The one decode-box rule of the browser: how many pixels to ask the pipeline for to show an
/// image in a box of cells. The list's and the grid's thumbnails (`GalleryLayout.pixelBox`)
/// and the full view (`ImageView`) all ask here.
public enum Sizes {
    /// Decoded pixels per half-block pixel along each axis in the browser: 2 (a cell of 1x2
    /// half-block pixels is decoded at 2x4 pixels). `vitrine render` uses the renderer's
    /// measured default of 4 (`HalfBlockRenderer.decodeOversampling`: +2.7 dB for about 10 %
    /// more CPU per picture); the browser decodes a screenful of thumbnails on every page and
    /// a new box on every size step, so it keeps half of that along each axis (a quarter of
    /// the pixels to shrink and keep in the memory cache).
    public static let halfBlockOversampling = 2

    /// The pixel box for an image shown in `cells`. With half blocks (`cellPixels` nil),
    /// `HalfBlockRenderer.decodeBox` at ``halfBlockOversampling``: `columns x 2` by
    /// `rows x 4` pixels. With a pixel protocol, the cells' own pixels (`cells` times the
    /// terminal's cell size in pixels): never more than the terminal shows. Each side at
    /// least 1.
    public static func decodeBox(for cells: CellSize, cellPixels: PixelSize? = nil) -> PixelSize {
        let columns = max(1, cells.columns), rows = max(1, cells.rows)
        if let cell = cellPixels {
            return PixelSize(width: columns * max(1, cell.width), height: rows * max(1, cell.height))
        }
        return HalfBlockRenderer.decodeBox(columns: columns, rows: rows, oversampling: halfBlockOversampling)
    }
}
