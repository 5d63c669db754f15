import Foundation
import HalfBlock
import Testing
import TestSupport

@testable import TerminalGraphics
@testable import TerminalUI

/// Test pictures and the escape-sequence readers the presenter tests share.
enum Pictures {
    /// A smooth photo-like picture: two gradients and a soft disc, opaque.
    static func smooth(width: Int = 120, height: Int = 80) -> RGBAImage {
        var p = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                let dx = Double(x - width / 2), dy = Double(y - height / 2)
                let disc = max(0, 1 - (dx * dx + dy * dy) / Double(width * height / 6))
                p[i] = UInt8(min(255, Double(x * 255 / max(1, width - 1)) * (1 - disc) + 250 * disc))
                p[i + 1] = UInt8(y * 255 / max(1, height - 1))
                p[i + 2] = UInt8(min(255, 60 + 140 * disc))
            }
        }
        return RGBAImage(width: width, height: height, pixels: p)
    }

    /// `image` with alpha falling from 255 on the left to 0 on the right.
    static func fading(_ image: RGBAImage) -> RGBAImage {
        var out = image
        for y in 0..<image.height {
            for x in 0..<image.width {
                out.pixels[4 * (y * image.width + x) + 3] = UInt8(255 - x * 255 / max(1, image.width - 1))
            }
        }
        return out
    }
}

/// Splits `bytes` into the kitty graphics commands (APC G … ST) it holds: (keys, payload).
func kittyCommands(_ bytes: [UInt8]) -> [(keys: [String: String], payload: [UInt8])] {
    var out: [(keys: [String: String], payload: [UInt8])] = []
    var i = 0
    while i + 2 < bytes.count {
        guard bytes[i] == 0x1B, bytes[i + 1] == UInt8(ascii: "_"), bytes[i + 2] == UInt8(ascii: "G") else {
            i += 1
            continue
        }
        var j = i + 3
        while j + 1 < bytes.count && !(bytes[j] == 0x1B && bytes[j + 1] == UInt8(ascii: "\\")) { j += 1 }
        let body = Array(bytes[(i + 3)..<j])
        let parts = body.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false)
        var keys: [String: String] = [:]
        for pair in String(decoding: parts[0], as: UTF8.self).split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            keys[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        out.append((keys, parts.count > 1 ? Array(parts[1]) : []))
        i = j + 2
    }
    return out
}

/// Undoes tmux passthrough wrapping (`ESC P tmux; … ESC \`, ESC doubled) wherever it occurs.
func unwrapTmux(_ bytes: [UInt8]) -> [UInt8] {
    let prefix = Array("\u{1B}Ptmux;".utf8)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        if bytes[i...].starts(with: prefix) {
            var j = i + prefix.count
            while j < bytes.count {
                if bytes[j] == 0x1B && j + 1 < bytes.count && bytes[j + 1] == 0x1B {
                    out.append(0x1B)
                    j += 2
                } else if bytes[j] == 0x1B && j + 1 < bytes.count && bytes[j + 1] == UInt8(ascii: "\\") {
                    j += 2
                    break
                } else {
                    out.append(bytes[j])
                    j += 1
                }
            }
            i = j
        } else {
            out.append(bytes[i])
            i += 1
        }
    }
    return out
}

@Suite("KittyPresenter")
struct KittyPresenterTests {
    let context = PresenterContext(cellWidth: 9, cellHeight: 20)

    @Test("an opaque image goes as f=24 RGB in chunks of at most 4096 base64 bytes that decode to its pixels")
    func transmitsChunks() throws {
        // Given a 120x80 opaque picture (28,800 bytes of RGB, 38,400 of base64)
        let image = Pictures.smooth()
        var presenter = KittyPresenter(context: context, firstID: 7)
        // When it is shown at an absolute origin
        let bytes = presenter.show(image, in: CellArea(origin: (2, 3), columns: 20, rows: 5))
        // Then the cursor is saved, moved to row 4, column 3, and restored at the end
        #expect(bytes.starts(with: Array("\u{1B}7\u{1B}[4;3H".utf8)))
        #expect(bytes.suffix(2) == Array("\u{1B}8".utf8))
        let commands = kittyCommands(bytes)
        #expect(commands.count == 10)
        let first = commands[0].keys
        #expect(first["a"] == "T" && first["f"] == "24" && first["s"] == "120" && first["v"] == "80")
        #expect(first["i"] == "7" && first["p"] == "1" && first["C"] == "1" && first["q"] == "2" && first["m"] == "1")
        for (n, command) in commands.enumerated() {
            #expect(command.payload.count <= 4096)
            #expect(command.keys["q"] == "2")
            #expect(command.keys["m"] == (n == commands.count - 1 ? "0" : "1"))
            if n > 0 { #expect(Set(command.keys.keys) == ["m", "q"]) }
        }
        let payload = commands.flatMap(\.payload)
        let raw = try #require(Data(base64Encoded: Data(payload)))
        #expect(raw.count == 120 * 80 * 3)
        for i in stride(from: 0, to: 120 * 80, by: 97) {
            #expect(raw[3 * i] == image.pixels[4 * i] && raw[3 * i + 2] == image.pixels[4 * i + 2])
        }
    }

    @Test("transparency goes as f=32 RGBA; a small image fits one command with m omitted")
    func alpha() throws {
        var presenter = KittyPresenter(context: context)
        let image = Pictures.fading(Pictures.smooth(width: 8, height: 6))
        let commands = kittyCommands(presenter.show(image, in: CellArea(columns: 4, rows: 2)))
        #expect(commands.count == 1)
        #expect(commands[0].keys["f"] == "32" && commands[0].keys["m"] == nil)
        let raw = try #require(Data(base64Encoded: Data(commands[0].payload)))
        #expect([UInt8](raw) == image.pixels)
    }

    @Test("a new image deletes the last with its data; remove deletes it once; replace re-places without pixels")
    func lifecycle() {
        var presenter = KittyPresenter(context: context, firstID: 40)
        let area = CellArea(origin: (0, 0), columns: 10, rows: 4)
        _ = presenter.show(Pictures.smooth(width: 10, height: 10), in: area)
        let again = kittyCommands(presenter.replace(in: area))
        #expect(again.count == 1 && again[0].keys["a"] == "p" && again[0].keys["i"] == "40" && again[0].payload.isEmpty)
        let second = kittyCommands(presenter.show(Pictures.smooth(width: 10, height: 10), in: area))
        #expect(second[0].keys["a"] == "d" && second[0].keys["d"] == "I" && second[0].keys["i"] == "40")
        #expect(second[1].keys["i"] == "41")
        let removed = kittyCommands(presenter.remove(from: area))
        #expect(removed.count == 1 && removed[0].keys["d"] == "I" && removed[0].keys["i"] == "41")
        #expect(presenter.remove(from: area).isEmpty)
        #expect(presenter.replace(in: area).isEmpty)
    }

    @Test("inside tmux every command is wrapped in passthrough and unwraps to the plain output")
    func tmux() {
        var plain = KittyPresenter(context: context, firstID: 5)
        var wrapped = KittyPresenter(
            context: PresenterContext(cellWidth: 9, cellHeight: 20, tmuxPassthrough: true), firstID: 5)
        let image = Pictures.smooth(width: 60, height: 40)
        let area = CellArea(origin: (1, 1), columns: 10, rows: 4)
        let a = plain.show(image, in: area)
        let b = wrapped.show(image, in: area)
        #expect(b.count > a.count)
        // No bare APC reaches tmux: every ESC inside the wrapper is doubled
        let apc = Array("\u{1B}_G".utf8)
        let bare = (1..<(b.count - 2)).filter { b[$0...].starts(with: apc) && b[$0 - 1] != 0x1B }
        #expect(bare.isEmpty)
        #expect(unwrapTmux(b) == a)
    }

    @Test("the one-pass base64 transmission equals Foundation's base64 chunked by KittyGraphics.chunked")
    func oneTransmission() {
        for (w, h) in [(1, 1), (5, 1), (7, 3), (1024, 1), (1025, 2), (120, 80)] {
            for alpha in [false, true] {
                let image = alpha ? Pictures.fading(Pictures.smooth(width: w, height: h)) : Pictures.smooth(width: w, height: h)
                let opaque = KittyPresenter.isOpaque(image)
                var raw: [UInt8] = []
                for i in 0..<(w * h) { raw += image.pixels[(4 * i)..<(4 * i + (opaque ? 3 : 4))] }
                let reference = KittyGraphics.chunked("a=T", base64: [UInt8](Data(raw).base64EncodedData()))
                #expect(KittyPresenter.transmission(image, opaque: opaque, keys: "a=T") == reference, "\(w)x\(h) alpha \(alpha)")
            }
        }
    }

    @Test("the delete-all constant for the fatal-signal path")
    func deleteAll() {
        let c = kittyCommands(KittyGraphics.deleteAll)
        #expect(c.count == 1 && c[0].keys["a"] == "d" && c[0].keys["d"] == "A" && c[0].keys["q"] == "2")
        let wrapped = KittyGraphics.deleteAllThroughTmuxSequence.withUTF8Buffer { Array($0) }
        #expect(wrapped == Passthrough.tmux(KittyGraphics.deleteAll))
        // The signal-path writer puts exactly those bytes on the fd
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        KittyGraphics.writeDeleteAll(to: fds[1], throughTmux: true)
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(fds[0], &buffer, buffer.count)
        close(fds[0])
        #expect(Array(buffer[0..<max(0, n)]) == wrapped)
    }
}

@Suite("SixelPresenter")
struct SixelPresenterTests {
    /// Decodes sixel bytes with ImageMagick (`convert SIXEL PNG`), an independent decoder.
    func decodeWithImageMagick(_ sixel: [UInt8]) throws -> RGBAImage {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-sixel-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let six = dir.appendingPathComponent("x.six"), png = dir.appendingPathComponent("x.png")
        try Data(sixel).write(to: six)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Plain `png:` output: ImageMagick 6.9.11 writes a sixel as all-black `png32:`.
        process.arguments = ["convert", "sixel:" + six.path, "png:" + png.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try #require(PNG.decode([UInt8](try Data(contentsOf: png))))
    }

    @Test("libsixel is opened with dlopen at first use and reports itself available (libsixel-dev installed)")
    func libraryOpens() {
        // libsixel.so.1 is installed with libsixel-dev (BUILD_PACKAGES): the lookup must succeed,
        // and an encode of one pixel must give a sequence that starts with DCS and ends with ST.
        #expect(SixelPresenter.libraryUnavailableReason == nil)
        let bytes = SixelPresenter.encode(RGBAImage(width: 1, height: 1, pixels: [255, 0, 0, 255]), background: RGB(0, 0, 0))
        #expect(bytes.starts(with: [0x1B, 0x50]))
        #expect(bytes.suffix(2).elementsEqual([0x1B, 0x5C]))
    }

    @Test("libsixel's output decodes (ImageMagick) to the picture at its size, PSNR over 30 dB")
    func roundTrip() throws {
        // Given a smooth 120x80 picture
        let image = Pictures.smooth()
        // When it is encoded
        let sixel = SixelPresenter.encode(image, background: RGB(0, 0, 0))
        // Then it is one DCS … q … ST sequence
        #expect(sixel.starts(with: [0x1B, UInt8(ascii: "P")]))
        #expect(sixel.suffix(2) == [0x1B, UInt8(ascii: "\\")])
        #expect(sixel.contains(UInt8(ascii: "q")))
        // And ImageMagick reads it back as the same picture
        let decoded = try decodeWithImageMagick(sixel)
        #expect(decoded.width == 120 && decoded.height == 80)
        let score = psnr(image, decoded)
        #expect(score > 30, "PSNR \(score) dB")
    }

    @Test("transparency is composited over the terminal's background")
    func background() throws {
        var image = Pictures.smooth(width: 12, height: 12)
        for i in 0..<(12 * 12) { image.pixels[4 * i + 3] = 0 }
        let decoded = try decodeWithImageMagick(SixelPresenter.encode(image, background: RGB(200, 30, 90)))
        let mid = 4 * (6 * 12 + 6)
        let rgb = Array(decoded.pixels[mid..<(mid + 3)])
        // Sixel colours are percentages and libsixel quantizes its histogram: within 10 levels
        // (seen: 199, 23, 89).
        #expect(zip(rgb, [200, 30, 90] as [UInt8]).allSatisfy { abs(Int($0) - Int($1)) <= 10 }, "\(rgb)")
    }

    @Test("remove blanks the cells the picture covered (ECH per row); tmux wraps the DCS")
    func removeAndTmux() {
        var presenter = SixelPresenter(context: PresenterContext(cellWidth: 10, cellHeight: 20, tmuxPassthrough: true))
        let area = CellArea(origin: (4, 2), columns: 6, rows: 2)
        let shown = presenter.show(Pictures.smooth(width: 60, height: 40), in: area)
        #expect(shown.starts(with: Array("\u{1B}7\u{1B}[3;5H\u{1B}Ptmux;\u{1B}\u{1B}P".utf8)))
        let removed = String(decoding: presenter.remove(from: area), as: UTF8.self)
        #expect(removed == "\u{1B}7\u{1B}[3;5H\u{1B}[6X\u{1B}[4;5H\u{1B}[6X\u{1B}8")
        #expect(presenter.remove(from: area).isEmpty)
    }
}

@Suite("ITermPresenter")
struct ITermPresenterTests {
    @Test("OSC 1337 File= carries a PNG of the exact pixels, its size in bytes and pixels")
    func payload() throws {
        var presenter = ITermPresenter(context: PresenterContext(cellWidth: 10, cellHeight: 20))
        let image = Pictures.fading(Pictures.smooth(width: 50, height: 30))
        let bytes = presenter.show(image, in: CellArea(columns: 10, rows: 3))
        let text = String(decoding: bytes, as: UTF8.self)
        let start = try #require(text.range(of: "\u{1B}]1337;File="))
        let colon = try #require(text[start.upperBound...].firstIndex(of: ":"))
        let bell = try #require(text[colon...].firstIndex(of: "\u{07}"))
        var args: [String: String] = [:]
        for pair in text[start.upperBound..<colon].split(separator: ";") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            args[String(kv[0])] = String(kv[1])
        }
        #expect(args["inline"] == "1" && args["width"] == "50px" && args["height"] == "30px")
        let png = try #require(Data(base64Encoded: String(text[text.index(after: colon)..<bell])))
        #expect(args["size"] == "\(png.count)")
        let decoded = try #require(PNG.decode([UInt8](png)))
        #expect(decoded == image)
        // At the cursor: 2 rows reserved (30 px in 20-px cells), cursor left below the picture
        #expect(text.hasPrefix("\n\n\r\u{1B}[2A\u{1B}7"))
        #expect(text.hasSuffix("\u{1B}8\u{1B}[2B\r"))
    }
}

extension ITermPresenterTests {
    @Test("an opaque picture goes as an RGB PNG (colour type 2), one with transparency as RGBA (6); both decode to the exact pixels")
    func rgbWhenOpaque() throws {
        for image in [Pictures.smooth(width: 300, height: 200), Pictures.fading(Pictures.smooth(width: 300, height: 200))] {
            let sequence = try #require(ITermPresenter.sequence(image))
            let text = String(decoding: sequence, as: UTF8.self)
            let colon = try #require(text.firstIndex(of: ":"))
            let png = [UInt8](try #require(Data(base64Encoded: String(text[text.index(after: colon)...].dropLast()))))
            // IHDR: the colour type is byte 25 of the file (8 signature, 8 chunk head, 9 fields in).
            let opaque = image.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 }
            #expect(png[25] == (opaque ? 2 : 6))
            #expect(PNG.decode(png) == image)
            // Smaller than the simplified API's fast PNG of the same pixels (RGBA, no filter).
            #expect(png.count < (PNG.encode(image)?.count ?? 0))
        }
    }
}

@Suite("HalfBlockPresenter")
struct HalfBlockPresenterTests {
    @Test("at the cursor its bytes are exactly the half-block render; at an origin each row is positioned")
    func output() {
        let context = PresenterContext(cellWidth: 10, cellHeight: 20, colorMode: .truecolor)
        var presenter = HalfBlockPresenter(context: context)
        let image = Pictures.smooth(width: 40, height: 20)
        let inline = presenter.show(image, in: CellArea(columns: 20, rows: 10))
        let grid = HalfBlockRenderer.render(
            image, columns: 20, rows: 5, options: RenderOptions(colorMode: .truecolor, cellAspect: 2))
        #expect(inline == ANSIWriter.bytes(for: grid, colorMode: .truecolor))
        let placed = String(decoding: presenter.show(image, in: CellArea(origin: (3, 1), columns: 20, rows: 10)), as: UTF8.self)
        #expect(placed.hasPrefix("\u{1B}7\u{1B}[2;4H"))
        #expect(placed.contains("\u{1B}[6;4H") && !placed.contains("\u{1B}[7;4H"))
        #expect(!placed.contains("\n"))
    }
}

@Suite("Pixel boxes")
struct PixelBoxTests {
    @Test("a 4000x3000 photo in 80x24 cells of 10x20 pixels decodes at 640x480, never at full size")
    func fitsArea() {
        let context = PresenterContext(cellWidth: 10, cellHeight: 20)
        for p in [PixelProtocol.kitty, .sixel, .iterm] {
            let presenter = Presenters.make(p, context: context)
            #expect(
                presenter.pixelBox(for: CellArea(columns: 80, rows: 24), imageSize: PixelSize(width: 4000, height: 3000))
                    == PixelSize(width: 640, height: 480))
            // Never enlarged: a 16x11 flag stays 16x11
            #expect(
                presenter.pixelBox(for: CellArea(columns: 80, rows: 24), imageSize: PixelSize(width: 16, height: 11))
                    == PixelSize(width: 16, height: 11))
        }
        let half = Presenters.make(.halfblock, context: context)
        #expect(half.pixelBox(for: CellArea(columns: 80, rows: 24), imageSize: PixelSize(width: 4000, height: 3000)).width == 320)
    }

    @Test("the context from capabilities: measured cell, OSC 11 background, tmux passthrough")
    func contextFromCapabilities() {
        let facts = TerminalCapabilities.Facts(
            environment: ["TMUX": "x"], isTerminal: true,
            answers: TerminalAnswers.parse(Array("\u{1B}]11;rgb:1010/2020/3030\u{1B}\\\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[6;18;8t\u{1B}[?62;c".utf8)),
            answersComplete: true, tmux: .init(passthrough: true))
        let context = PresenterContext(TerminalCapabilities.detect(facts))
        #expect(context.cellWidth == 8 && context.cellHeight == 18)
        #expect(context.background == RGB(16, 32, 48))
        #expect(context.tmuxPassthrough)
    }
}
