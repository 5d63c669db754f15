import HalfBlock
import TerminalUI

/// Where a presenter draws: a rectangle of cells, either at an absolute screen position (the
/// full view, under curses) or at the cursor (`vitrine render`, flowing like text).
public struct CellArea: Sendable, Equatable {
    /// Top-left cell, 0-based (column, row) on the screen; nil: at the cursor, in which case the
    /// output first reserves `rows` lines (scrolling if needed) and leaves the cursor at the
    /// start of the line below the image.
    public var origin: (column: Int, row: Int)?
    /// Width in cells, at least 1.
    public var columns: Int
    /// Height in cells, at least 1.
    public var rows: Int

    public init(origin: (column: Int, row: Int)? = nil, columns: Int, rows: Int) {
        self.origin = origin
        self.columns = max(1, columns)
        self.rows = max(1, rows)
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.origin?.column == b.origin?.column && a.origin?.row == b.origin?.row && a.columns == b.columns
            && a.rows == b.rows
    }
}

/// Draws a decoded image in a rectangle of cells, with one terminal graphics protocol.
///
/// The seam between the viewer and the terminal: the full view asks ``pixelBox(for:imageSize:)``
/// what to decode (never more than the area shows), decodes that, hands it to ``show(_:in:)``
/// and writes the returned bytes to the terminal after curses's refresh; ``remove(from:)``
/// before the area is used for anything else (leaving the view, a resize, the next image).
/// Presenters return bytes and never write: tests read them back, the caller owns the fd.
///
/// - Important: the bytes carry their own cursor handling: with an absolute origin the cursor is
///   saved and restored (DECSC/DECRC) around the image, so curses's idea of it stays right.
public protocol ImagePresenter {
    /// The protocol this presenter speaks.
    var pixelProtocol: PixelProtocol { get }

    /// The terminal it draws in.
    var context: PresenterContext { get }

    /// The pixel size to decode an image of `imageSize` pixels for `area`: the image's aspect
    /// fitted in the area's pixels (cells times the cell's pixel size), never larger than the
    /// image (no enlarging).
    func pixelBox(for area: CellArea, imageSize: PixelSize) -> PixelSize

    /// The bytes that draw `image` (already decoded at ``pixelBox(for:imageSize:)``) in `area`.
    /// The default encodes with ``encoder`` and places with ``show(encoded:in:)``.
    mutating func show(_ image: RGBAImage, in area: CellArea) -> [UInt8]

    /// The bytes that take the last shown image off `area`'s cells (and free it where the
    /// terminal stores images). Empty when nothing is shown.
    mutating func remove(from area: CellArea) -> [UInt8]

    /// The bytes that draw `image`, frame `number` (0-based) of an animation, over the frame
    /// shown in the same `area` (same size), with no blank moment between them where the
    /// protocol allows: sixel draws over the old frame (its frames are opaque), kitty places the
    /// new image before it hides the old one (and keeps each frame in the terminal, so a frame
    /// shown again is only placed), iTerm2 draws over an opaque frame. The default is
    /// ``show(_:in:)``. ``remove(from:)`` takes every kept frame away.
    mutating func showFrame(_ image: RGBAImage, number: Int, in area: CellArea) -> [UInt8]

    /// The encoder for this presenter's protocol and terminal: ``show(encoded:in:)`` of its
    /// output gives the same bytes as ``show(_:in:)`` of the image. It is a value that can
    /// run on another thread, so the full view encodes off the main thread and only places
    /// the picture on it.
    var encoder: PictureEncoder { get }

    /// As ``show(_:in:)`` for a picture already encoded by ``encoder``: the cursor moves, the
    /// blanking and the ids are added here; no pixel is touched.
    mutating func show(encoded: EncodedPicture, in area: CellArea) -> [UInt8]

    /// As ``showFrame(_:number:in:)`` for a picture already encoded by ``encoder``.
    mutating func showFrame(encoded: EncodedPicture, number: Int, in area: CellArea) -> [UInt8]

    /// The bytes that show frame `number` again from what the terminal kept of it (kitty
    /// keeps each frame's image: a placement of a few dozen bytes), with no encode; nil when
    /// the terminal keeps nothing of it (the default), and the frame is encoded and sent.
    mutating func showStoredFrame(number: Int, in area: CellArea) -> [UInt8]?
}

extension ImagePresenter {
    public mutating func showFrame(_ image: RGBAImage, number: Int, in area: CellArea) -> [UInt8] {
        showFrame(encoded: encoder.encode(image), number: number, in: area)
    }

    public mutating func show(_ image: RGBAImage, in area: CellArea) -> [UInt8] {
        show(encoded: encoder.encode(image), in: area)
    }

    public mutating func showFrame(encoded: EncodedPicture, number: Int, in area: CellArea) -> [UInt8] {
        show(encoded: encoded, in: area)
    }

    public mutating func showStoredFrame(number: Int, in area: CellArea) -> [UInt8]? { nil }

    public var encoder: PictureEncoder { PictureEncoder(pixelProtocol, context: context) }
}

/// What every presenter needs from the terminal: the cell size in pixels, the background for
/// transparency, and whether output must pass through tmux.
public struct PresenterContext: Sendable, Equatable {
    /// Cell size in pixels (``TerminalCapabilities/cellPixels``); nil: unknown, 10x20 assumed.
    public var cellWidth: Int
    public var cellHeight: Int
    /// The terminal's background (OSC 11); transparency is composited over it for protocols
    /// without alpha (sixel). Black when unknown.
    public var background: RGB
    /// Wrap every escape sequence in tmux's DCS passthrough.
    public var tmuxPassthrough: Bool
    /// Colour mode and cell aspect for the half-block presenter.
    public var colorMode: ColorMode
    /// kitty: the transmission medium the terminal can read (``TerminalCapabilities/kittyMedium``).
    /// Pan regions go through it (``PictureEncoder/sharedMedium``); other pictures go direct.
    public var kittyMedium: KittyMedium = .direct

    /// The assumed cell when the terminal reports none: 10x20 pixels (xterm's default 'fixed'
    /// font is 6x13, kitty's and VTE's defaults about 9-10 x 18-22).
    public static let assumedCell = (width: 10, height: 20)

    public init(
        cellWidth: Int = assumedCell.width, cellHeight: Int = assumedCell.height, background: RGB = RGB(0, 0, 0),
        tmuxPassthrough: Bool = false, colorMode: ColorMode = .truecolor
    ) {
        self.cellWidth = max(1, cellWidth)
        self.cellHeight = max(1, cellHeight)
        self.background = background
        self.tmuxPassthrough = tmuxPassthrough
        self.colorMode = colorMode
    }

    /// The context for `capabilities`.
    public init(_ capabilities: TerminalCapabilities) {
        self.init(
            cellWidth: capabilities.cellPixels?.width ?? Self.assumedCell.width,
            cellHeight: capabilities.cellPixels?.height ?? Self.assumedCell.height,
            background: capabilities.background ?? RGB(0, 0, 0), tmuxPassthrough: capabilities.tmuxPassthrough,
            colorMode: capabilities.colorMode)
        self.kittyMedium = capabilities.pixels == .kitty ? capabilities.kittyMedium : .direct
    }

    /// `image` fitted in `area`'s pixels, aspect kept, never enlarged, at least 1x1.
    func fittedPixels(for area: CellArea, imageSize: PixelSize) -> PixelSize {
        let maxW = area.columns * cellWidth, maxH = area.rows * cellHeight
        let scale = min(1, min(Double(maxW) / Double(max(1, imageSize.width)), Double(maxH) / Double(max(1, imageSize.height))))
        let w = Int((Double(imageSize.width) * scale).rounded())
        let h = Int((Double(imageSize.height) * scale).rounded())
        return PixelSize(width: min(max(1, w), maxW), height: min(max(1, h), maxH))
    }

    /// Cells covered by `pixels` (rounded up).
    func cells(for pixels: PixelSize) -> (columns: Int, rows: Int) {
        ((pixels.width + cellWidth - 1) / cellWidth, (pixels.height + cellHeight - 1) / cellHeight)
    }

    /// `bytes` as they must be written: wrapped for tmux when needed.
    func wrap(_ bytes: [UInt8]) -> [UInt8] { tmuxPassthrough ? Passthrough.tmux(bytes) : bytes }
}

/// Cursor handling shared by the presenters (ECMA-48 / DEC).
enum Cursor {
    static let save: [UInt8] = [0x1B, UInt8(ascii: "7")]
    static let restore: [UInt8] = [0x1B, UInt8(ascii: "8")]

    /// `CSI row;col H` for a 0-based cell.
    static func move(column: Int, row: Int) -> [UInt8] { Array("\u{1B}[\(row + 1);\(column + 1)H".utf8) }

    /// Wraps `image` (bytes that draw with their top-left at the cursor) for `area`:
    /// absolute: save, move, draw, restore. At the cursor: reserve `rows` lines (newlines scroll
    /// when at the bottom), go back up, save, draw, restore, then go down past the image.
    static func place(_ image: [UInt8], in area: CellArea, rows: Int) -> [UInt8] {
        if let origin = area.origin {
            return save + move(column: origin.column, row: origin.row) + image + restore
        }
        let lines = max(1, rows)
        var out = [UInt8](repeating: UInt8(ascii: "\n"), count: lines)
        out += Array("\r\u{1B}[\(lines)A".utf8)
        out += save + image + restore
        out += Array("\u{1B}[\(lines)B\r".utf8)
        return out
    }

    /// Bytes that blank `area` (absolute areas only: ECH on each row), for protocols whose
    /// pictures live in the cells (sixel, iTerm2): writing text over them removes them.
    static func blank(_ area: CellArea) -> [UInt8] {
        guard let origin = area.origin else { return [] }
        var out = save
        for row in 0..<area.rows {
            out += move(column: origin.column, row: origin.row + row)
            out += Array("\u{1B}[\(area.columns)X".utf8)
        }
        return out + restore
    }
}

/// Picks the presenter for a protocol.
public enum Presenters {
    /// A presenter for `pixelProtocol` in `context`. `firstKittyID`: the first kitty image id
    /// (each kitty presenter should get its own range when several are alive).
    public static func make(_ pixelProtocol: PixelProtocol, context: PresenterContext, firstKittyID: UInt32 = 1000)
        -> any ImagePresenter
    {
        switch pixelProtocol {
        case .kitty: return KittyPresenter(context: context, firstID: firstKittyID)
        case .sixel: return SixelPresenter(context: context)
        case .iterm: return ITermPresenter(context: context)
        case .halfblock: return HalfBlockPresenter(context: context)
        }
    }
}
