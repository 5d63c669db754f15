import Foundation
import HalfBlock
import Testing

@testable import TerminalGraphics
@testable import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// kitty pan regions through shared memory or a temporary file (`t=s`, `t=t`): the encode puts
/// the RGBA rows in the object, the presenter sends one short command naming it.
@Suite("KittyPresenter shared transfer", .serialized)
struct KittySharedTransferTests {
    let context = PresenterContext(cellWidth: 9, cellHeight: 20)

    func decodedName(_ payload: [UInt8]) -> String {
        String(decoding: Data(base64Encoded: Data(payload)) ?? Data(), as: UTF8.self)
    }

    @Test("a region in shared memory is one a=t command, f=32 with S= its bytes, naming an object that holds the exact RGBA")
    func sharedRegion() throws {
        for medium in [KittyMedium.sharedMemory, .tempFile] {
            KittySharedObject.unlinkOutstanding()
            let image = Pictures.smooth(width: 30, height: 7)
            var encoder = PictureEncoder(.kitty, context: context)
            encoder.sharedMedium = medium
            var presenter = KittyPresenter(context: context, firstID: 70)
            var name = ""
            do {
                let encoded = encoder.encode(image)
                #expect(encoded.kittyMedium == medium)
                #expect(encoded.byteCount < 100)
                let (id, bytes) = presenter.transmitOnly(encoded)
                #expect(id == 70)
                let commands = kittyCommands(bytes)
                #expect(commands.count == 1)
                let keys = try #require(commands.first).keys
                #expect(keys["a"] == "t" && keys["f"] == "32" && keys["s"] == "30" && keys["v"] == "7" && keys["i"] == "70")
                #expect(keys["t"] == medium.key && keys["S"] == "\(30 * 7 * 4)" && keys["q"] == "2" && keys["m"] == nil)
                #expect(bytes.count < 200)
                name = decodedName(commands[0].payload)
                let path = medium == .sharedMemory ? "/dev/shm" + name : name
                #expect((path as NSString).lastPathComponent.hasPrefix("tty-graphics-protocol-"))
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(image.pixels))
            }
            // Sent: the terminal's to unlink (here nobody reads it), and unlinkOutstanding removes it.
            #expect(KittySharedObject.exists(medium, name))
            #expect(KittySharedObject.outstanding.contains(name))
            KittySharedObject.unlinkOutstanding()
            #expect(!KittySharedObject.exists(medium, name))
        }
    }

    @Test("a shared picture dropped unsent (a stale region) is unlinked with it")
    func droppedUnsent() throws {
        var encoder = PictureEncoder(.kitty, context: context)
        encoder.sharedMedium = .sharedMemory
        var name = ""
        do {
            let encoded = encoder.encode(Pictures.smooth(width: 8, height: 8))
            guard case .kittyShared(let object) = encoded.payload else {
                Issue.record("not shared")
                return
            }
            name = object.name
            #expect(KittySharedObject.exists(.sharedMemory, name))
        }
        #expect(!KittySharedObject.exists(.sharedMemory, name))
    }

    @Test("transmit and place (a=T) through shared memory keeps the source rectangle and placement; inside tmux it is wrapped")
    func sharedShowAndTmux() throws {
        var encoder = PictureEncoder(.kitty, context: PresenterContext(cellWidth: 9, cellHeight: 20, tmuxPassthrough: true))
        encoder.sharedMedium = .sharedMemory
        var presenter = KittyPresenter(context: PresenterContext(cellWidth: 9, cellHeight: 20, tmuxPassthrough: true), firstID: 9)
        let area = CellArea(origin: (0, 0), columns: 10, rows: 4)
        let bytes = presenter.showReplacing(
            encoded: encoder.encode(Pictures.smooth(width: 40, height: 40)), in: area,
            source: Viewport.PixelRect(x: 2, y: 3, width: 20, height: 10))
        #expect(bytes.starts(with: Array("\u{1B}7".utf8)))
        let plain = unwrapTmux(bytes)
        let keys = try #require(kittyCommands(plain).first).keys
        #expect(keys["a"] == "T" && keys["t"] == "s" && keys["x"] == "2" && keys["w"] == "20" && keys["p"] == "1")
        #expect(bytes.count > plain.count)
        KittySharedObject.unlinkOutstanding()
    }

    @Test("the direct medium (and any protocol but kitty) encodes as before")
    func direct() {
        var encoder = PictureEncoder(.kitty, context: context)
        let image = Pictures.smooth(width: 12, height: 5)
        let plain = encoder.encode(image)
        encoder.sharedMedium = .direct
        #expect(encoder.encode(image).kittyMedium == .direct)
        #expect(plain.kittyMedium == .direct)
        var sixel = PictureEncoder(.iterm, context: context)
        sixel.sharedMedium = .sharedMemory
        #expect(sixel.encode(image).kittyMedium == .direct)
    }
}
