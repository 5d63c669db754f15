/// How many colours the terminal can show, and so how the renderer encodes each cell's colours.
///
/// The raw values are what `vitrine render --colors` accepts: `truecolor`, `256`, `16`, `none`.
///
/// - `truecolor`: 24-bit sRGB per half cell (SGR 38;2 / 48;2).
/// - `palette256`: the xterm 256-colour palette, indices 16-255 only (the 6x6x6 cube and the
///   24-step grey ramp, which xterm-compatible terminals agree on; 0-15 are left out because
///   users re-theme them). Among the entries within 30 % of the OKLab-nearest entry's distance,
///   the smallest blend of OKLab and sRGB distance and SSIM's luminance term
///   (``XtermPalette/Subset``); by default the greys then keep their local luma detail
///   (``Dithering/structure``), or a dither is asked for.
/// - `palette16`: the 16 ANSI colours, indices 0-15, matched against xterm's default palette
///   (SGR 30-37 / 90-97 and 40-47 / 100-107).
/// - `none`: no colour at all: one shading character per cell (" ░▒▓█") chosen from luminance,
///   in the terminal's default colours (for `NO_COLOR`, dumb terminals and pipes).
public enum ColorMode: String, Sendable, CaseIterable {
    /// 24-bit colour.
    case truecolor
    /// xterm 256-colour palette, indices 16-255.
    case palette256 = "256"
    /// The 16 ANSI colours (xterm default palette).
    case palette16 = "16"
    /// No colour: luminance shading characters only.
    case none

    /// The xterm palette indices this mode may use, or `nil` when the mode is not palette based.
    var paletteIndices: Range<Int>? {
        switch self {
        case .truecolor, .none: return nil
        case .palette256: return 16..<256
        case .palette16: return 0..<16
        }
    }
}

/// How a palette mode spreads its quantisation error over neighbouring pixels.
///
/// Only the palette modes (`palette256`, `palette16`) dither; `truecolor` and `none` ignore it.
/// Dithering works on the half-block pixel grid (`columns` x `2 * rows` pixels).
///
/// - `none`: each pixel takes its nearest palette colour (the palette's distance: see
///   ``XtermPalette/Subset``).
/// - `ordered`: an 8x8 Bayer threshold matrix (Bayer 1973) offsets each pixel before the
///   nearest-colour match; stable from frame to frame, no error crawls across the picture.
/// - `diffusion`: Floyd–Steinberg error diffusion (Floyd & Steinberg 1976) in linear light,
///   serpentine scan, so local mean colour is kept; a pixel whose own colour is already within
///   ``PaletteQuantizer/closeEnough`` (OKLab) of a palette entry takes that entry and passes no
///   error on, so flat colours near the palette stay flat instead of speckled.
/// - `structure`: nearest colour in OKLab, then refined so that local detail in luma follows
///   the picture's (iterated conditional modes on squared OKLab error plus the luma error left
///   after its local Gaussian mean, SSIM's window: ``PaletteQuantizer/structured(_:palette:weight:sweeps:)``).
///   Unlike a dither it adds nothing where the picture is flat: a flat patch stays its nearest
///   entry. In 256 colours only pixels drawn in a grey entry move, and only to another grey
///   entry among their candidates (``PaletteQuantizer/greysStructured(_:palette:weight:sweeps:)``):
///   a flat grey whose small noise straddles two ramp greys is drawn in one of them.
public enum Dithering: String, Sendable, CaseIterable {
    /// Nearest colour only.
    case none
    /// 8x8 Bayer ordered dithering.
    case ordered
    /// Floyd–Steinberg error diffusion in linear light.
    case diffusion
    /// Nearest colour refined to keep local luma detail; flat areas stay flat.
    case structure

    /// The default for `mode`, chosen by measuring renders with `shared/tools/ansi_quality.py`
    /// (see `docs/PERFORMANCE.md`, "Picture quality"). `.none` for `truecolor` and `none`.
    ///
    /// - 256 colours: `.structure`, which here moves greys only. Undithered nearest colour had
    ///   the best PSNR (linear light), mean CIEDE2000 and SSIM on four photos at 80x40;
    ///   dithering only won the blurred ΔE00. Refining the greys raised the zone plate's SSIM
    ///   (0.980 → 0.988, timg 0.981) and left every other row of the quality table within
    ///   0.01 dB and 0.003 ΔE00, its SSIM the same or higher.
    /// - 16 colours: `.structure`. Plain nearest in OKLab beat every dither on SSIM and mean
    ///   CIEDE2000, but drew the large mid-grey areas of a photo in one entry (Elephants: SSIM
    ///   0.47 against chafa's 0.59); keeping local luma detail raised SSIM on every photo
    ///   (Elephants 0.66) for 1-2 dB of PSNR and under 1 of mean ΔE00, still ahead of chafa on
    ///   both; flat patches stay flat, and the zone plate and the test chart gained SSIM.
    public static func recommended(for mode: ColorMode) -> Dithering {
        switch mode {
        case .truecolor, .none: return .none
        case .palette256: return .structure
        case .palette16: return .structure
        }
    }
}
