import Foundation
import HalfBlock
import Locking
import Testing

@testable import ImagePipeline

/// Animated GIF and WebP decoded frame by frame through the real libvips (`Vips.animation`)
/// and the real pipeline, with fixtures where composition and disposal matter.
///
/// `disposal.gif` (scripts/make-fixtures.sh, ImageMagick): 16x16, three frames: red all over
/// (100 ms, dispose none); a blue 8x8 square at the top left (200 ms, dispose *restore to
/// background*); a lime 8x8 square at the bottom right (300 ms). Composited, frame 2 is red
/// with a blue corner, and frame 3 has no blue left: the top left is the background again, the
/// rest red, the bottom right lime. (Without disposal, or with it ignored, the blue stays.) `animated.webp` (Pillow): 16x16, red, lime, blue
/// frames of 50, 120 and 200 ms.
@Suite("Animations: every frame, composited, with its delay")
struct AnimationDecodingTests {
    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: FormatFixtureTests.folder.appendingPathComponent(name))
    }

    static func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [UInt8] {
        let i = (y * image.width + x) * 4
        return Array(image.pixels[i..<i + 4])
    }

    @Test("GIF: three composited frames, their delays, and restore-to-background applied")
    func gifDisposal() throws {
        let decoded = try #require(
            try Vips.animation(Self.data("disposal.gif"), maxWidth: 64, maxHeight: 64, maxPixels: 0, maxBytes: 1 << 20))
        let animation = try #require(decoded.animation)
        #expect(animation.frames.count == 3 && animation.step == 1 && animation.sourceFrameCount == 3)
        #expect(animation.delays == [100, 200, 300])
        #expect(animation.loopCount == 0)
        #expect(decoded.sourceWidth == 16 && decoded.sourceHeight == 16)
        #expect(decoded.bitmap == animation.frames[0])
        let (f1, f2, f3) = (animation.frames[0], animation.frames[1], animation.frames[2])
        #expect(f1.width == 16 && f1.height == 16)
        #expect(Self.pixel(f1, 2, 2) == [255, 0, 0, 255] && Self.pixel(f1, 12, 12) == [255, 0, 0, 255])
        // Frame 2 is drawn over frame 1: a blue corner on red.
        #expect(Self.pixel(f2, 2, 2) == [0, 0, 255, 255] && Self.pixel(f2, 12, 2) == [255, 0, 0, 255])
        // Frame 2's disposal cleared its square before frame 3: no blue, the top left is the
        // background again, frame 1's red stays elsewhere, frame 3's lime on top.
        // (libnsgif restores the background colour of the logical screen, palette entry 0:
        // red here; browsers and ImageMagick clear to transparent. Either way, no blue.)
        let restored = Self.pixel(f3, 2, 2)
        #expect(restored != [0, 0, 255, 255], "restore to background: frame 2's square is gone")
        #expect(restored == [255, 0, 0, 255] || restored[3] == 0)
        #expect(Self.pixel(f3, 12, 2) == [255, 0, 0, 255] && Self.pixel(f3, 2, 12) == [255, 0, 0, 255])
        #expect(Self.pixel(f3, 12, 12) == [0, 255, 0, 255])
    }

    @Test("WebP: three frames at their delays; shrunk on load to the box, never enlarged")
    func webp() throws {
        let big = try #require(
            try Vips.animation(Self.data("animated.webp"), maxWidth: 100, maxHeight: 100, maxPixels: 0, maxBytes: 1 << 20))
        let animation = try #require(big.animation)
        #expect(animation.frames.count == 3 && animation.delays == [50, 120, 200])
        #expect(animation.frames.allSatisfy { $0.width == 16 && $0.height == 16 })
        #expect(Self.pixel(animation.frames[0], 8, 8) == [255, 0, 0, 255])
        #expect(Self.pixel(animation.frames[1], 8, 8) == [0, 255, 0, 255])
        #expect(Self.pixel(animation.frames[2], 8, 8) == [0, 0, 255, 255])
        let small = try #require(
            try Vips.animation(Self.data("animated.webp"), maxWidth: 8, maxHeight: 8, maxPixels: 0, maxBytes: 1 << 20))
        #expect(small.animation!.frames.allSatisfy { $0.width == 8 && $0.height == 8 })
        #expect(Self.pixel(small.animation!.frames[2], 4, 4) == [0, 0, 255, 255])
        #expect(small.sourceWidth == 16 && small.sourceHeight == 16)
    }

    @Test("over the byte cap every k-th frame is kept, standing for the delays of the frames it skips")
    func byteCap() throws {
        // 16x16x4 = 1 KiB a frame; a 2 KiB cap keeps frames 0 and 2 (step 2).
        let decoded = try #require(
            try Vips.animation(Self.data("animated.webp"), maxWidth: 16, maxHeight: 16, maxPixels: 0, maxBytes: 2048))
        let animation = try #require(decoded.animation)
        #expect(animation.step == 2 && animation.frames.count == 2 && animation.sourceFrameCount == 3)
        #expect(animation.delays == [50 + 120, 200])
        #expect(Self.pixel(animation.frames[1], 8, 8) == [0, 0, 255, 255])
        #expect(animation.byteCount <= 2048)
    }

    @Test("delays as browsers play them: 10 ms or less is 100 ms")
    func playedDelays() {
        #expect(Animation.playedDelay(0) == 100 && Animation.playedDelay(10) == 100 && Animation.playedDelay(20) == 20)
        #expect(Animation.keptDelays([0, 30, 40, 10, 70], step: 2, kept: 3) == [130, 140, 70])
        #expect(Animation.keptDelays([40, 40], step: 1, kept: 2) == [40, 40])
    }

    @Test("still images are not animations: a one-frame GIF, a PNG, a JPEG")
    func stills() throws {
        let oneFrame = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-one-frame-\(getpid()).gif")
        defer { try? FileManager.default.removeItem(at: oneFrame) }
        // GIF89a, 1x1, one frame (a global palette of two colours, one image block).
        let gif: [UInt8] = [
            0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 255, 0, 0, 0, 0, 0,
            0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B,
        ]
        try Data(gif).write(to: oneFrame)
        #expect(try Vips.animation(Data(contentsOf: oneFrame), maxWidth: 16, maxHeight: 16, maxPixels: 0, maxBytes: 1 << 20) == nil)
        #expect(try Vips.thumbnail(Data(contentsOf: oneFrame), maxWidth: 16, maxHeight: 16, maxPixels: 0).bitmap.width == 1)
        #expect(try Vips.animation(Self.data("1x1.png"), maxWidth: 16, maxHeight: 16, maxPixels: 0, maxBytes: 1 << 20) == nil)
        #expect(try Vips.animation(Self.data("progressive.jpg"), maxWidth: 16, maxHeight: 16, maxPixels: 0, maxBytes: 1 << 20) == nil)
        // Over the pixel cap (all frames together): a still image for the caller.
        #expect(try Vips.animation(Self.data("disposal.gif"), maxWidth: 16, maxHeight: 16, maxPixels: 700, maxBytes: 1 << 20) == nil)
    }

    @Test("through the pipeline: an animated request gets every frame, a thumbnail request the first frame only")
    func pipelineRequests() async throws {
        let pipeline = ImagePipeline(configuration: .init(memoryCacheBytes: 1 << 20))
        let url = FormatFixtureTests.folder.appendingPathComponent("disposal.gif")
        let thumbnail = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16))
        #expect(thumbnail.animation == nil)
        #expect(Self.pixel(thumbnail.bitmap, 2, 2) == [255, 0, 0, 255], "the first frame: red")
        let full = try await pipeline.image(for: ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16, animated: true))
        #expect(full.animation?.frames.count == 3)
        // Both are in the memory cache, apart, the animation costing its three frames.
        #expect(pipeline.cachedImage(for: ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16))?.animation == nil)
        #expect(pipeline.cachedImage(for: ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16, animated: true))?.animation?.frames.count == 3)
        #expect(pipeline.statistics.memoryCacheBytes == 16 * 16 * 4 * 4)
        // A JPEG asked for as an animation is decoded as a still image.
        let jpeg = FormatFixtureTests.folder.appendingPathComponent("progressive.jpg")
        #expect(try await pipeline.image(for: ImageRequest(url: jpeg, maxPixelWidth: 16, maxPixelHeight: 16, animated: true)).animation == nil)
    }

    @Test("frame by frame: the frames so far after each frame, composited as the whole decode's (disposal across them), and a stop")
    func progressive() throws {
        let data = try Self.data("disposal.gif")
        var partials: [DecodedImage] = []
        let decoded = try #require(
            try Vips.animation(data, maxWidth: 64, maxHeight: 64, maxPixels: 0, maxBytes: 1 << 20) { partial in
                partials.append(partial)
                return true
            })
        let whole = try #require(decoded.animation)
        #expect(whole.isComplete && whole.frameCount == 3)
        // After frames 1 and 2, not after the last (that is the answer).
        #expect(partials.map { $0.animation!.frames.count } == [1, 2])
        for partial in partials {
            let animation = try #require(partial.animation)
            #expect(!animation.isComplete && animation.delays == [100, 200, 300] && animation.frameCount == 3)
            #expect(partial.bitmap == whole.frames[0])
            // Each frame delivered early is the very frame of the whole decode.
            #expect(Array(whole.frames.prefix(animation.frames.count)) == animation.frames)
        }
        // Frame 3 after the early frames still has frame 2's square disposed of.
        #expect(Self.pixel(whole.frames[2], 2, 2) != [0, 0, 255, 255])
        // A stop after the first frame: `.cancelled`, nothing more decoded.
        var calls = 0
        #expect(throws: ImagePipeline.Error.cancelled) {
            try Vips.animation(data, maxWidth: 64, maxHeight: 64, maxPixels: 0, maxBytes: 1 << 20) { _ in
                calls += 1
                return false
            }
        }
        #expect(calls == 1)
    }

    @Test("through the pipeline: a notified animated ticket gets its first frame before the last is decoded, then the whole answer, cached")
    func pipelinePartials() throws {
        let recorder = NotificationRecorder()
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 1 << 20)
        configuration.notificationCenter = recorder.center
        let pipeline = ImagePipeline(configuration: configuration)
        let url = FormatFixtureTests.folder.appendingPathComponent("animated.webp")
        let request = ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16, animated: true)
        guard case .started(let ticket) = pipeline.load(request, priority: 0) else {
            Issue.record("not cached yet")
            return
        }
        // The event: the answer (the notification without `partial`) has come; before it at
        // most one partial per frame but the last.
        for _ in 0..<3 where !recorder.notes.contains(where: { !$0.partial }) {
            _ = recorder.wait(for: recorder.notes.count + 1)
        }
        let notes = recorder.notes
        #expect(notes.allSatisfy { $0.ticket == ticket })
        let first = try #require(notes.first)
        #expect(first.partial, "the first frame went out on its own")
        let early = try #require(try first.result.get().animation)
        #expect(early.frames.count == 1 && early.frameCount == 3 && Self.pixel(early.frames[0], 8, 8) == [255, 0, 0, 255])
        // Exactly one answer, last; partials never complete and never cached.
        #expect(notes.filter { !$0.partial }.count == 1 && notes.last?.partial == false)
        #expect(notes.filter(\.partial).allSatisfy { (try? $0.result.get().animation?.isComplete) == false })
        let whole = try #require(try notes.last!.result.get().animation)
        #expect(whole.isComplete && Self.pixel(whole.frames[2], 8, 8) == [0, 0, 255, 255])
        #expect(pipeline.cachedImage(for: request)?.animation?.isComplete == true)
        // A callback subscriber gets the answer alone, never a partial.
        let thumbnail = ImageRequest(url: url, maxPixelWidth: 8, maxPixelHeight: 8, animated: true)
        let answers = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        pipeline.load(thumbnail, priority: 0) { result in
            answers.withLock { $0.append((try? result.get().animation?.frames.count) ?? -1) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(answers.withLock { $0 } == [3])
    }

    /// Loads `request` as a notified ticket on `pipeline` and withdraws it from inside its first
    /// delivery (on the decode thread, before the next frame decodes), `partialFirst`: at its
    /// first partial delivery, else before any (at once). Returns the ticket's notifications so
    /// far (partial or not), read when called; the observer stays until `done` is called.
    private func leave(
        _ pipeline: ImagePipeline, _ center: NotificationCenter, _ request: ImageRequest, partialFirst: Bool
    ) throws -> (notes: () -> [Bool], done: () -> Void) {
        let seen = Mutex<[Bool]>([])
        let ticketBox = Mutex<ImagePipeline.Ticket?>(nil)
        let token = center.addObserver(forName: ImagePipeline.didFinishLoading, object: nil, queue: nil) { note in
            let partial = note.userInfo?[ImagePipeline.NotificationKey.partial] as? Bool ?? false
            seen.withLock { $0.append(partial) }
            // The ticket is known once `load` has returned (on the test's thread).
            var ticket: ImagePipeline.Ticket?
            for _ in 0..<1000 where ticket == nil {
                ticket = ticketBox.withLock { $0 }
                if ticket == nil { usleep(1000) }
            }
            if partial, let ticket { pipeline.cancel(ticket) }
        }
        guard case .started(let ticket) = pipeline.load(request, priority: 0) else {
            center.removeObserver(token)
            throw CancellationError()
        }
        if partialFirst {
            ticketBox.withLock { $0 = ticket }
            _ = waitFor { seen.withLock { $0.isEmpty ? nil : true } }
        } else {
            pipeline.cancel(ticket)
        }
        return ({ seen.withLock { $0 } }, { center.removeObserver(token) })
    }

    /// A pipeline of one decode slot and a memory cache of `cacheBytes`, telling `center`.
    private func oneSlotPipeline(cacheBytes: Int, _ center: NotificationCenter) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: cacheBytes)
        configuration.notificationCenter = center
        configuration.decodeConcurrency = 1
        return ImagePipeline(configuration: configuration)
    }

    @Test("an animation left while it played decodes on to the end, into the memory cache; one left before any frame stops")
    func leftWhilePlaying() throws {
        let center = NotificationCenter()
        let pipeline = oneSlotPipeline(cacheBytes: 1 << 20, center)
        let url = FormatFixtureTests.folder.appendingPathComponent("animated.webp")
        let watched = ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16, animated: true)
        // Left at its first frame on screen: nobody is told more, and the whole animation is
        // cached for the next Enter.
        let left = try leave(pipeline, center, watched, partialFirst: true)
        defer { left.done() }
        let cached = try #require(waitFor { pipeline.cachedImage(for: watched) })
        #expect(cached.animation?.isComplete == true && cached.animation?.frames.count == 3)
        #expect(left.notes() == [true], "one partial, then nothing: the ticket had left")
        #expect(pipeline.statistics.animationsDecodedUnwatched == 1)
        // Left before any frame reached it (another box, another load): it stops, nothing cached.
        let unseen = ImageRequest(url: url, maxPixelWidth: 12, maxPixelHeight: 12, animated: true)
        try leave(pipeline, center, unseen, partialFirst: false).done()
        // A load after it on the one decode slot: by its answer the left one has ended.
        _ = try syncImage(pipeline, ImageRequest(url: url, maxPixelWidth: 8, maxPixelHeight: 8))
        #expect(pipeline.cachedImage(for: unseen) == nil)
        #expect(pipeline.statistics.animationsDecodedUnwatched == 1)
    }

    @Test("an animation left while it played stops when the memory cache could not keep it (none, or under its frames' bytes)")
    func leftWhilePlayingWithoutRoom() throws {
        // 3 frames of 16x16 RGBA: 3072 bytes; a 2048-byte cache could never hold them
        for cacheBytes in [0, 2048] {
            let center = NotificationCenter()
            let pipeline = oneSlotPipeline(cacheBytes: cacheBytes, center)
            let url = FormatFixtureTests.folder.appendingPathComponent("animated.webp")
            let watched = ImageRequest(url: url, maxPixelWidth: 16, maxPixelHeight: 16, animated: true)
            let left = try leave(pipeline, center, watched, partialFirst: true)
            defer { left.done() }
            // A load after it on the one decode slot: by its answer the left one has ended.
            _ = try syncImage(pipeline, ImageRequest(url: url, maxPixelWidth: 8, maxPixelHeight: 8))
            #expect(pipeline.statistics.animationsDecodedUnwatched == 0, "decoded on with a \(cacheBytes)-byte cache")
            #expect(left.notes() == [true])
        }
    }

    /// Polls `value` for up to 10 s.
    private func waitFor<T>(_ value: () -> T?) -> T? {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let v = value() { return v }
            usleep(5000)
        }
        return nil
    }

    /// `request` through a callback load, waited for.
    private func syncImage(_ pipeline: ImagePipeline, _ request: ImageRequest) throws -> DecodedImage {
        let box = Mutex<Result<DecodedImage, ImagePipeline.Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        pipeline.load(request, priority: 0) { result in
            box.withLock { $0 = result }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        return try box.withLock { $0 }!.get()
    }
}
