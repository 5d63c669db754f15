import CImageCodecs
import CPNG
import Foundation
import HalfBlock
import TerminalUI

/// Draws images with iTerm2's inline images protocol (iterm2.com "Images", also read by
/// WezTerm): `OSC 1337 ; File=inline=1;size=N;width=Wpx;height=Hpx;preserveAspectRatio=0 :
/// <base64 of the file> BEL`. The file is a PNG encoded by libpng (lossless: RGB when opaque,
/// RGBA with alpha otherwise; ``PNG/encodeFast(_:opaque:)``), or, for an opaque pan or zoom
/// step while keys come (``PictureEncoder/itermJPEG``), a JPEG by libjpeg-turbo
/// (``JPEG/encode(_:quality:subsample:fastDCT:)``); the full view sends the PNG once the keys stop.
///
/// The terminal scales the picture to `width` x `height` pixels; the image is decoded at that
/// size, so nothing is rescaled. Like sixel, the picture lives in the cells: ``remove(from:)``
/// blanks them.
public struct ITermPresenter: ImagePresenter {
    public let pixelProtocol = PixelProtocol.iterm
    public let context: PresenterContext
    private var shown = false

    public init(context: PresenterContext) { self.context = context }

    public func pixelBox(for area: CellArea, imageSize: PixelSize) -> PixelSize {
        context.fittedPixels(for: area, imageSize: imageSize)
    }

    public mutating func show(encoded: EncodedPicture, in area: CellArea) -> [UInt8] {
        draw(encoded, in: area, blankFirst: true)
    }

    /// An opaque frame covers the last one: drawn over it, no blanking first; a frame with
    /// transparency blanks the cells first (the old frame would show through).
    public mutating func showFrame(encoded: EncodedPicture, number: Int, in area: CellArea) -> [UInt8] {
        draw(encoded, in: area, blankFirst: !encoded.opaque)
    }

    /// The inline-image sequence for `image` (`OSC 1337 ; File=… : base64 BEL`), not wrapped;
    /// nil when the encoder fails. `opaque`: whether every alpha is 255 (nil: looked up).
    /// `jpeg`: an opaque picture goes as a JPEG (``JPEG/encode(_:quality:subsample:fastDCT:)`` at
    /// ``JPEG/panQuality``, 4:2:0; a pan or zoom step's payload: a fraction of the PNG's time and
    /// bytes); a picture with alpha is a PNG whatever `jpeg` says.
    static func sequence(_ image: RGBAImage, opaque: Bool? = nil, jpeg: Bool = false) -> [UInt8]? {
        let opaque = opaque ?? KittyPresenter.isOpaque(image)
        let file = jpeg && opaque ? JPEG.encode(image, quality: JPEG.panQuality, subsample: JPEG.panSubsample) : PNG.encodeFast(image, opaque: opaque)
        guard let file else { return nil }
        var sequence = Array(
            "\u{1B}]1337;File=inline=1;size=\(file.count);width=\(image.width)px;height=\(image.height)px;preserveAspectRatio=0:"
                .utf8)
        sequence += [UInt8](Data(file).base64EncodedData())
        sequence.append(0x07)
        return sequence
    }

    private mutating func draw(_ picture: EncodedPicture, in area: CellArea, blankFirst: Bool) -> [UInt8] {
        guard case .sequence(let sequence) = picture.payload, !sequence.isEmpty else { return [] }
        var out = blankFirst && shown && area.origin != nil ? Cursor.blank(area) : []
        shown = true
        out += Cursor.place(sequence, in: area, rows: context.cells(for: PixelSize(width: picture.width, height: picture.height)).rows)
        return out
    }

    public mutating func remove(from area: CellArea) -> [UInt8] {
        guard shown else { return [] }
        shown = false
        return Cursor.blank(area)
    }
}

/// PNG through libpng's simplified API.
public enum PNG {
    /// `image` as PNG file bytes (8-bit RGBA), nil when libpng fails.
    public static func encode(_ image: RGBAImage) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let rc = image.pixels.withUnsafeBufferPointer { p in
            cpng_encode_rgba(p.baseAddress, Int32(image.width), Int32(image.height), &out, &length, nil, 0)
        }
        guard rc == 0, let out else { return nil }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// `image` as PNG file bytes for a picture that crosses a pty once (iTerm2's inline
    /// images): 8-bit RGB when `opaque` (every alpha 255; pass false to keep the alpha), else
    /// RGBA, the Up filter and zlib's run-length strategy at level 1 (`cpng_encode_fast`);
    /// nil when libpng fails.
    public static func encodeFast(_ image: RGBAImage, opaque: Bool) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let rc = image.pixels.withUnsafeBufferPointer { p in
            cpng_encode_fast(p.baseAddress, Int32(image.width), Int32(image.height), opaque ? 1 : 0, &out, &length)
        }
        guard rc == 0, let out else { return nil }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// PNG file bytes decoded to 8-bit RGBA, nil when they are not a PNG libpng can read.
    public static func decode(_ bytes: [UInt8]) -> RGBAImage? {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0
        let rc = bytes.withUnsafeBytes { cpng_decode_rgba($0.baseAddress, $0.count, &pixels, &width, &height) }
        guard rc == 0, let pixels, width > 0, height > 0 else { return nil }
        defer { free(pixels) }
        return RGBAImage(
            width: Int(width), height: Int(height),
            pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 4)))
    }
}

/// JPEG through libjpeg-turbo's compressor (the CImageCodecs shim, `ccodec_jpeg_encode`), for
/// iTerm2 pan and zoom steps, and its decoder for reading one back.
public enum JPEG {
    /// The quality of a pan step's JPEG: 90 (libjpeg's scaled standard tables), with
    /// ``panSubsample``'s 4:2:0 chroma and the accurate DCT: on a 1200x780 step of the
    /// benchmark photo 46.9 dB PSNR against the step's pixels (4:4:4: 48.1 dB) in 0.11x the
    /// lossless PNG's bytes, encoded in 2.5 ms against 30 ms (docs/PERFORMANCE.md, "eighth part").
    public static let panQuality = 90
    /// True: a pan step's JPEG halves the chroma both ways (4:2:0), 0.75x the bytes and about
    /// 0.6x the encode of 4:4:4 for 1.2 dB; the PNG that follows once the keys stop has it whole.
    public static let panSubsample = true

    /// `image`'s pixels as a baseline JPEG file (its alpha ignored: pass opaque pictures),
    /// `quality` 1-100, chroma 4:4:4 unless `subsample` (4:2:0), the accurate integer DCT
    /// unless `fastDCT`; nil when libjpeg fails (a side over 65,500 pixels, no memory).
    public static func encode(_ image: RGBAImage, quality: Int, subsample: Bool = false, fastDCT: Bool = false) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let rc = image.pixels.withUnsafeBufferPointer { p in
            ccodec_jpeg_encode(
                p.baseAddress, Int32(image.width), Int32(image.height), Int32(quality), subsample ? 1 : 0, fastDCT ? 1 : 0,
                &out, &length)
        }
        guard rc == CCODEC_OK, let out else { return nil }
        defer { ccodec_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// JPEG file bytes decoded at full size to 8-bit RGBA, nil when libjpeg cannot read them.
    public static func decode(_ bytes: [UInt8]) -> RGBAImage? {
        var image = ccodec_image()
        var err = [CChar](repeating: 0, count: 256)
        let rc = bytes.withUnsafeBytes { ccodec_jpeg_decode($0.baseAddress, $0.count, 0, 0, 0, &image, &err, err.count) }
        guard rc == CCODEC_OK, let pixels = image.pixels else { return nil }
        defer { ccodec_free(pixels) }
        return RGBAImage(
            width: Int(image.width), height: Int(image.height),
            pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(image.width) * Int(image.height) * 4)))
    }
}
