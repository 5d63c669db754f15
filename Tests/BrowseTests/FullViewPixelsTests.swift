import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI
import Testing

@testable import Browse

/// The full view with a pixel presenter: what it asks to decode, what it writes around curses's
/// refresh, and when the picture comes off the screen. Checked on the test canvas with the
/// presenters' real bytes (kitty's commands, sixel's DCS, ECH blanking).
@Suite("Full view: real pixels")
@MainActor
struct FullViewPixelsTests {
    static let context = PresenterContext(cellWidth: 10, cellHeight: 20)

    /// A harness whose full view draws with `p`, and an opaque 400x300 decode for it.
    func harness(_ p: PixelProtocol, lines: Int = 24, columns: Int = 80) -> Harness {
        let h = Harness(count: 5, lines: lines, columns: columns)
        h.app.pixels = (p, Self.context)
        return h
    }

    static let photo: DecodedImage = {
        var pixels = [UInt8](repeating: 255, count: 400 * 300 * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) { pixels[i] = UInt8(i / 4 % 400 * 255 / 399) }
        return DecodedImage(bitmap: RGBAImage(width: 400, height: 300, pixels: pixels), sourceWidth: 4000, sourceHeight: 3000)
    }()

    /// One loop turn as the wiring runs it: bytes before the refresh, the frame, bytes after.
    func turn(_ h: Harness) -> (before: String, after: String) {
        h.app.updateInterest()
        let before = h.app.pixelOutputBeforeRefresh()
        h.app.draw(on: h.canvas)
        let after = h.app.pixelOutputAfterRefresh()
        return (String(decoding: before, as: UTF8.self), String(decoding: after, as: UTF8.self))
    }

    func openAndLoad(_ h: Harness) -> ImageView {
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        let ticket = view.ticket!
        _ = turn(h)
        h.app.apply(ticket, .success(Self.photo))
        return view
    }

    @Test("kitty: decoded for the area's pixels, drawn after the refresh once, sent again after ^L, deleted on q")
    func kitty() {
        let h = harness(.kitty)
        let view = openAndLoad(h)
        // The request is the area's pixels: 80x23 cells of 10x20 pixels.
        let request = h.loader.requested.last!
        #expect(request.priority == -1 && request.width == 800 && request.height == 460)
        let first = turn(h)
        #expect(first.before.isEmpty)
        // 4000x3000 fitted in 800x460: 613x460 (a=T, RGB since opaque), centred: 62 columns
        // wide, column 9, rows 0-22.
        #expect(first.after.contains("\u{1B}_Ga=T,f=24,s=613,v=460,i=1000,p=1,C=1"))
        #expect(first.after.hasPrefix("\u{1B}7\u{1B}[1;10H"))
        // The canvas keeps the area blank: no half-block art under the picture.
        #expect(h.canvas.cells.prefix(23).joined().allSatisfy { $0.background == .terminalDefault && $0.glyph == " " })
        #expect(view.pixelProtocol == .kitty)
        // Nothing changed: nothing is written again.
        h.app.handle(.character("x"))
        #expect(turn(h) == ("", ""))
        // ^L repaints from scratch: its clear (ED 2) deletes kitty's images with their data,
        // so the picture is sent again (the encoding kept: no decode, no encode), the old id
        // deleted first in case the terminal kept it. (Placed again by id, kitty 0.26 showed
        // nothing: test_pixels.py test_full_view_kitty_ctrl_l_sends_the_picture_again.)
        h.app.handle(.control("L"))
        let repaint = turn(h)
        #expect(repaint.after.hasPrefix("\u{1B}_Ga=d,d=I,i=1000,q=2\u{1B}\\"))
        #expect(repaint.after.contains("\u{1B}_Ga=T,f=24,s=613,v=460,i=1001,p=1,C=1"))
        #expect(!repaint.after.contains("a=p"))
        #expect(turn(h) == ("", ""))
        // q: the image and its data are deleted before the gallery is drawn.
        h.app.handle(.character("q"))
        let back = turn(h)
        #expect(back.before == "\u{1B}_Ga=d,d=I,i=1001,q=2\u{1B}\\")
        #expect(back.after.isEmpty)
        #expect(h.app.top === h.gallery)
    }

    @Test("sixel: the next image blanks the old picture before the refresh; the help covers it; a resize redraws it")
    func sixel() {
        let h = harness(.sixel)
        _ = openAndLoad(h)
        let first = turn(h)
        #expect(first.after.contains("\u{1B}Pq") || first.after.contains("\u{1B}P0;0;0q") || first.after.contains("q\""))
        // n: the old picture's cells are blanked (ECH per row) before curses draws, and the
        // next image loads: nothing is drawn until it arrives.
        h.app.handle(.character("n"))
        let next = turn(h)
        #expect(next.before.contains("\u{1B}[62X"))
        #expect(next.after.isEmpty)
        let view = h.app.top as! ImageView
        h.app.apply(view.ticket!, .success(Self.photo))
        #expect(turn(h).after.contains("\u{1B}P"))
        // The help covers the view: the picture goes first, and comes back when the help closes.
        h.app.handle(.character("?"))
        let help = turn(h)
        #expect(help.before.contains("\u{1B}[62X") && help.after.isEmpty)
        #expect(h.canvas.text.contains("Vitrine keys"))
        h.app.handle(.character("x"))
        #expect(turn(h).after.contains("\u{1B}P"))
        // A resize: the old area is blanked, the picture drawn again for the new size (40x11
        // cells: 400x220 pixels, the 4:3 image 293x220, 30 columns from column 5).
        h.canvas.resize(lines: 12, columns: 40)
        h.app.layout(lines: 12, columns: 40)
        let resized = turn(h)
        #expect(resized.before.contains("\u{1B}[62X"))
        #expect(resized.after.hasPrefix("\u{1B}7\u{1B}[1;6H"))
        // Exit takes it off.
        #expect(String(decoding: h.app.pixelOutputAtExit(), as: UTF8.self).contains("\u{1B}[30X"))
        #expect(h.app.pixelOutputAtExit().isEmpty)
    }

    @Test("sixel and iTerm2: a pan step's opaque picture filling the same cells is drawn over the last, never blanked first")
    func panWithoutBlank() {
        for p in [PixelProtocol.sixel, .iterm] {
            let h = harness(p)
            _ = openAndLoad(h)
            _ = turn(h)
            // 1:1 fills the 80x23 cells (800x460 pixels): a new area, so the fit's 62 columns go.
            h.app.handle(.character("="))
            let zoom = turn(h)
            #expect(zoom.before.contains("\u{1B}[62X"), "\(p)")
            // A pan step: the same cells, covered whole by an opaque picture: no ECH at all.
            h.app.handle(.character("l"))
            let pan = turn(h)
            #expect(pan.before.isEmpty, "\(p)")
            #expect(pan.after.hasPrefix("\u{1B}7\u{1B}[1;1H\u{1B}" + (p == .sixel ? "P" : "]1337")), "\(p): \(pan.after.prefix(20))")
            #expect(!pan.after.contains("X\u{1B}"), "\(p): blanked")
            // Back to the fit (a smaller picture): its old cells are blanked as before.
            h.app.handle(.character("w"))
            #expect(turn(h).before.contains("\u{1B}[80X"), "\(p)")
        }
    }

    @Test("sixel and iTerm2: a picture taken off without one covering it (the next item, a smaller picture) repaints the terminal whole; kitty's does not")
    func staleRepaints() {
        for p in [PixelProtocol.sixel, .iterm, .kitty] {
            let h = harness(p)
            _ = openAndLoad(h)
            _ = turn(h)
            h.app.repaintRequested = false
            // A pan-free turn: nothing comes off, no repaint.
            h.app.handle(.character("x"))
            _ = turn(h)
            #expect(!h.app.repaintRequested, "\(p)")
            // n: the picture comes off before the refresh; in the cells, the same turn repaints.
            h.app.handle(.character("n"))
            let next = turn(h)
            #expect(!next.before.isEmpty, "\(p)")
            #expect(h.app.repaintRequested == (p != .kitty), "\(p)")
        }
    }

    @Test("sixel: a decode in the thumbnail preview's cells but narrower in pixels takes the preview off and repaints; one as large covers it")
    func narrowerDecodeRepaints() {
        func decode(height: Int) -> DecodedImage {
            DecodedImage(
                bitmap: RGBAImage(
                    width: 400, height: height / 10,
                    pixels: (0..<(400 * (height / 10) * 4)).map { $0 % 4 == 3 ? 255 : UInt8($0 / 4 % 200) }),
                sourceWidth: 4000, sourceHeight: height)
        }
        // 4000x3000 fits 800x460 as 613x460, 4000x3010 as 611x460: both 62 columns of 23 rows,
        // like the 640x480 thumbnail's 613x460.
        for (height, covered) in [(3000, true), (3010, false)] {
            let h = harness(.sixel)
            h.finishLoads()
            h.app.handle(.enter)
            let view = h.app.top as! ImageView
            #expect(turn(h).after.contains("\u{1B}P"), "the preview")
            h.app.repaintRequested = false
            h.app.apply(view.ticket!, .success(decode(height: height)))
            let replaced = turn(h)
            #expect(replaced.after.contains("\u{1B}P"), "\(height)")
            #expect(replaced.before.contains("\u{1B}[62X") == !covered, "\(height)")
            #expect(h.app.repaintRequested == !covered, "\(height)")
            #expect(!replaced.after.contains("X\u{1B}"), "\(height): blanked after the refresh")
        }
    }

    @Test("n: the last item's picture comes off before the refresh while the next item's is still being encoded (its thumbnail in the same cells, then a slow animation frame)")
    func nextItemTakesOldPictureOff() throws {
        for p in [PixelProtocol.sixel, .iterm, .kitty] {
            let posts = Posts()
            let h = harness(p)
            h.app.pictureWorker = PictureWorker(post: posts.post)
            // Every row's 640x480 thumbnail is in memory: the next item's preview fills the
            // same 62x23 cells as this item's 4000x3000 decode.
            h.finishLoads()
            h.app.handle(.enter)
            let view = h.app.top as! ImageView
            h.app.apply(view.ticket!, .success(Self.photo))
            #expect(turn(h).after.isEmpty, "\(p): being encoded")
            let work1 = try #require(posts.next(), "\(p): the decode's picture")
            work1()
            let first = turn(h)
            #expect(!first.after.isEmpty, "\(p)")
            // n: the worker is held in the next answer (a heavy frame taking seconds); the old
            // picture is taken off at once, before curses draws the new status line.
            let gate = posts.hold()
            h.app.repaintRequested = false
            h.app.handle(.character("n"))
            #expect(view.preview != nil, "\(p): the next item's thumbnail")
            let next = turn(h)
            let off = p == .kitty ? "\u{1B}_Ga=d,d=I,i=1000,q=2\u{1B}\\" : "\u{1B}[62X"
            #expect(next.before.contains(off), "\(p): \(next.before.prefix(40))")
            #expect(next.after.isEmpty, "\(p): nothing new until the worker answers")
            #expect(h.app.repaintRequested == (p != .kitty), "\(p)")
            #expect(h.status.contains("Picture 1"), "\(p)")
            // The decode, an animation, arrives while the preview is still encoding: nothing
            // of the last item comes back, on a plain turn or a full repaint.
            h.app.apply(view.ticket!, .success(FullViewAnimationTests.animated))
            #expect(turn(h) == ("", ""), "\(p)")
            h.app.handle(.control("L"))
            #expect(turn(h).after.isEmpty, "\(p): the old picture is not put back")
            // The worker goes on: the preview's answer (if it was not superseded) is dropped,
            // the first frame is drawn.
            gate.signal()
            var drawn = ""
            while drawn.isEmpty, let work = posts.next() {
                work()
                drawn = turn(h).after
            }
            #expect(!drawn.isEmpty, "\(p): the first frame drawn")
        }
    }

    @Test("a pixel protocol tmux drops: the full view's status line gives the hint before the title; half blocks do not")
    func pixelsHintInStatus() {
        let hint = "tmux drops kitty graphics (set -g allow-passthrough on)"
        for columns in [80, 160] {
            let h = harness(.kitty, columns: columns)
            h.model.pixelsHint = hint
            _ = openAndLoad(h)
            _ = turn(h)
            // At 80 columns the title gives way (the status line cuts the left part), the hint stays.
            #expect(h.status.hasPrefix(" " + hint + (columns > 80 ? "  Picture 0  4000 × 3000" : "  ")), "\(h.status)")
            #expect(h.status.contains("1/5  n/p q"), "\(h.status)")
        }
        // Without a pixel presenter the hint does not apply: the URL as always.
        let half = harness(.halfblock, columns: 160)
        half.model.pixelsHint = hint
        _ = openAndLoad(half)
        half.frame()
        #expect(half.status.hasPrefix(" Picture 0 ") && half.status.contains("http://127.0.0.1:9/pic-0.png") && !half.status.contains("tmux"))
    }

    @Test("while the decode loads, the row's thumbnail is shown scaled to the screen, then replaced in place")
    func thumbnailFirst() throws {
        // Half blocks: the thumbnail's art fills the screen and the status says it is loading.
        let h = Harness(count: 5)
        h.finishLoads()
        h.app.handle(.enter)
        h.frame()
        let view = h.app.top as! ImageView
        #expect(view.preview != nil)
        let coloured = h.canvas.cells.prefix(23).joined().filter { $0.background != .terminalDefault }.count
        #expect(coloured > 50 * 20)
        #expect(h.status.contains("loading") && !h.canvas.text.contains("loading…"))
        h.app.apply(view.ticket!, .success(Self.photo))
        h.frame()
        #expect(view.preview == nil && !h.status.contains("loading") && h.status.contains("fit "))

        // Kitty: the thumbnail (640x480 source) goes up fitted to the area's pixels; the decode
        // replaces it in the same cells: no blanking before the refresh, the old image deleted
        // in the same write as the new one, after it (never a blank frame between them).
        let k = harness(.kitty)
        k.finishLoads()
        k.app.handle(.enter)
        let kview = k.app.top as! ImageView
        let first = turn(k)
        #expect(first.after.contains("a=T,f=24,s=613,v=460,i=1000"))
        k.app.apply(kview.ticket!, .success(Self.photo))
        let replaced = turn(k)
        #expect(replaced.before.isEmpty)
        let sent = try #require(replaced.after.range(of: "a=T,f=24,s=613,v=460,i=1001"))
        let deleted = try #require(replaced.after.range(of: "\u{1B}_Ga=d,d=I,i=1000,q=2\u{1B}\\"))
        #expect(sent.upperBound < deleted.lowerBound)
        // Spinner ticks while loading are full frames but send nothing again.
        k.app.tick()
        #expect(turn(k) == ("", ""))
    }

    @Test("half blocks: nothing is written outside the canvas; the picture is drawn in cells")
    func halfBlocks() {
        let h = harness(.halfblock)
        let view = openAndLoad(h)
        let first = turn(h)
        #expect(first == ("", ""))
        #expect(view.pixelProtocol == .halfblock)
        // Top and bottom pixels agree in the test picture: cells of background colour.
        let coloured = h.canvas.cells.prefix(23).joined().filter { $0.background != .terminalDefault }.count
        #expect(coloured > 40 * 20)
        // The half-block decode box: twice the grid.
        #expect(h.loader.requested.last!.width == 160 && h.loader.requested.last!.height == 92)
    }
}

extension FullViewPixelsTests {
    /// The file in the iTerm2 sequence in `text` (base64 decoded), nil when there is none.
    func itermFile(in text: String) -> [UInt8]? {
        guard let start = text.range(of: "\u{1B}]1337;File="), let colon = text[start.upperBound...].firstIndex(of: ":"),
            let bell = text[colon...].firstIndex(of: "\u{07}")
        else { return nil }
        return Data(base64Encoded: String(text[text.index(after: colon)..<bell])).map { [UInt8]($0) }
    }

    @Test("iTerm2: zoom and pan steps go as JPEG; 250 ms after the last (injected clock) the same cells get the lossless PNG, drawn over, once")
    func itermSettles() throws {
        let h = harness(.iterm)
        let view = openAndLoad(h)
        let start = ContinuousClock.now
        var now = start
        view.clock = { now }
        // The fit, at rest: a PNG, and no wake-up asked.
        let fit = try #require(itermFile(in: turn(h).after))
        #expect(fit.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(h.app.frameDue == nil)
        // 1:1 and a pan step 100 ms later: JPEGs; the settle moves with each step.
        h.app.handle(.character("="))
        #expect(try #require(itermFile(in: turn(h).after)).starts(with: [0xFF, 0xD8]))
        #expect(h.app.frameDue == start + ImageView.settleDelay)
        now = start + .milliseconds(100)
        h.app.handle(.character("l"))
        let step = turn(h)
        let jpeg = try #require(itermFile(in: step.after))
        #expect(jpeg.starts(with: [0xFF, 0xD8]))
        let due = try #require(h.app.frameDue)
        #expect(due == now + ImageView.settleDelay)
        // Before it is due nothing changes.
        h.app.advanceFrames(now: due - .milliseconds(1))
        #expect(turn(h) == ("", ""))
        // Due: the same picture as a PNG, over the JPEG (no blank first), the same pixels within JPEG's loss.
        h.app.advanceFrames(now: due)
        let settled = turn(h)
        #expect(settled.before.isEmpty)
        #expect(!settled.after.contains("X\u{1B}"))
        let png = try #require(itermFile(in: settled.after))
        let lossless = try #require(PNG.decode(png))
        let lossy = try #require(JPEG.decode(jpeg))
        #expect(lossless.width == 800 && lossless.height == 460)
        // PSNR over the RGB channels (TestSupport's is not linked into this target).
        var sum = 0.0
        for i in 0..<(800 * 460) {
            for c in 0..<3 {
                let d = Double(lossless.pixels[4 * i + c]) - Double(lossy.pixels[4 * i + c])
                sum += d * d
            }
        }
        let score = 10 * log10(255 * 255 / max(1e-9, sum / Double(800 * 460 * 3)))
        #expect(score > 40, "PSNR \(score) dB")
        // (This flat gradient's PNG is smaller than its JPEG: rows repeat, Up filters them to
        // zeros. A photo's JPEG is the smaller: ITermJPEGTests.)
        #expect(h.app.frameDue == nil)
        // Once: nothing more is sent, not even after another due time.
        h.app.advanceFrames(now: due + .seconds(1))
        #expect(turn(h) == ("", ""))
        // A step then the next item: the settle is dropped with the old picture.
        h.app.handle(.character("h"))
        _ = turn(h)
        #expect(h.app.frameDue != nil)
        h.app.handle(.character("n"))
        #expect(h.app.frameDue == nil)
    }

    @Test("kitty pan steps ask for no settle wake-up (sixel's: FullViewSixelRegionTests.settles)")
    func noSettleElsewhere() {
        for p in [PixelProtocol.kitty] {
            let h = harness(p)
            _ = openAndLoad(h)
            _ = turn(h)
            h.app.handle(.character("="))
            _ = turn(h)
            h.app.handle(.character("l"))
            _ = turn(h)
            #expect(h.app.frameDue == nil, "\(p)")
        }
    }
}
