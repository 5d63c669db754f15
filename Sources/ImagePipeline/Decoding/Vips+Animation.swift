import CVips
import Foundation
import HalfBlock

/// The frames of an animated GIF or WebP, as the full view plays them.
///
/// Each frame is the whole canvas after the frames before it and their disposal (libvips loads
/// with `n=-1`, which composites: "restore to background" and "restore to previous" are
/// libnsgif's and libwebp's work, not Vitrine's), fitted to the request's pixel box like a
/// still image (never enlarged). At most `ImagePipeline.Configuration.maxAnimationBytes` of
/// frames are kept: an animation that needs more at that size keeps every `step`-th frame,
/// each shown for the sum of the delays of the frames it stands for, so a loop still lasts as
/// long as the file says.
public struct Animation: Sendable, Equatable {
    /// The frames, each `width` x `height` pixels of 8-bit sRGB RGBA; the first is the
    /// decoded image's `bitmap`.
    public var frames: [RGBAImage]
    /// How long each frame stays, in ms (``playedDelay(_:)`` applied), one per frame.
    public var delays: [Int]
    /// 1: every frame of the file is kept; k: frames 0, k, 2k, ... (over the byte cap).
    public var step: Int
    /// Frames in the file.
    public var sourceFrameCount: Int
    /// Times the animation plays, 0: forever (GIF's NETSCAPE2.0 loop count, WebP's loop count).
    public var loopCount: Int

    public init(frames: [RGBAImage], delays: [Int], step: Int = 1, sourceFrameCount: Int? = nil, loopCount: Int = 0) {
        precondition(!frames.isEmpty && frames.count == delays.count, "one delay per frame")
        self.frames = frames
        self.delays = delays
        self.step = max(1, step)
        self.sourceFrameCount = sourceFrameCount ?? frames.count
        self.loopCount = max(0, loopCount)
    }

    /// Bytes held by the frames.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.byteCount } }

    /// A file's frame delay as it is played, in ms: delays of 10 ms or less become 100 ms, as
    /// web browsers play them (many GIFs say 0 and mean "the default"), others stay.
    public static func playedDelay(_ milliseconds: Int) -> Int { milliseconds <= 10 ? 100 : milliseconds }

    /// The delays of the kept frames: `kept` frames standing for every `step`-th of the file's
    /// `delays` (ms), each the sum of the played delays of the frames from it to the next kept one.
    static func keptDelays(_ delays: [Int], step: Int, kept: Int) -> [Int] {
        (0..<kept).map { j in
            let from = j * step, to = min(delays.count, from + max(1, step))
            return from < to ? delays[from..<to].reduce(0) { $0 + playedDelay($1) } : playedDelay(0)
        }
    }
}

extension Vips {
    /// Decodes every frame of an animated GIF or WebP, fitted to `maxWidth` x `maxHeight`
    /// pixels, keeping at most `maxBytes` bytes of frames (see ``Animation``). Nil when `data` is
    /// not an animation (one frame, not GIF or WebP) or when its frames together have more than
    /// `maxPixels` source pixels: the caller decodes it as a still image (the first frame).
    /// - Throws: `.corrupt` for a broken animation, `.unsupportedFormat`, `.decoderMissing`.
    static func animation(
        _ data: Data, maxWidth: Int, maxHeight: Int, maxPixels: Int, maxBytes: Int
    ) throws(ImagePipeline.Error) -> DecodedImage? {
        var out = cvips_animation()
        var message = [CChar](repeating: 0, count: 512)
        let rc = data.withUnsafeBytes { raw in
            cvips_animation_rgba(
                raw.baseAddress, raw.count, Int32(clamping: maxWidth), Int32(clamping: maxHeight), Int64(maxPixels),
                Int64(maxBytes), &out, &message, message.count)
        }
        if rc == 1 { return nil }
        guard rc == 0, let pixels = out.pixels, let rawDelays = out.delays else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if rc == Int32(CVIPS_UNSUPPORTED) { throw .unsupportedFormat(text) }
            if rc == Int32(CVIPS_UNAVAILABLE) { throw .decoderMissing(format: "GIF/WebP", reason: text) }
            throw .corrupt(text.isEmpty ? "could not decode the animation" : text)
        }
        defer {
            cvips_free(pixels)
            cvips_free(rawDelays)
        }
        let width = Int(out.width), height = Int(out.height), frameBytes = width * height * 4
        let frames = (0..<Int(out.frame_count)).map { j in
            RGBAImage(
                width: width, height: height,
                pixels: [UInt8](UnsafeBufferPointer(start: pixels + j * frameBytes, count: frameBytes)))
        }
        let fileDelays = UnsafeBufferPointer(start: rawDelays, count: Int(out.source_frames)).map { Int($0) }
        let animation = Animation(
            frames: frames, delays: Animation.keptDelays(fileDelays, step: Int(out.step), kept: frames.count),
            step: Int(out.step), sourceFrameCount: Int(out.source_frames), loopCount: Int(out.loop))
        return DecodedImage(
            bitmap: frames[0], sourceWidth: Int(out.source_width), sourceHeight: Int(out.source_height), animation: animation)
    }
}
