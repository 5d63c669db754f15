import Dispatch
import Foundation
import HalfBlock
import ImagePipeline
import Locking
import TerminalGraphics
import TerminalUI
import Testing

@testable import Browse

/// What a `PictureWorker` posts to the main thread, collected in order; the test takes them one
/// at a time (waiting on a semaphore with a timeout: no sleeps) and runs them on the main actor
/// as the main loop would. `hold()` makes the next post wait until `release()`, so a test can
/// submit more while the worker is provably busy.
final class Posts: Sendable {
    private let queue = Mutex<[@MainActor @Sendable () -> Void]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let held = Mutex<DispatchSemaphore?>(nil)

    var post: PictureWorker.Post {
        { [self] work in
            // The gate is taken before the work is handed over: once the test has the work,
            // a later hold() is for the next post.
            let gate = held.withLock { gate -> DispatchSemaphore? in
                defer { gate = nil }
                return gate
            }
            queue.withLock { $0.append(work) }
            arrived.signal()
            gate?.wait()
        }
    }

    /// The next post waits (on the worker's queue) until ``release(_:)``.
    func hold() -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        held.withLock { $0 = gate }
        return gate
    }

    /// The next work posted, waiting up to `seconds` for it; nil when none came.
    func next(seconds: Double = 20) -> (@MainActor @Sendable () -> Void)? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return queue.withLock { $0.removeFirst() }
    }

    /// Works posted and not taken yet.
    var count: Int { queue.withLock { $0.count } }
}

@Suite("PictureWorker: pictures cut and encoded off the main thread")
@MainActor
struct PictureWorkerTests {
    static let context = PresenterContext(cellWidth: 10, cellHeight: 20)

    /// A 400x300 opaque picture with detail in both directions (so crops differ).
    static let photo: DecodedImage = {
        var pixels = [UInt8](repeating: 255, count: 400 * 300 * 4)
        for i in 0..<(400 * 300) {
            let x = i % 400, y = i / 400
            pixels[4 * i] = UInt8(x * 255 / 399)
            pixels[4 * i + 1] = UInt8(y * 255 / 299)
            pixels[4 * i + 2] = UInt8((x ^ y) & 255)
        }
        return DecodedImage(bitmap: RGBAImage(width: 400, height: 300, pixels: pixels), sourceWidth: 400, sourceHeight: 300)
    }()

    /// A viewport at 1:1 over the photo in 30x10 cells of 10x20 (300x200 pixels), panned.
    static func viewport(panColumns: Int) -> Viewport {
        var v = Viewport(image: PixelSize(width: 400, height: 300), columns: 30, rows: 10, cell: PixelSize(width: 10, height: 20))
        v.actualSize()
        v.pan(columns: panColumns, rows: 1)
        return v
    }

    @Test("an answer is the cut and the encode of the state asked for, with the real encoders")
    func answersMatchTheRequest() throws {
        let posts = Posts()
        let worker = PictureWorker(post: posts.post)
        let area = CellArea(origin: (0, 0), columns: 30, rows: 10)
        for (n, p) in [PixelProtocol.kitty, .sixel, .iterm].enumerated() {
            let v = Self.viewport(panColumns: 3 + n)
            let cut = PictureWorker.Cut(frame: v.frame, imageSize: v.image)
            let encoder = PictureEncoder(p, context: Self.context)
            final class Box: @unchecked Sendable { var result: PictureWorker.Result? }
            let box = Box()
            worker.submit(PictureWorker.Request(token: 40 + n, source: Self.photo.bitmap, cut: cut, encoder: encoder)) {
                box.result = $0
            }
            let work = try #require(posts.next(), "\(p): no answer")
            work()
            let result = try #require(box.result)
            #expect(result.token == 40 + n)
            // The same pixels cut here, shown by a fresh presenter: the same bytes.
            let pixels = v.frame.pixels(from: Self.photo.bitmap, imageSize: v.image)
            #expect(pixels.width == 300 && pixels.height == 200)
            var fromWorker = Presenters.make(p, context: Self.context)
            var direct = Presenters.make(p, context: Self.context)
            let placed = fromWorker.show(encoded: result.encoded, in: area)
            #expect(!placed.isEmpty)
            #expect(placed == direct.show(pixels, in: area), "\(p)")
            if p == .iterm {
                // The PNG inside is the cut, pixel for pixel (lossless).
                let text = String(decoding: placed, as: UTF8.self)
                let base64 = try #require(text.split(separator: ":").last?.split(separator: "\u{07}").first)
                let png = try #require(Data(base64Encoded: String(base64)))
                #expect(PNG.decode([UInt8](png)) == pixels)
            }
        }
        #expect(worker.counts == PictureWorker.Counts(made: 3, superseded: 0))
    }

    @Test("a request made while one is in work waits; a newer one replaces it, which is never made")
    func superseded() throws {
        let posts = Posts()
        let worker = PictureWorker(post: posts.post)
        let encoder = PictureEncoder(.sixel, context: Self.context)
        final class Tokens: @unchecked Sendable { var seen: [Int] = [] }
        let tokens = Tokens()
        func submit(_ token: Int) {
            let v = Self.viewport(panColumns: token)
            worker.submit(
                PictureWorker.Request(
                    token: token, source: Self.photo.bitmap, cut: PictureWorker.Cut(frame: v.frame, imageSize: v.image),
                    encoder: encoder)
            ) { tokens.seen.append($0.token) }
        }
        // The first answer's post is held: the worker stays busy while 2 and 3 are asked.
        let gate = posts.hold()
        submit(1)
        let first = try #require(posts.next())
        submit(2)
        submit(3)
        gate.signal()
        first()
        let second = try #require(posts.next())
        second()
        #expect(tokens.seen == [1, 3])
        // One more after: the worker goes on; 2 was never made.
        submit(4)
        let work = try #require(posts.next())
        work()
        #expect(tokens.seen == [1, 3, 4])
        #expect(worker.counts.superseded == 1)
        #expect(worker.counts.made >= 2 && posts.count == 0)
    }

    /// One loop turn as the wiring runs it: bytes before the refresh, the frame, bytes after.
    func turn(_ h: Harness) -> String {
        h.app.updateInterest()
        _ = h.app.pixelOutputBeforeRefresh()
        h.app.draw(on: h.canvas)
        return String(decoding: h.app.pixelOutputAfterRefresh(), as: UTF8.self)
    }

    @Test("full view: keys during an encode update the status at once; a stale answer is dropped; the state on screen is drawn")
    func fullViewDropsStaleAnswers() throws {
        let posts = Posts()
        let worker = PictureWorker(post: posts.post)
        let h = Harness(count: 3, lines: 11, columns: 100)
        h.app.pixels = (.sixel, Self.context)
        h.app.pictureWorker = worker
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        _ = turn(h)
        h.app.apply(view.ticket!, .success(Self.photo))
        // The fit picture is asked of the worker: nothing is written until it answers.
        #expect(turn(h).isEmpty)
        let work = try #require(posts.next())
        work()
        // At the fit, libsixel encodes (its palette chosen for the picture, Atkinson diffusion).
        let fit = try #require(view.viewport)
        let fitPixels = fit.frame.pixels(from: Self.photo.bitmap, imageSize: fit.image)
        #expect(turn(h).contains(String(decoding: SixelPresenter.encode(fitPixels, background: Self.context.background), as: UTF8.self)))
        // 1:1 and two pans down (the image is 200 pixels high at fit, 300 at 1:1) while the worker is held in its first answer.
        let gate = posts.hold()
        h.app.handle(.character("="))
        #expect(turn(h).isEmpty)
        let stale = try #require(posts.next())
        for _ in 0..<2 {
            h.app.handle(.character("j"))
            #expect(turn(h).isEmpty)
        }
        // The status line says where the view is now, before any picture for it exists.
        let v = try #require(view.viewport)
        #expect(h.canvas.row(10).contains(v.statusText))
        gate.signal()
        stale()
        #expect(view.staleAnswers == 1)
        #expect(turn(h).isEmpty, "the answer for 1:1 before the pans is not written")
        let last = try #require(posts.next())
        last()
        let drawn = turn(h)
        // Zoomed past the fit, sixel pictures go through Vitrine's own encoder, not libsixel: the
        // visible rectangle of a pan region around the view (one palette and its dithered
        // indices), made with this step since none held the view when it was asked.
        let frame = v.panRegion(maxPixels: ImageView.maxSixelRegionPixels)
        let region = try #require(
            SixelRegion(pixels: frame.pixels(from: Self.photo.bitmap, imageSize: v.image), background: Self.context.background))
        let rect = try #require(v.sourceRect(in: frame))
        let expected = String(decoding: region.sixel(rect), as: UTF8.self)
        #expect(drawn.contains(expected))
        // Both answers carried a region for this zoom (the second was asked before the first came): each kept in turn.
        #expect(view.sixelRegionCounts.regions == 2)
        #expect(worker.counts.superseded == 1, "the first pan's picture was never made")
        // Nothing more: the same state writes nothing again.
        #expect(turn(h).isEmpty && posts.count == 0)
    }

    @Test("sixel and iTerm2 animation: each frame is encoded once; later loops only write the kept bytes")
    func animationFramesKept() throws {
        for p in [PixelProtocol.sixel, .iterm] {
            let posts = Posts()
            let worker = PictureWorker(post: posts.post)
            let h = Harness(count: 3)
            h.app.pixels = (p, Self.context)
            h.app.pictureWorker = worker
            h.app.handle(.enter)
            let view = h.app.top as! ImageView
            _ = turn(h)
            h.app.apply(view.ticket!, .success(FullViewAnimationTests.animated))
            var loop1: [String] = []
            for f in 0..<3 {
                if f > 0 { h.app.advanceFrames(now: try #require(h.app.frameDue)) }
                #expect(turn(h).isEmpty, "\(p): frame \(f) is being encoded")
                let work = try #require(posts.next(), "\(p): frame \(f)")
                work()
                loop1.append(turn(h))
            }
            #expect(loop1.allSatisfy { !$0.isEmpty })
            let cache = view.encodedFrameCache
            #expect(cache.frames == 3 && cache.bytes > 0)
            // The second loop: written at once, no encode asked.
            for f in 0..<3 {
                h.app.advanceFrames(now: try #require(h.app.frameDue))
                let out = turn(h)
                #expect(out == loop1[f], "\(p): frame \(f) again")
            }
            // The worker is serial: had the loop asked for anything, its answer would come
            // before this one.
            final class Flag: @unchecked Sendable { var set = false }
            let sentinel = Flag()
            worker.submit(
                PictureWorker.Request(
                    token: -1, source: Self.photo.bitmap, cut: nil, encoder: PictureEncoder(p, context: Self.context))
            ) { _ in sentinel.set = true }
            let next = try #require(posts.next())
            next()
            #expect(sentinel.set, "\(p): an encode was asked in the second loop")
        }
    }

    @Test("sixel animation slower to encode than its frame delay: each late frame is drawn when it comes, not dropped")
    func lateFramesDrawn() throws {
        let posts = Posts()
        let worker = PictureWorker(post: posts.post)
        let h = Harness(count: 3)
        h.app.pixels = (.sixel, Self.context)
        h.app.pictureWorker = worker
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        _ = turn(h)
        h.app.apply(view.ticket!, .success(FullViewAnimationTests.animated))
        // The worker is held in frame 0's answer while two frame delays pass.
        let gate = posts.hold()
        #expect(turn(h).isEmpty, "frame 0 is being encoded")
        let frame0 = try #require(posts.next())
        for _ in 0..<2 {
            h.app.advanceFrames(now: try #require(h.app.frameDue))
            _ = turn(h)
        }
        #expect(view.frameIndex == 2)
        gate.signal()
        frame0()
        let drawn = turn(h)
        #expect(drawn.contains("\u{1B}P"), "the late frame is drawn")
        #expect(view.staleAnswers == 0)
        // Frame 2, asked while frame 0 was in work, comes next; the loop then reaches frame 0
        // again, which was kept when it came: drawn at once, with no encode asked.
        let frame2 = try #require(posts.next())
        frame2()
        _ = turn(h)
        h.app.advanceFrames(now: try #require(h.app.frameDue))
        #expect(view.frameIndex == 0)
        #expect(turn(h).contains("\u{1B}P"))
        final class Flag: @unchecked Sendable { var set = false }
        let sentinel = Flag()
        worker.submit(
            PictureWorker.Request(
                token: -1, source: Self.photo.bitmap, cut: nil, encoder: PictureEncoder(.sixel, context: Self.context))
        ) { _ in sentinel.set = true }
        let next = try #require(posts.next())
        next()
        #expect(sentinel.set, "an encode was asked for the kept frame 0")
        #expect(worker.counts.superseded == 1, "frame 1 was never made")
    }

    @Test("leaving a sixel or iTerm2 picture repaints the terminal whole; kitty's is deleted by id, with no repaint")
    func leavingCellPicturesRepaints() throws {
        for p in [PixelProtocol.sixel, .iterm, .kitty] {
            let h = Harness(count: 3)
            h.app.pixels = (p, Self.context)
            h.app.handle(.enter)
            let view = h.app.top as! ImageView
            _ = turn(h)
            h.app.apply(view.ticket!, .success(Self.photo))
            #expect(!turn(h).isEmpty, "\(p): the picture is drawn")
            #expect(!h.app.repaintRequested)
            h.app.handle(.character("q"))
            #expect(!(h.app.top is ImageView))
            #expect(h.app.repaintRequested == (p != .kitty), "\(p)")
            #expect(!h.app.pixelOutputBeforeRefresh().isEmpty, "\(p): the picture is taken off too")
        }
    }
}
