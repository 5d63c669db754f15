/// Renders an ``RGBAImage`` as half-block cells: each cell shows two vertically stacked pixels,
/// the top one in the foreground colour of U+2580 "▀" and the bottom one in its background.
///
/// The stages, in order:
/// 1. ``BoxFilter``: exact area-average resize to `columns` x `2 * rows` pixels, premultiplied,
///    in linear light (IEC 61966-2-1 transfer function).
/// 2. ``Compositor``: alpha onto the chosen ``Background``, in linear light.
/// 3. Colour encoding for the ``ColorMode``: 24-bit sRGB, nearest xterm palette index (OKLab,
///    Ottosson 2020, blended with sRGB distance in 256 colours; CIEDE2000 in 16 colours) with
///    optional ``Dithering``, or a shading glyph.
/// 4. Cells: "▀" (fg top, bg bottom); a space in the background colour when both halves match;
///    "▄" when only the top half is transparent, so the transparent half is always the cell's
///    default background.
///
/// Pure and `Sendable`: call it from any thread.
public enum HalfBlockRenderer {
    /// A pixel whose alpha after the resize is below this (0...1) counts as fully transparent
    /// under `.terminalDefault` (about 1.6 %, i.e. 4 of 255).
    public static let transparencyThreshold: Float = 4.0 / 255

    /// The largest cell box (`columns`, `rows`), at most `maxColumns` x `maxRows`, that shows an
    /// `imageWidth` x `imageHeight`-pixel picture with its aspect ratio kept.
    ///
    /// A cell is `cellAspect` times as tall as it is wide (2.0 for 1:2 cells, which then hold two
    /// square half-block pixels). The side that does not reach its limit is rounded to the
    /// nearest cell. Small pictures are scaled up to fill the box. Always at least 1x1; sizes
    /// below 1 are treated as 1.
    public static func fittedSize(
        imageWidth: Int, imageHeight: Int, maxColumns: Int, maxRows: Int, cellAspect: Double = 2.0
    ) -> (columns: Int, rows: Int) {
        let w = Double(max(imageWidth, 1)), h = Double(max(imageHeight, 1))
        let maxC = max(maxColumns, 1), maxR = max(maxRows, 1)
        let aspect = cellAspect.isFinite && cellAspect > 0 ? cellAspect : 2.0
        // Rows needed when the picture spans every column: height / width in cell units.
        let rowsAtFullWidth = (Double(maxC) * h / (w * aspect)).rounded()
        if rowsAtFullWidth <= Double(maxR) {
            return (maxC, max(1, Int(rowsAtFullWidth)))
        }
        let columnsAtFullHeight = (Double(maxR) * aspect * w / h).rounded()
        return (min(maxC, max(1, Int(columnsAtFullHeight))), maxR)
    }

    /// Renders `image` into exactly `columns` x `rows` cells, stretching it to fill them (fit it
    /// first with ``fittedSize(imageWidth:imageHeight:maxColumns:maxRows:cellAspect:)``).
    ///
    /// The picture is resized to `columns` x `2 * rows` pixels. Returns an empty grid if either
    /// size is below 1.
    public static func render(_ image: RGBAImage, columns: Int, rows: Int, options: RenderOptions) -> CellGrid {
        guard columns > 0, rows > 0 else { return CellGrid(columns: 0, rows: 0, cells: []) }
        return render(BoxFilter.resize(image, width: columns, height: rows * 2), columns: columns, rows: rows, options: options)
    }

    /// As ``render(_:columns:rows:options:)``, reading the picture row by row from `source`
    /// (the whole image is never held: the box filter takes each row as it arrives). The
    /// cells are the same as for the whole image. Nil when the source fails.
    public static func render(_ source: RGBARowSource, columns: Int, rows: Int, options: RenderOptions) -> CellGrid? {
        guard columns > 0, rows > 0 else { return CellGrid(columns: 0, rows: 0, cells: []) }
        guard let resized = BoxFilter.resize(source, width: columns, height: rows * 2) else { return nil }
        return render(resized, columns: columns, rows: rows, options: options)
    }

    private static func render(_ resized: LinearImage, columns: Int, rows: Int, options: RenderOptions) -> CellGrid {
        let composited = Compositor.composite(resized, onto: options.background, threshold: transparencyThreshold)
        switch options.colorMode {
        case .none:
            return CellGrid(columns: columns, rows: rows, cells: Shading.cells(composited, columns: columns, rows: rows))
        case .truecolor:
            let colors = composited.colors.map { TerminalColor.rgb(LinearLight.srgb($0)) }
            return cells(colors, transparent: composited.transparent, columns: columns, rows: rows)
        case .palette256, .palette16:
            let indices = options.colorMode.paletteIndices ?? 16..<256
            let tuning = options.colorMode == .palette16 ? PaletteQuantizer.tuning16 : PaletteQuantizer.tuning256
            let quantized = PaletteQuantizer.quantize(
                composited, palette: XtermPalette.subset(for: indices), dithering: options.dithering, tuning: tuning)
            let colors = quantized.map { TerminalColor.indexed($0) }
            return cells(colors, transparent: composited.transparent, columns: columns, rows: rows)
        }
    }

    /// Pairs pixel colours (`columns` x `2 * rows`) into cells, choosing the glyph per cell.
    static func cells(_ colors: [TerminalColor], transparent: [Bool], columns: Int, rows: Int) -> CellGrid {
        var cells = [Cell]()
        cells.reserveCapacity(columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                let top = (2 * row) * columns + column
                let bottom = top + columns
                cells.append(cell(top: transparent[top] ? nil : colors[top],
                                  bottom: transparent[bottom] ? nil : colors[bottom]))
            }
        }
        return CellGrid(columns: columns, rows: rows, cells: cells)
    }

    /// One cell from its two halves; `nil` is a transparent half.
    ///
    /// - Both transparent: a blank in the default colours.
    /// - Only the top transparent: "▄", foreground = bottom, background = default.
    /// - Only the bottom transparent: "▀", foreground = top, background = default.
    /// - Both the same colour: a space, foreground and background both that colour.
    /// - Otherwise "▀", foreground = top, background = bottom.
    static func cell(top: TerminalColor?, bottom: TerminalColor?) -> Cell {
        switch (top, bottom) {
        case (nil, nil):
            return .blank
        case (nil, let b?):
            return Cell(glyph: "\u{2584}", foreground: b, background: .terminalDefault)
        case (let t?, nil):
            return Cell(glyph: "\u{2580}", foreground: t, background: .terminalDefault)
        case (let t?, let b?):
            if t == b { return Cell(glyph: " ", foreground: t, background: t) }
            return Cell(glyph: "\u{2580}", foreground: t, background: b)
        }
    }
}
