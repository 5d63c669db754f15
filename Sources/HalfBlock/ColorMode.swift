/// How many colours the terminal can show, and so how the renderer encodes each cell's colours.
///
/// The raw values are what `vitrine render --colors` accepts: `truecolor`, `256`, `16`, `none`.
///
/// - `truecolor`: 24-bit sRGB per half cell (SGR 38;2 / 48;2).
/// - `palette256`: the xterm 256-colour palette, indices 16-255 only (the 6x6x6 cube and the
///   24-step grey ramp, which xterm-compatible terminals agree on; 0-15 are left out because
///   users re-theme them). Nearest colour in OKLab, and among the entries within 40 % of that
///   distance the nearest by a 70/30 blend of OKLab and sRGB distance; optionally dithered.
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
///   entry.
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
    /// - 256 colours: `.none`. Undithered nearest colour had the best PSNR (linear light),
    ///   mean CIEDE2000 and SSIM on four photos at 80x40; dithering only won the blurred ΔE00.
    /// - 16 colours: `.structure`. Plain nearest in OKLab beat every dither on SSIM and mean
    ///   CIEDE2000, but drew the large mid-grey areas of a photo in one entry (Elephants: SSIM
    ///   0.47 against chafa's 0.59); keeping local luma detail raised SSIM on every photo
    ///   (Elephants 0.66) for 1-2 dB of PSNR and under 1 of mean ΔE00, still ahead of chafa on
    ///   both; flat patches stay flat, and the zone plate and the test chart gained SSIM.
    public static func recommended(for mode: ColorMode) -> Dithering {
        switch mode {
        case .truecolor, .none: return .none
        case .palette256: return .none
        case .palette16: return .structure
        }
    }
}
