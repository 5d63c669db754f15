/// What transparent and partly transparent pixels are composited onto.
///
/// Compositing happens in linear light on premultiplied pixels, after the downscale, so a fully
/// transparent pixel's hidden colour never leaks into its neighbours.
public enum Background: Sendable, Equatable {
    /// Fully transparent half cells (alpha below ``HalfBlockRenderer/transparencyThreshold``
    /// after the downscale) show the terminal's own background (SGR 49); partly transparent
    /// pixels are composited onto black. The convention when the terminal's background colour
    /// is unknown (it did not answer OSC 11): most terminals are dark, and black keeps an
    /// anti-aliased edge from glowing there.
    case terminalDefault
    /// The terminal's own background whose colour is known, 8-bit sRGB (from the terminal's
    /// answer to OSC 11, `rgb:RRRR/GGGG/BBBB`; asking is `TerminalCapabilities`' job): fully
    /// transparent half cells still show SGR 49, and partly transparent pixels are composited
    /// onto this colour in linear light, so an edge blends into what is really behind it.
    case terminal(RGB)
    /// Everything is composited onto this sRGB colour; `.terminalDefault` is never emitted.
    case color(RGB)
    /// Everything is composited onto a checkerboard of 8x8-pixel squares (pixels of the
    /// half-block grid), light grey 153 and dark grey 102 (sRGB), like image editors show
    /// transparency; `.terminalDefault` is never emitted.
    case checker
}

/// Everything a render needs besides the image and the cell box. A value type, cheap to copy.
public struct RenderOptions: Sendable, Equatable {
    /// The terminal's colour capability.
    public var colorMode: ColorMode = .truecolor
    /// What transparency is composited onto.
    public var background: Background = .terminalDefault
    /// Dithering for the palette modes; ignored by `truecolor` and `none`.
    public var dithering: Dithering = Dithering.recommended(for: .truecolor)
    /// Cell height divided by cell width, in pixels of the terminal's font (2.0 for the usual
    /// 1:2 cells). Used by ``HalfBlockRenderer/fittedSize(imageWidth:imageHeight:maxColumns:maxRows:cellAspect:)``.
    public var cellAspect: Double = 2.0

    /// Options for `colorMode`; `dithering: nil` picks ``Dithering/recommended(for:)`` for that mode.
    public init(
        colorMode: ColorMode = .truecolor,
        background: Background = .terminalDefault,
        dithering: Dithering? = nil,
        cellAspect: Double = 2.0
    ) {
        self.colorMode = colorMode
        self.background = background
        self.dithering = dithering ?? Dithering.recommended(for: colorMode)
        self.cellAspect = cellAspect
    }
}
