import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI
import Testing

@testable import Browse

#if canImport(Glibc)
import Glibc
#endif

/// A terminal for the view's `TerminalWriter`: everything written in order; the non-blocking
/// descriptor takes `room` bytes, then fails with EAGAIN.
@MainActor
final class SlowTerminal {
    var stream: [UInt8] = []
    var room = 0
    private(set) var writer: TerminalWriter!

    init() {
        writer = TerminalWriter(fd: 100, nonBlockingFD: 101, write: { [unowned self] fd, pointer, count in
            self.take(fd, pointer, count)
        })
    }

    private func take(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        var n = count
        if fd == 101 {
            if room == 0 {
                errno = EAGAIN
                return -1
            }
            n = min(count, room)
            room -= n
        }
        stream += Array(UnsafeRawBufferPointer(start: pointer, count: n))
        return n
    }

    var text: String { String(decoding: stream, as: UTF8.self) }
}

/// kitty's pan region written in slices between turns (a `TerminalWriter` and a worker): the
/// old region stays and takes the steps while the next one goes out, the next one is asked
/// before the view reaches the edge (prefetch), and leaving the view mid-way ends the
/// transmission after its command in flight and deletes the image.
@Suite("Full view: kitty pan regions in slices")
@MainActor
struct KittyTransmissionTests {
    /// One turn as the main loop runs it: bytes before the refresh, the frame, bytes after,
    /// all written through the writer (as the wiring does).
    func turn(_ h: Harness, _ terminal: SlowTerminal) -> String {
        h.app.updateInterest()
        let before = h.app.pixelOutputBeforeRefresh()
        terminal.writer.write(before)
        h.app.draw(on: h.canvas)
        let after = h.app.pixelOutputAfterRefresh()
        terminal.writer.write(after)
        return String(decoding: before + after, as: UTF8.self)
    }

    /// Runs the worker's next answer on the main thread, as the loop's inbox would.
    func run(_ posts: Posts) throws {
        let work = try #require(posts.next())
        work()
    }

    func key(_ h: Harness, _ terminal: SlowTerminal, _ c: Character) -> String {
        h.app.handle(.character(c))
        return turn(h, terminal)
    }

    /// The full view in kitty on 40x10 cells of 10x20 pixels above the status line (400x200
    /// pixels) with a worker and a terminal that takes `room` bytes a pump: Enter, `image`'s
    /// decode applied and its worker's answer run (the fit picture, drawn by the next turn).
    func openWithWorker(
        _ image: DecodedImage = FullViewPixelsTests.photo, medium: KittyMedium = .direct
    ) throws -> (h: Harness, terminal: SlowTerminal, posts: Posts, view: ImageView) {
        let posts = Posts()
        let terminal = SlowTerminal()
        let h = Harness(count: 3, lines: 11, columns: 40)
        var context = PictureWorkerTests.context
        context.kittyMedium = medium
        h.app.pixels = (.kitty, context)
        h.app.pictureWorker = PictureWorker(post: posts.post)
        h.app.transmitter = terminal.writer
        h.app.handle(.enter)
        let view = h.app.top as! ImageView
        _ = turn(h, terminal)
        h.app.apply(view.ticket!, .success(image))
        _ = turn(h, terminal)
        try run(posts)
        return (h, terminal, posts, view)
    }

    @Test("steps go on placing the old region while the next goes out; prefetch near the edge; q ends it and deletes the image")
    func slicedRegions() throws {
        // 40x10 cells of 10x20 pixels above the status line: 400x200 pixels at 1:1.
        let (h, terminal, posts, view) = try openWithWorker()
        #expect(turn(h, terminal).contains("a=T,f=24,s=267,v=200,i=1000"))
        // 1:1: the visible region 1800,1400 400x200; the region around it 1400,1200 1200x600 is
        // made by the worker, then goes out as a=t (not placed) in slices.
        // (The fit picture is deleted before the refresh: its cells are not the 1:1 picture's.)
        #expect(key(h, terminal, "=") == "\u{1B}_Ga=d,d=I,i=1000,q=2\u{1B}\\")
        try run(posts)
        let start = terminal.stream.count
        terminal.room = 50_000
        #expect(!terminal.writer.pump())
        #expect(terminal.text.contains("\u{1B}_Ga=t,f=24,s=1200,v=600,i=1001,q=2,m=1;"))
        #expect(terminal.stream.count == start + 50_000 && terminal.writer.transmitting)
        // A step meanwhile: no region is on screen yet, nothing is asked again.
        #expect(key(h, terminal, "l").isEmpty)
        #expect(posts.count == 0 && view.panCounts.regions == 0)
        terminal.room = 1 << 30
        #expect(terminal.writer.pump())
        // Out: the next turn places it (the view at 1850,1400: x=450 in the region).
        let placed = turn(h, terminal)
        #expect(placed.contains("a=p,i=1001,p=1,x=450,y=200,w=400,h=200,C=1,q=2"))
        #expect(!placed.contains("a=d"))
        #expect(view.panCounts.regions == 1)
        // Steps inside are placements; at 2050 the right edge (2600) is 150 pixels off, under
        // half the visible width: the next region is asked (prefetch), the step still placed.
        for x in [500, 550, 600] {
            #expect(key(h, terminal, "l").contains("a=p,i=1001,p=1,x=\(x),"))
        }
        #expect(posts.count == 0 && view.regionCounts.prefetched == 0)
        #expect(key(h, terminal, "l").contains("a=p,i=1001,p=1,x=650,"))
        #expect(view.regionCounts.prefetched == 1)
        try run(posts)
        terminal.room = 10_000
        terminal.writer.pump()
        // While it goes out, steps inside the old region go on (between whole commands).
        let sentBefore = terminal.stream.count
        #expect(key(h, terminal, "l").contains("a=p,i=1001,p=1,x=700,"))
        #expect(terminal.stream.count > sentBefore && terminal.writer.transmitting)
        #expect(posts.count == 0, "the region going out holds the view: nothing more is asked")
        terminal.room = 1 << 30
        #expect(terminal.writer.pump())
        #expect(terminal.text.contains("a=t,f=24,s=1200,v=600,i=1002"))
        // The next step (2150,1400) places the new region (made around 2050,1400: from 1650,1200)
        // and deletes the old.
        let next = key(h, terminal, "l")
        #expect(next.contains("a=p,i=1002,p=1,x=500,y=200,w=400,h=200"))
        #expect(next.hasSuffix("\u{1B}_Ga=d,d=I,i=1001,q=2\u{1B}\\"))
        #expect(view.panCounts.regions == 2)
        // Zoom in (150%): the view 2217,1434 266x133 shown at once from the region on screen,
        // its part scaled by the terminal to the view's 40x10 cells (400x200 screen pixels are
        // 267x133 pixels of the 1:1 region, from 567,234), while the region at 150% is made.
        let zoomed = key(h, terminal, "+")
        #expect(h.status.contains("150% · 2217,1434 266x133"))
        #expect(zoomed.contains("\u{1B}_Ga=p,i=1002,p=1,x=567,y=234,w=267,h=133,c=40,r=10,C=1,q=2\u{1B}\\"))
        #expect(!zoomed.contains("a=T") && !zoomed.contains("a=d"))
        #expect(view.panCounts.scaled == 1 && view.panCounts.regions == 2)
        // A full repaint puts the scaled part back.
        #expect(String(decoding: view.terminalOutput(fullRepaint: true), as: UTF8.self).contains("w=267,h=133,c=40,r=10"))
        // The region at 150% goes out; once it is, the next turn places it (the key is the
        // same: no step came) and deletes the 1:1 region.
        try run(posts)
        terminal.room = 1 << 30
        #expect(terminal.writer.pump())
        let exact = turn(h, terminal)
        #expect(exact.contains("a=p,i=1003,p=1,") && !exact.contains("c=40"))
        #expect(exact.hasSuffix("\u{1B}_Ga=d,d=I,i=1002,q=2\u{1B}\\"))
        #expect(view.panCounts.regions == 3 && view.panCounts.scaled == 1)
        #expect(turn(h, terminal).isEmpty)
        // Zoom in again (200%): drafted from the 150% region, then that region (i=1004) is cut
        // short by q (back to the gallery): the command in flight ends, an empty last chunk
        // ends kitty's load, the image is deleted, nothing more is sent.
        #expect(key(h, terminal, "+").contains("a=p,i=1003,p=1,"))
        #expect(view.panCounts.scaled == 2)
        try run(posts)
        terminal.room = 6000
        terminal.writer.pump()
        #expect(terminal.writer.transmitting)
        _ = key(h, terminal, "q")
        #expect(h.app.top === h.gallery)
        #expect(!terminal.writer.transmitting && terminal.writer.counts.aborted == 1)
        #expect(terminal.text.contains("\u{1B}\\\u{1B}_Gq=2,m=0\u{1B}\\\u{1B}_Ga=d,d=I,i=1004,q=2\u{1B}\\"))
        #expect(view.regionCounts.abandoned == 1)
        let after = terminal.stream.count
        terminal.room = 1 << 30
        #expect(!terminal.writer.pump() && terminal.stream.count == after)
        #expect(!terminal.text.contains("i=1004,p=1"), "never placed")
    }

    @Test("a zoom step into other cells (the image shorter than the area at 1:1) is drafted from the region on screen, not taken off first")
    func zoomDraftIntoOtherCells() throws {
        // 40x10 cells of 10x20 pixels above the status line (400x200 pixels); a 600x150 image:
        // at 1:1 it takes 40x8 cells from row 1, at 150% all 40x10 from row 0.
        var pixels = [UInt8](repeating: 255, count: 600 * 150 * 4)
        for i in stride(from: 0, to: pixels.count, by: 4) { pixels[i] = UInt8(i / 4 % 600 * 255 / 599) }
        let wide = DecodedImage(bitmap: RGBAImage(width: 600, height: 150, pixels: pixels), sourceWidth: 600, sourceHeight: 150)
        let (h, terminal, posts, view) = try openWithWorker(wide)
        #expect(turn(h, terminal).contains("a=T,"))
        // 1:1: the region (the whole image) goes out and is placed at row 1 (CUP 2;1).
        _ = key(h, terminal, "=")
        try run(posts)
        terminal.room = 1 << 30
        #expect(terminal.writer.pump())
        let placed = turn(h, terminal)
        #expect(placed.contains("\u{1B}[2;1H\u{1B}_Ga=p,i=1001,p=1,x=100,y=0,w=400,h=150,C=1,q=2"))
        // When + zooms to 150% (the view 167,9 266x133)
        let zoomed = key(h, terminal, "+")
        #expect(h.status.contains("150% · 167,9 266x133"))
        // Then the region on screen is placed again at row 0, its part scaled to the 40x10
        // cells, and nothing is deleted (without the draft the image came off before the
        // refresh and the cells stayed blank until the region at 150% was out)
        #expect(zoomed.contains("\u{1B}[1;1H\u{1B}_Ga=p,i=1001,p=1,x=167,y=9,w=267,h=133,c=40,r=10,C=1,q=2"))
        #expect(!zoomed.contains("a=d"))
        #expect(view.panCounts.scaled == 1)
        // And the region at 150%, once out, replaces it (the 1:1 region deleted after).
        try run(posts)
        #expect(terminal.writer.pump())
        let exact = turn(h, terminal)
        #expect(exact.contains("a=p,i=1002,p=1,") && !exact.contains("c=40"))
        #expect(exact.hasSuffix("\u{1B}_Ga=d,d=I,i=1001,q=2\u{1B}\\"))
        // ^L: its clear deletes kitty's images, so the region is made and sent again (not
        // placed again by id: kitty 0.26 showed nothing), then placed.
        h.app.handle(.control("L"))
        let repaint = turn(h, terminal)
        #expect(repaint.contains("\u{1B}_Ga=d,d=I,i=1002,q=2\u{1B}\\") && !repaint.contains("a=p"))
        try run(posts)
        #expect(terminal.writer.pump())
        #expect(turn(h, terminal).contains("a=p,i=1003,p=1,"))
    }

    /// The object names (`t=s` payloads, base64) in `text`.
    func sharedNames(_ text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "t=s,S=[0-9]+,q=2;([A-Za-z0-9+/=]+)\u{1B}")
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { m in
            let b64 = String(text[Range(m.range(at: 1), in: text)!])
            return String(decoding: Data(base64Encoded: b64) ?? Data(), as: UTF8.self)
        }
    }

    @Test("through shared memory a region is one short a=t,t=s command, placed the next turn without slices; q unlinks what the terminal did not take")
    func sharedMemoryRegions() throws {
        KittySharedObject.unlinkOutstanding()
        let (h, terminal, posts, view) = try openWithWorker(medium: .sharedMemory)
        // The fit picture goes direct (base64), as before.
        #expect(turn(h, terminal).contains("a=T,f=24,s=267,v=200,i=1000"))
        let mark = terminal.stream.count
        _ = key(h, terminal, "=")
        try run(posts)
        // The region: one command naming a 1200x600 RGBA object, written at once (no slices).
        #expect(!terminal.writer.transmitting)
        #expect(terminal.text.contains("\u{1B}_Ga=t,f=32,s=1200,v=600,i=1001,t=s,S=\(1200 * 600 * 4),q=2;"))
        let first = try #require(sharedNames(terminal.text).first)
        #expect(KittySharedObject.exists(.sharedMemory, first))
        #expect(first.hasPrefix("/tty-graphics-protocol-"))
        // The terminal reads it (here: the test, as kitty would) and unlinks it.
        let fd = shm_open(first, O_RDONLY, 0)
        #expect(fd >= 0)
        var st = stat()
        #expect(fstat(fd, &st) == 0 && st.st_size == 1200 * 600 * 4 && st.st_mode & 0o777 == 0o600)
        close(fd)
        shm_unlink(first)
        // The next turn places it.
        #expect(turn(h, terminal).contains("a=p,i=1001,p=1,x=400,y=200,w=400,h=200,C=1,q=2"))
        #expect(view.panCounts.regions == 1)
        // Steps to the edge: prefetch, the next region in shared memory, placed by the step after.
        for _ in 0..<5 { _ = key(h, terminal, "l") }
        #expect(view.regionCounts.prefetched == 1)
        try run(posts)
        let names = sharedNames(terminal.text)
        #expect(names.count == 2)
        let next = key(h, terminal, "l")
        #expect(next.contains("a=p,i=1002,p=1,"))
        #expect(next.hasSuffix("\u{1B}_Ga=d,d=I,i=1001,q=2\u{1B}\\"))
        // The second was never read (no terminal here): leaving the view unlinks it.
        #expect(KittySharedObject.exists(.sharedMemory, names[1]))
        _ = key(h, terminal, "q")
        #expect(h.app.top === h.gallery)
        #expect(!KittySharedObject.exists(.sharedMemory, names[1]))
        #expect(KittySharedObject.outstanding.isEmpty)
        #expect(!String(decoding: terminal.stream[mark...], as: UTF8.self).contains("m=1;"), "no region in base64 chunks")
    }
}
