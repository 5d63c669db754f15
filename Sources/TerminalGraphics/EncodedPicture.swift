import HalfBlock
import TerminalUI

/// A picture's payload encoded for one protocol: the expensive part of showing an image
/// (sixel's palette and error diffusion by libsixel, iTerm2's PNG by libpng and its base64,
/// kitty's base64 of the pixels), made by ``PictureEncoder`` on any thread and placed on the
/// screen by a presenter's ``ImagePresenter/show(encoded:in:)`` on the thread that owns the
/// terminal. Placing adds only what depends on the screen: the cursor moves, blanking, and
/// kitty's image id.
public struct EncodedPicture: Sendable {
    /// The protocol the payload is for.
    public let pixelProtocol: PixelProtocol
    /// The picture's size in pixels.
    public let width: Int
    public let height: Int
    /// True when every pixel's alpha is 255.
    public let opaque: Bool
    let payload: Payload

    enum Payload: Sendable {
        /// Sixel or iTerm2: the whole sequence, wrapped for tmux when needed.
        case sequence([UInt8])
        /// kitty: the first command of the chunked transmission without its keys (they carry
        /// the image id, given when it is placed), not wrapped; then the other commands, each
        /// wrapped for tmux when needed, one after another.
        case kitty(head: [UInt8], rest: [UInt8])
        /// Half blocks: the pixels themselves (their cells depend on the area).
        case pixels(RGBAImage)
        /// kitty through shared memory or a temporary file: RGBA (`f=32`) in the object, whose
        /// name the one command carries (unlinked if the picture is dropped unsent).
        case kittyShared(KittySharedObject)
    }

    /// kitty: the medium the payload goes through (`.direct` for every other payload).
    public var kittyMedium: KittyMedium {
        if case .kittyShared(let object) = payload { return object.medium }
        return .direct
    }

    /// Bytes held (the payload's size), for the caches that keep pictures.
    public var byteCount: Int {
        switch payload {
        case .sequence(let bytes): return bytes.count
        case .kitty(let head, let rest): return head.count + rest.count
        case .pixels(let image): return image.byteCount
        case .kittyShared(let object): return object.name.utf8.count
        }
    }
}

/// Encodes pictures for one protocol and terminal; a value, safe to use from any thread (the
/// full view's encodes run on `Browse.PictureWorker`'s queue).
public struct PictureEncoder: Sendable {
    public let pixelProtocol: PixelProtocol
    public let context: PresenterContext
    /// Sixel only: true, pictures go through Vitrine's own encoder (``SixelPalette``: libsixel's
    /// median cut for the palette, an ordered dither and a band encoder of its own; a pan or zoom
    /// step, several times faster than libsixel); false, through libsixel whole (Atkinson
    /// diffusion).
    public var fastSixel: Bool
    /// iTerm2 only: true, an opaque picture goes as a JPEG (``JPEG/panQuality``: a pan or zoom
    /// step while keys come, several times faster and smaller than the PNG); false, and for a
    /// picture with alpha, as the lossless PNG.
    public var itermJPEG: Bool
    /// kitty only: put the pixels in an object of this medium (shared memory or a temporary
    /// file, ``KittySharedObject``: one copy of the rows, no base64) instead of base64 in the
    /// escapes; `.direct` (the default), or when the object cannot be made, the direct path.
    public var sharedMedium: KittyMedium = .direct

    public init(_ pixelProtocol: PixelProtocol, context: PresenterContext, fastSixel: Bool = false, itermJPEG: Bool = false) {
        self.pixelProtocol = pixelProtocol
        self.context = context
        self.fastSixel = fastSixel
        self.itermJPEG = itermJPEG
    }

    /// `image` encoded for the protocol (an empty sequence when libsixel or libpng fails: the
    /// picture is then left out, as before).
    public func encode(_ image: RGBAImage) -> EncodedPicture {
        let opaque = KittyPresenter.isOpaque(image)
        let payload: EncodedPicture.Payload
        switch pixelProtocol {
        case .sixel:
            let fast = fastSixel ? SixelPalette(choosingFor: image, background: context.background) : nil
            let sixel =
                fast?.encode(image, background: context.background)
                ?? SixelPresenter.encode(image, background: context.background)
            payload = .sequence(sixel.isEmpty ? [] : context.wrap(sixel))
        case .iterm:
            payload = .sequence(ITermPresenter.sequence(image, opaque: opaque, jpeg: itermJPEG).map { context.wrap($0) } ?? [])
        case .kitty where sharedMedium != .direct:
            let bytes = image.width * image.height * 4
            let object = image.pixels.withUnsafeBytes {
                KittySharedObject(medium: sharedMedium, copying: UnsafeRawBufferPointer(rebasing: $0.prefix(bytes)))
            }
            guard let object else { return PictureEncoder(pixelProtocol, context: context).encode(image) }
            payload = .kittyShared(object)
        case .kitty:
            // Keys left empty: the first command's header starts ",q=2"; the keys go in front
            // of it when the picture is placed (KittyPresenter.transmit).
            let commands = KittyPresenter.transmission(image, opaque: opaque, keys: "")
            var rest: [UInt8] = []
            rest.reserveCapacity(commands.dropFirst().reduce(0) { $0 + $1.count } * (context.tmuxPassthrough ? 2 : 1))
            for command in commands.dropFirst() { rest += context.tmuxPassthrough ? context.wrap(command) : command }
            payload = .kitty(head: commands[0], rest: rest)
        case .halfblock:
            payload = .pixels(image)
        }
        return EncodedPicture(pixelProtocol: pixelProtocol, width: image.width, height: image.height, opaque: opaque, payload: payload)
    }
}
