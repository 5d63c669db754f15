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
    /// The frames decoded so far, in order (at least the first; all of them once
    /// ``isComplete``), each `width` x `height` pixels of 8-bit sRGB RGBA; the first is the
    /// decoded image's `bitmap`. While the decode runs, the pipeline delivers the animation
    /// more than once (`ImagePipeline.NotificationKey.partial`), each time with more frames.
    public var frames: [RGBAImage]
    /// How long each kept frame stays, in ms (``playedDelay(_:)`` applied), one per frame of
    /// the whole animation (known from the header before any frame is decoded):
    /// ``frameCount`` entries, of which the first `frames.count` have their frame.
    public var delays: [Int]
    /// 1: every frame of the file is kept; k: frames 0, k, 2k, ... (over the byte cap).
    public var step: Int
    /// Frames in the file.
    public var sourceFrameCount: Int
    /// Times the animation plays, 0: forever (GIF's NETSCAPE2.0 loop count, WebP's loop count).
    public var loopCount: Int

    /// - Parameter delays: one per kept frame of the whole animation; `frames` may be fewer
    ///   (the first ones, while the rest decode), never more.
    public init(frames: [RGBAImage], delays: [Int], step: Int = 1, sourceFrameCount: Int? = nil, loopCount: Int = 0) {
        precondition(!frames.isEmpty && frames.count <= delays.count, "one delay per frame, at least one frame")
        self.frames = frames
        self.delays = delays
        self.step = max(1, step)
        self.sourceFrameCount = sourceFrameCount ?? delays.count
        self.loopCount = max(0, loopCount)
    }

    /// Frames kept of the whole animation (decoded or still to come).
    public var frameCount: Int { delays.count }

    /// True when every kept frame is decoded.
    public var isComplete: Bool { frames.count == delays.count }

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
    /// Decodes the frames of an animated GIF or WebP one at a time, fitted to `maxWidth` x
    /// `maxHeight` pixels, keeping at most `maxBytes` bytes of frames (see ``Animation``). Nil
    /// when `data` is not an animation (one frame, not GIF or WebP) or when its frames together
    /// have more than `maxPixels` source pixels: the caller decodes it as a still image (the
    /// first frame).
    ///
    /// - Parameter progress: called on this thread after each frame but the last with the
    ///   animation so far (``Animation/isComplete`` false); returning false stops the decode
    ///   (the load was cancelled), which then throws `.cancelled`.
    /// - Throws: `.corrupt` for a broken animation, `.unsupportedFormat`, `.decoderMissing`,
    ///   `.cancelled` when `progress` said stop.
    static func animation(
        _ data: Data, maxWidth: Int, maxHeight: Int, maxPixels: Int, maxBytes: Int,
        progress: ((DecodedImage) -> Bool)? = nil
    ) throws(ImagePipeline.Error) -> DecodedImage? {
        var message = [CChar](repeating: 0, count: 512)
        func failure(_ rc: Int32) -> ImagePipeline.Error {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if rc == Int32(CVIPS_UNSUPPORTED) { return .unsupportedFormat(text) }
            if rc == Int32(CVIPS_UNAVAILABLE) { return .decoderMissing(format: "GIF/WebP", reason: text) }
            return .corrupt(text.isEmpty ? "could not decode the animation" : text)
        }
        // libvips reads the bytes in place while the decoder is open: everything happens here.
        let outcome: Result<DecodedImage?, ImagePipeline.Error> = data.withUnsafeBytes { raw in
            var decoder: OpaquePointer?
            var info = cvips_animation_info()
            let rc = cvips_animation_open(
                raw.baseAddress, raw.count, Int32(clamping: maxWidth), Int32(clamping: maxHeight), Int64(maxPixels),
                Int64(maxBytes), &decoder, &info, &message, message.count)
            if rc == 1 { return .success(nil) }
            guard rc == 0, let decoder else { return .failure(failure(rc)) }
            defer { cvips_animation_close(decoder) }
            guard let rawDelays = info.delays else { return .failure(.corrupt("the animation has no frame delays")) }
            let width = Int(info.width), height = Int(info.height), frameBytes = width * height * 4
            let kept = Int(info.frame_count), step = Int(info.step)
            let fileDelays = UnsafeBufferPointer(start: rawDelays, count: Int(info.source_frames)).map { Int($0) }
            let delays = Animation.keptDelays(fileDelays, step: step, kept: kept)
            var frames: [RGBAImage] = []
            frames.reserveCapacity(kept)
            func image() -> DecodedImage {
                let animation = Animation(
                    frames: frames, delays: delays, step: step, sourceFrameCount: Int(info.source_frames),
                    loopCount: Int(info.loop))
                return DecodedImage(
                    bitmap: frames[0], sourceWidth: Int(info.source_width), sourceHeight: Int(info.source_height),
                    animation: animation)
            }
            for _ in 0..<kept {
                var frameRC: Int32 = 0
                let pixels = [UInt8](unsafeUninitializedCapacity: frameBytes) { buffer, count in
                    frameRC = cvips_animation_next(decoder, buffer.baseAddress, &message, message.count)
                    count = frameRC == 0 ? frameBytes : 0
                }
                guard frameRC == 0 else { return .failure(failure(frameRC)) }
                frames.append(RGBAImage(width: width, height: height, pixels: pixels))
                if frames.count < kept, let progress, !progress(image()) { return .failure(.cancelled) }
            }
            return .success(image())
        }
        return try outcome.get()
    }
}
