import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI
import Testing

@testable import Browse

/// The full view playing an animation: frames advance when the main loop calls at their due
/// time (the test passes the instants: no sleeps), only the image area is redrawn, `a` pauses,
/// zoom is off, and the pixel presenters draw each frame over the last.
@Suite("Full view: animation")
@MainActor
struct FullViewAnimationTests {
    static let red = RGB(255, 0, 0), green = RGB(0, 200, 0), blue = RGB(0, 0, 255)

    /// 3 frames of 40x20 pixels in one colour each (red, green, blue), 100, 200, 300 ms.
    static let animated: DecodedImage = {
        let frames = [red, green, blue].map { c in
            var pixels = [UInt8](repeating: 255, count: 40 * 20 * 4)
            for i in stride(from: 0, to: pixels.count, by: 4) {
                pixels[i] = c.r
                pixels[i + 1] = c.g
                pixels[i + 2] = c.b
            }
            return RGBAImage(width: 40, height: 20, pixels: pixels)
        }
        return DecodedImage(
            bitmap: frames[0], sourceWidth: 40, sourceHeight: 20,
            animation: Animation(frames: frames, delays: [100, 200, 300]))
    }()

    /// The colours drawn in the image area (above the status line).
    func colours(_ h: Harness) -> Set<String> {
        var seen = Set<String>()
        for line in h.canvas.cells.prefix(h.canvas.lines - 1) {
            for cell in line {
                if cell.glyph != " " && cell.foreground != .terminalDefault { seen.insert("\(cell.foreground)") }
                if cell.background != .terminalDefault { seen.insert("\(cell.background)") }
            }
        }
        return seen
    }

    func open(_ h: Harness) -> ImageView {
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        let ticket = view.ticket!
        h.frame()
        h.app.apply(ticket, .success(Self.animated))
        h.frame()
        return view
    }

    @Test("the full view asks for every frame; the frames play at their delays, redrawing the image area alone")
    func plays() throws {
        let h = Harness(count: 3)
        let view = open(h)
        #expect(h.loader.animatedRequests == ["pic-0.png"], "the full view's request is animated, thumbnails are not")
        #expect(h.status.contains("▶ 3 frames"))
        #expect(colours(h) == ["\(TerminalColor.rgb(Self.red))"])
        let due = try #require(h.app.frameDue)
        // Before its time nothing changes and nothing is drawn.
        h.canvas.resetWrites()
        h.app.advanceFrames(now: due - .milliseconds(1))
        #expect(!h.frame() && h.canvas.writes == 0)
        // At its time: frame 2, the image lines redrawn, the status line untouched.
        h.app.advanceFrames(now: due)
        #expect(h.frame())
        #expect(colours(h) == ["\(TerminalColor.rgb(Self.green))"])
        #expect(!h.canvas.touchedLines.contains(h.canvas.lines - 1), "the status line is not redrawn for a frame")
        #expect(view.frameIndex == 1)
        // The next is due 200 ms later.
        #expect(h.app.frameDue == due + .milliseconds(200))
        h.app.advanceFrames(now: due + .milliseconds(200))
        h.frame()
        #expect(colours(h) == ["\(TerminalColor.rgb(Self.blue))"])
    }

    /// ``animated`` with only its first `count` frames decoded (a partial delivery).
    static func firstFrames(_ count: Int) -> DecodedImage {
        var image = animated
        image.animation!.frames = Array(image.animation!.frames.prefix(count))
        return image
    }

    @Test("frames still decoding: playback starts on the first frames, holds on the last decoded one, and the next shows when its delivery comes")
    func playsBeforeTheLastFrameIsDecoded() throws {
        let h = Harness(count: 3)
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        let ticket = try #require(view.ticket)
        h.frame()
        // The pipeline's first partial delivery: frames 1 and 2 of 3.
        h.app.apply(ticket, .success(Self.firstFrames(2)), partial: true)
        h.frame()
        #expect(view.ticket == ticket, "the load goes on")
        #expect(colours(h) == ["\(TerminalColor.rgb(Self.red))"])
        #expect(h.status.contains("▶ 3 frames, 2 decoded"))
        // Frame 2 (k = 1) is shown at its time, before the last frame is decoded.
        h.app.advanceFrames(now: try #require(h.app.frameDue))
        #expect(h.frame())
        #expect(view.frameIndex == 1 && colours(h) == ["\(TerminalColor.rgb(Self.green))"])
        // Frame 3 is due but not decoded: the view holds on frame 2 and asks for no wake-up.
        let due = try #require(h.app.frameDue)
        h.app.advanceFrames(now: due + .seconds(5))
        #expect(!h.frame())
        #expect(view.frameIndex == 1 && view.schedule?.waiting == true && h.app.frameDue == nil)
        // The event: the load's answer with every frame. Nothing is redrawn for it; the held
        // frame's successor is due at once and shows on the next advance.
        h.app.apply(ticket, .success(Self.animated))
        #expect(view.ticket == nil)
        let next = try #require(h.app.frameDue)
        #expect(next <= .now)
        h.app.advanceFrames(now: next)
        #expect(h.frame())
        #expect(view.frameIndex == 2 && colours(h) == ["\(TerminalColor.rgb(Self.blue))"])
        #expect(h.status.contains("▶ 3 frames") && !h.status.contains("decoded"))
        // And on: the first frame again after the last one's 300 ms.
        h.app.advanceFrames(now: try #require(h.app.frameDue))
        h.frame()
        #expect(view.frameIndex == 0 && view.schedule?.loopsDone == 1)
    }

    @Test("a partial delivery for a ticket the view no longer holds (it moved to the next item) is dropped")
    func partialForAnotherTicket() throws {
        let h = Harness(count: 3)
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        let first = try #require(view.ticket)
        h.frame()
        h.type(.character("n"))
        #expect(view.ticket != first)
        h.app.apply(first, .success(Self.firstFrames(1)), partial: true)
        #expect(view.schedule == nil)
        if case .loading = view.phase {} else { Issue.record("still loading the next item") }
    }

    @Test("half blocks: a frame step puts only the cells that changed since the last frame")
    func changedCellsOnly() throws {
        // Two 40x20 frames, red, the second with a blue 4x4 square at the top left.
        let red = RGBAImage(width: 40, height: 20, pixels: [UInt8]((0..<800).flatMap { _ in [255, 0, 0, 255] as [UInt8] }))
        var second = red
        for y in 0..<4 { for x in 0..<4 { second.pixels.replaceSubrange((y * 40 + x) * 4..<(y * 40 + x) * 4 + 4, with: [0, 0, 255, 255]) } }
        let image = DecodedImage(
            bitmap: red, sourceWidth: 40, sourceHeight: 20, animation: Animation(frames: [red, second], delays: [100, 100]))
        let h = Harness(count: 3)
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        h.frame()
        h.app.apply(view.ticket!, .success(image))
        h.frame()
        let full = h.canvas.cells
        h.canvas.resetWrites()
        h.app.advanceFrames(now: try #require(h.app.frameDue))
        #expect(h.frame())
        // The square's cells (the fitted render enlarges 40x20 pixels to the screen) and no
        // others were put.
        let changed = zip(full.joined(), h.canvas.cells.joined()).filter { $0 != $1 }.count
        #expect(changed > 0 && h.canvas.writes == changed, "writes \(h.canvas.writes), changed \(changed)")
        #expect(h.canvas.writes < 100)
        // And back to the first frame: those cells again, red.
        h.canvas.resetWrites()
        h.app.advanceFrames(now: try #require(h.app.frameDue))
        h.frame()
        #expect(h.canvas.cells == full)
        #expect(h.canvas.writes == changed)
    }

    @Test("a pauses on the frame shown and resumes; the status line says which")
    func pause() throws {
        let h = Harness(count: 3)
        let view = open(h)
        let due = try #require(h.app.frameDue)
        h.app.advanceFrames(now: due)
        h.frame()
        h.type(.character("a"))
        #expect(h.status.contains("⏸ 2/3"))
        #expect(h.app.frameDue == nil)
        h.app.advanceFrames(now: due + .seconds(60))
        #expect(view.frameIndex == 1)
        #expect(colours(h) == ["\(TerminalColor.rgb(Self.green))"])
        h.type(.character("a"))
        #expect(h.status.contains("▶ 3 frames"))
        #expect(h.app.frameDue != nil)
        #expect(Bindings.action(for: .character("a"), in: .image)?.action == .toggleAnimation)
        #expect(Bindings.action(for: .character("a"), in: .list) == nil)
    }

    @Test("zoom and pan are off on an animation, and the status line says so")
    func noZoom() {
        let h = Harness(count: 3)
        let view = open(h)
        let before = view.viewport
        h.type(.character("+"))
        #expect(view.viewport == before)
        #expect(h.status.contains("no zoom or pan on an animation"))
        // The note goes with the next key.
        h.type(.character("a"))
        #expect(!h.status.contains("no zoom"))
    }

    @Test("a still image has no schedule; a stills' a says so")
    func still() {
        let h = Harness(count: 3)
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        h.app.apply(view.ticket!, .success(ThumbnailLoaderTests.image))
        h.frame()
        #expect(view.schedule == nil && h.app.frameDue == nil)
        h.type(.character("a"))
        #expect(h.status.contains("not an animation"))
    }

    /// One loop turn with pixels: bytes before the refresh, the frame, bytes after.
    func turn(_ h: Harness) -> (before: String, after: String) {
        h.app.updateInterest()
        let before = h.app.pixelOutputBeforeRefresh()
        h.app.draw(on: h.canvas)
        let after = h.app.pixelOutputAfterRefresh()
        return (String(decoding: before, as: UTF8.self), String(decoding: after, as: UTF8.self))
    }

    @Test("kitty: each frame is sent once and kept; later loops only place it; q deletes them all")
    func kittyKeepsFrames() throws {
        let h = Harness(count: 3)
        h.app.pixels = (.kitty, PresenterContext(cellWidth: 10, cellHeight: 20))
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        _ = turn(h)
        h.app.apply(view.ticket!, .success(Self.animated))
        #expect(turn(h).after.contains("a=T,f=24,s=40,v=20,i=1000"))
        // Frames 2 and 3 are sent (ids 1001, 1002); the one before loses its placement only.
        var outputs: [String] = []
        for _ in 0..<3 {
            h.app.advanceFrames(now: try #require(h.app.frameDue))
            outputs.append(turn(h).after)
        }
        #expect(outputs[0].contains("i=1001") && outputs[0].contains("a=d,d=i,i=1000,"))
        #expect(outputs[1].contains("a=T,f=24,s=40,v=20,i=1002") && outputs[1].contains("a=d,d=i,i=1001,"))
        // The second loop: frame 1 again is only placed, a few dozen bytes, no pixels.
        #expect(outputs[2].contains("a=p,i=1000,p=1") && !outputs[2].contains("a=T"))
        #expect(outputs[2].utf8.count < 100)
        #expect(outputs[2].contains("a=d,d=i,i=1002,"))
        // q deletes every kept frame with its data.
        h.app.handle(.character("q"))
        let back = turn(h).before
        for id in 1000...1002 { #expect(back.contains("a=d,d=I,i=\(id),")) }
    }

    @Test("kitty: each frame is placed before the last one is hidden; sixel: drawn over it, never blanked")
    func pixelFrames() throws {
        for p in [PixelProtocol.kitty, .sixel] {
            let h = Harness(count: 3)
            h.app.pixels = (p, PresenterContext(cellWidth: 10, cellHeight: 20))
            h.app.handle(.enter)
            let view = h.app.top as! ImageView
            _ = turn(h)
            h.app.apply(view.ticket!, .success(Self.animated))
            let first = turn(h)
            #expect(!first.after.isEmpty)
            h.app.advanceFrames(now: try #require(h.app.frameDue))
            let next = turn(h)
            #expect(next.before.isEmpty, "\(p): nothing taken off before the refresh")
            if p == .kitty {
                let place = try #require(next.after.range(of: "a=T,f=24,s=40,v=20,i=1001"))
                let delete = try #require(next.after.range(of: "a=d,d=i,i=1000"))
                #expect(place.lowerBound < delete.lowerBound)
            } else {
                #expect(next.after.contains("\u{1B}P"))
                #expect(!next.after.contains(/\x1B\[\d+X/), "no ECH blanking between frames")
            }
            // Nothing due: nothing written.
            #expect(turn(h) == ("", ""))
        }
    }
}

/// A font change mid-session: new cell pixels from TIOCGWINSZ after SIGWINCH.
@Suite("Full view: a new cell size")
@MainActor
struct FullViewCellSizeTests {
    @Test("a new cell size takes the picture off, decodes for the new pixel box, and draws with the new cells")
    func newCellSize() throws {
        let h = Harness(count: 3)
        h.app.pixels = (.kitty, PresenterContext(cellWidth: 10, cellHeight: 20))
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        h.frame()
        h.app.apply(view.ticket!, .success(FullViewPixelsTests.photo))
        h.app.updateInterest()
        _ = h.app.pixelOutputBeforeRefresh()
        h.app.draw(on: h.canvas)
        #expect(String(decoding: h.app.pixelOutputAfterRefresh(), as: UTF8.self).contains("i=1000"))
        #expect(h.loader.requested.last?.width == 800 && h.loader.requested.last?.height == 460)
        // The same size again changes nothing.
        h.app.updateCellPixels(width: 10, height: 20)
        #expect(h.app.pixelOutputBeforeRefresh().isEmpty)
        // Twice the cell: the picture comes off before the refresh, the decode is asked for
        // 1600x920 (80x23 cells of 20x40 pixels).
        h.app.updateCellPixels(width: 20, height: 40)
        h.app.layout(lines: 24, columns: 80)
        h.app.updateInterest()
        let before = String(decoding: h.app.pixelOutputBeforeRefresh(), as: UTF8.self)
        #expect(before.contains("a=d,d=I,i=1000"))
        #expect(h.loader.requested.last?.width == 1600 && h.loader.requested.last?.height == 920)
        // Its answer is drawn with the new presenter (ids from 2000) and the new cells.
        h.app.apply(view.ticket!, .success(FullViewPixelsTests.photo))
        #expect(view.viewport?.cell == PixelSize(width: 20, height: 40))
        h.app.draw(on: h.canvas)
        #expect(String(decoding: h.app.pixelOutputAfterRefresh(), as: UTF8.self).contains("i=2000"))
    }
}
