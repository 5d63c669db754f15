import Dispatch
import HalfBlock
import Locking
import TerminalGraphics

/// Cuts and encodes the full view's pictures off the main thread: the resample of a zoom or
/// pan step (``Viewport/Frame/pixels(from:imageSize:)``) and the protocol's encode (libsixel's
/// palette and diffusion, libpng and base64 for iTerm2, kitty's base64), which took 10-300 ms a
/// step on the main loop and held every key typed meanwhile.
///
/// The main thread asks for one picture (``submit(_:completion:)``) and goes on with its keys;
/// one serial queue does the work; the answer comes back through `post`, the same path the
/// image loads take to the main loop (the wiring's inbox: it wakes the loop's `poll`), and
/// `completion` runs there on the main thread. The terminal is written only there, by the
/// caller, after it has checked that the answer is still for the state on screen (`token`):
/// an answer for a state left meanwhile is dropped by the caller.
///
/// At most one picture is in work and one waits: a request made while one is in work replaces
/// the one waiting (which is dropped without an answer: ``Counts/superseded``), so a burst of
/// pan keys costs one encode for the first and one for the last, not one for each.
public final class PictureWorker: Sendable {
    /// Hands `work` to the main thread (the wiring: the inbox's `.main`, which wakes the loop).
    public typealias Post = @Sendable (_ work: @escaping @MainActor @Sendable () -> Void) -> Void

    /// How the picture's pixels come from the source: the viewport's frame cut from a decode of
    /// the whole image of `imageSize` source pixels (``Viewport/Frame/pixels(from:imageSize:)``).
    public struct Cut: Sendable, Equatable {
        public var frame: Viewport.Frame
        public var imageSize: PixelSize
        public init(frame: Viewport.Frame, imageSize: PixelSize) {
            self.frame = frame
            self.imageSize = imageSize
        }
    }

    /// One picture asked for.
    public struct Request: Sendable {
        /// The asker's name for the state the picture is for; the answer carries it back.
        public var token: Int
        /// The decode (or animation frame) the picture is cut from.
        public var source: RGBAImage
        /// How it is cut; nil: `source` as it is.
        public var cut: Cut?
        public var encoder: PictureEncoder
        /// Sixel's pan region (``SixelRegion``): nil, the picture is `source` cut by `cut` and
        /// encoded; otherwise the step is a rectangle of a region, made first from `source` cut
        /// by `cut` (the region's frame) or given.
        public var sixelRegion: SixelStep?

        public init(token: Int, source: RGBAImage, cut: Cut?, encoder: PictureEncoder, sixelRegion: SixelStep? = nil) {
            self.token = token
            self.source = source
            self.cut = cut
            self.encoder = encoder
            self.sixelRegion = sixelRegion
        }

        /// The pixels and their encoding, made on the calling thread (the worker's queue, or the
        /// main thread when there is no worker).
        public func make() -> Result {
            if case .encode(let region, let rect) = sixelRegion {
                return Result(token: token, encoded: encoder.encode(region: region, rect: rect))
            }
            if case .encodeScaled(let region, let rect, let size) = sixelRegion {
                return Result(token: token, encoded: encoder.encode(region: region, scaling: rect, to: size))
            }
            let pixels = cut.map { $0.frame.pixels(from: source, imageSize: $0.imageSize) } ?? source
            if case .make(let rect) = sixelRegion {
                if let region = SixelRegion(pixels: pixels, background: encoder.context.background) {
                    return Result(token: token, encoded: encoder.encode(region: region, rect: rect), sixelRegion: region)
                }
                // No median cut (libsixel missing): the rectangle alone, through the encoder.
                return Result(token: token, encoded: encoder.encode(Self.crop(pixels, rect)))
            }
            return Result(token: token, encoded: encoder.encode(pixels))
        }

        /// The rectangle `rect` of `image` (clipped to it).
        static func crop(_ image: RGBAImage, _ rect: Viewport.PixelRect) -> RGBAImage {
            let x = min(max(0, rect.x), image.width - 1), y = min(max(0, rect.y), image.height - 1)
            let w = max(1, min(rect.width, image.width - x)), h = max(1, min(rect.height, image.height - y))
            var pixels = [UInt8](repeating: 0, count: w * h * 4)
            for row in 0..<h {
                let from = ((y + row) * image.width + x) * 4
                pixels[(row * w * 4)..<((row + 1) * w * 4)] = image.pixels[from..<(from + w * 4)]
            }
            return RGBAImage(width: w, height: h, pixels: pixels)
        }
    }

    /// A sixel step from a pan region (``Request/sixelRegion``).
    public enum SixelStep: Sendable {
        /// Make the region from the request's cut (the region's frame), then encode the
        /// rectangle `rect` of it (pixels of the region's picture: the visible frame); the
        /// result carries the region for the next steps.
        case make(rect: Viewport.PixelRect)
        /// Encode the rectangle `rect` of `region` (the request's source and cut are not used).
        case encode(SixelRegion, rect: Viewport.PixelRect)
        /// Encode the rectangle `rect` of `region` scaled to `size` pixels (a zoom step's
        /// draft from the region of the last zoom, ``SixelRegion/sixel(scaling:to:)``).
        case encodeScaled(SixelRegion, rect: Viewport.PixelRect, size: PixelSize)
    }

    /// One picture made.
    public struct Result: Sendable {
        public var token: Int
        public var encoded: EncodedPicture
        /// The sixel pan region made for this picture (``SixelStep/make(rect:)``), nil otherwise.
        public var sixelRegion: SixelRegion? = nil
    }

    /// What the worker has done, for tests and benchmarks.
    public struct Counts: Sendable, Equatable {
        /// Pictures made and posted.
        public var made = 0
        /// Requests (and sixel region prefetches) replaced by a newer one before their turn
        /// came (never made).
        public var superseded = 0
    }

    /// One queue's work: at most one piece in work (`busy`) and one waiting, the newest ask.
    private struct Lane {
        var busy = false
        var waiting: (@Sendable () -> Void)?
    }

    /// The worker's two queues: the pictures, and sixel regions made ahead of the view.
    private enum LaneID { case pictures, prefetch }

    private struct State {
        var pictures = Lane()
        var prefetch = Lane()
        var counts = Counts()

        subscript(lane: LaneID) -> Lane {
            get { lane == .pictures ? pictures : prefetch }
            set { if lane == .pictures { pictures = newValue } else { prefetch = newValue } }
        }
    }

    private let post: Post
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "vitrine.picture-worker", qos: .userInitiated)
    /// Sixel pan regions made ahead of the view (``prefetchSixelRegion(source:cut:background:completion:)``),
    /// beside the pictures' queue so that no step waits behind one.
    private let prefetchQueue = DispatchQueue(label: "vitrine.picture-worker.prefetch", qos: .utility)

    /// - Parameter post: hands a completion to the main thread; called on the worker's queue.
    public init(post: @escaping Post) {
        self.post = post
    }

    /// Asks for `request`'s picture; `completion` runs on the main thread through `post` when
    /// it is made, or never when a newer request replaces this one before its turn.
    public func submit(_ request: Request, completion: @escaping @MainActor @Sendable (Result) -> Void) {
        enqueue(.pictures, on: queue) {
            let result = request.make()
            self.post { completion(result) }
            self.state.withLock { $0.counts.made += 1 }
        }
    }

    /// What the worker has done so far.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Makes a sixel pan region (``SixelRegion``) from `source` cut by `cut` (the region's
    /// frame) on a queue of its own, beside the pictures (a prefetch: the steps asked
    /// meanwhile are not held behind its 40-50 ms, they share the cores with it); `completion`
    /// runs on the main thread through `post` with the region, nil when libsixel's median cut
    /// is not available. One is made at a time; an ask that comes while one is made waits, and
    /// a newer ask replaces it (its completion then never runs, and ``Counts/superseded``
    /// counts it): zoom steps typed fast leave one region to make, not one each.
    public func prefetchSixelRegion(
        source: RGBAImage, cut: Cut, background: RGB, completion: @escaping @MainActor @Sendable (SixelRegion?) -> Void
    ) {
        enqueue(.prefetch, on: prefetchQueue) {
            let region = SixelRegion(pixels: cut.frame.pixels(from: source, imageSize: cut.imageSize), background: background)
            self.post { completion(region) }
        }
    }

    /// Runs `work` on `queue` now if `lane` is idle; else keeps it as the one waiting (a piece
    /// already waiting is dropped: superseded).
    private func enqueue(_ lane: LaneID, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let start = state.withLock { s -> Bool in
            guard s[lane].busy else {
                s[lane].busy = true
                return true
            }
            if s[lane].waiting != nil { s.counts.superseded += 1 }
            s[lane].waiting = work
            return false
        }
        if start { queue.async { self.drain(lane, first: work) } }
    }

    /// Runs `first`, then whatever waits in `lane`, until nothing does.
    private func drain(_ lane: LaneID, first: @escaping @Sendable () -> Void) {
        var work = first
        while true {
            work()
            let next = state.withLock { s -> (@Sendable () -> Void)? in
                guard let waiting = s[lane].waiting else {
                    s[lane].busy = false
                    return nil
                }
                s[lane].waiting = nil
                return waiting
            }
            guard let next else { return }
            work = next
        }
    }
}
