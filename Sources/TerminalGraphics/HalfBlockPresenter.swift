import HalfBlock
import TerminalUI

/// The fallback presenter: half-block art (U+2580, foreground the top pixel, background the
/// bottom one) through `HalfBlockRenderer` and `ANSIWriter`, in every terminal.
///
/// It decodes at HalfBlock's oversampled decode box (the renderer averages in linear light), not
/// at the cells' pixel size. At the cursor its output is exactly `vitrine render`'s (rows end in
/// "\n"); at an absolute origin each row is positioned with CUP.
public struct HalfBlockPresenter: ImagePresenter {
    public let pixelProtocol = PixelProtocol.halfblock
    public let context: PresenterContext
    /// What transparency shows.
    public var background: Background
    private var shown = false

    public init(context: PresenterContext, background: Background = .terminalDefault) {
        self.context = context
        self.background = background
    }

    var cellAspect: Double { Double(context.cellHeight) / Double(context.cellWidth) }

    public func pixelBox(for area: CellArea, imageSize: PixelSize) -> PixelSize {
        HalfBlockRenderer.decodeBox(columns: area.columns, rows: area.rows)
    }

    /// The grid for `image` fitted in `area` (aspect kept, using the cell aspect), and its bytes.
    public func grid(for image: RGBAImage, in area: CellArea, sourceSize: PixelSize? = nil) -> CellGrid {
        let size = sourceSize ?? PixelSize(width: image.width, height: image.height)
        let fitted = HalfBlockRenderer.fittedSize(
            imageWidth: size.width, imageHeight: size.height, maxColumns: area.columns, maxRows: area.rows,
            cellAspect: cellAspect)
        let options = RenderOptions(colorMode: context.colorMode, background: background, cellAspect: cellAspect)
        return HalfBlockRenderer.render(image, columns: fitted.columns, rows: fitted.rows, options: options)
    }

    public mutating func show(_ image: RGBAImage, in area: CellArea) -> [UInt8] {
        let bytes = ANSIWriter.bytes(for: grid(for: image, in: area), colorMode: context.colorMode)
        guard let origin = area.origin else { return bytes }
        var out = shown ? Cursor.blank(area) : []
        shown = true
        out += Cursor.save
        for (row, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        where row < area.rows && !line.isEmpty {
            out += Cursor.move(column: origin.column, row: origin.row + row)
            out += line
        }
        return out + Cursor.restore
    }

    /// Half blocks are rendered for the area: an encoded picture carries its pixels.
    public mutating func show(encoded: EncodedPicture, in area: CellArea) -> [UInt8] {
        guard case .pixels(let image) = encoded.payload else { return [] }
        return show(image, in: area)
    }

    public mutating func remove(from area: CellArea) -> [UInt8] {
        guard shown else { return [] }
        shown = false
        return Cursor.blank(area)
    }
}
