import Foundation
import HalfBlock
import TerminalUI

/// Draws images with the kitty graphics protocol (kitty's docs, "Terminal graphics protocol").
///
/// Each ``show(_:in:)`` transmits the pixels once (`a=T`: transmit and display), raw RGB
/// (`f=24`) when the image is opaque, RGBA (`f=32`) otherwise, base64 in chunks of at most 4096
/// bytes, with its own image id and placement id 1, the cursor left where it was (`C=1`) and
/// every answer suppressed (`q=2`, so no reply reaches the key queue). The terminal keeps the
/// image: ``replace(in:)`` puts it back after a redraw without sending pixels again, and
/// ``remove(from:)`` deletes it with its data. Inside tmux every sequence is wrapped in DCS
/// passthrough.
public struct KittyPresenter: ImagePresenter {
    public let pixelProtocol = PixelProtocol.kitty
    public let context: PresenterContext
    /// The image id the next ``show(_:in:)`` uses.
    public private(set) var nextID: UInt32
    /// The id of the image on screen, nil when none.
    public private(set) var shownID: UInt32?

    public init(context: PresenterContext, firstID: UInt32 = 1000) {
        self.context = context
        self.nextID = max(1, firstID)
    }

    public func pixelBox(for area: CellArea, imageSize: PixelSize) -> PixelSize {
        context.fittedPixels(for: area, imageSize: imageSize)
    }

    public mutating func show(encoded: EncodedPicture, in area: CellArea) -> [UInt8] {
        remove(from: area) + transmit(encoded, in: area)
    }

    /// As ``show(encoded:in:)``, but the new image is placed before the old one (and any kept
    /// frames) is deleted, so the cells never show nothing between them: for a picture that
    /// replaces another in the same cells (a pan step, the decode after the thumbnail).
    /// With `source`, only that rectangle of the picture's pixels is shown (a pan region:
    /// ``showPart(_:in:)`` moves it later without sending pixels).
    public mutating func showReplacing(encoded: EncodedPicture, in area: CellArea, source: Viewport.PixelRect? = nil) -> [UInt8] {
        var old = storedFrames.values.sorted()
        if let id = shownID, !old.contains(id) { old.append(id) }
        storedFrames = [:]
        var out = transmit(encoded, in: area, source: source)
        for id in old { out += context.wrap(KittyGraphics.delete(id: id, freeData: true)) }
        return out
    }

    /// Frames of the animation on screen kept in the terminal: image id by frame number.
    public private(set) var storedFrames: [Int: UInt32] = [:]
    /// Most frames kept in the terminal for one animation (the ids of one presenter stay
    /// within the 1000 the app gives each full view); later frames are sent each time.
    public static let maxStoredFrames = 500

    /// The next frame of an animation, placed before the last one is hidden, so the area is
    /// never empty between frames. The first time a frame is shown its pixels are sent and
    /// kept by the terminal under their own id; from then on it is only placed again (`a=p`,
    /// a few dozen bytes), and the frame it replaces loses its placement but keeps its data
    /// (`d=i`). ``remove(from:)`` deletes every kept frame with its data.
    public mutating func showFrame(encoded: EncodedPicture, number: Int, in area: CellArea) -> [UInt8] {
        if let bytes = showStoredFrame(number: number, in: area) { return bytes }
        let old = shownID
        var out = transmit(encoded, in: area)
        if storedFrames.count < Self.maxStoredFrames, let id = shownID { storedFrames[number] = id }
        if let old, old != shownID {
            let kept = storedFrames.values.contains(old)
            out += context.wrap(KittyGraphics.delete(id: old, freeData: !kept))
        }
        return out
    }

    /// A kept frame placed again (`a=p`), the frame it replaces hidden but kept; nil when the
    /// terminal does not keep frame `number`.
    public mutating func showStoredFrame(number: Int, in area: CellArea) -> [UInt8]? {
        guard let id = storedFrames[number] else { return nil }
        let old = shownID
        shownID = id
        shownSource = nil
        shownCells = nil
        var out = Cursor.place(context.wrap(KittyGraphics.command("a=p,i=\(id),p=1,C=1,q=2")), in: area, rows: 1)
        if let old, old != id {
            let kept = storedFrames.values.contains(old)
            out += context.wrap(KittyGraphics.delete(id: old, freeData: !kept))
        }
        return out
    }

    /// A picture sent to the terminal without placing it (`a=t`: transmit only, raw RGB or
    /// RGBA, base64 chunks as ``show(encoded:in:)``), under a new id that the image on screen
    /// keeps its own beside: kitty's pan region written in slices while the old one stays on
    /// screen and pan steps inside it go on placing it. Place it with
    /// ``placeTransmitted(id:source:in:)`` once every byte is out; delete it unplaced with
    /// ``discard(id:)``. No cursor moves: the bytes may go out over many turns, around curses's
    /// frames.
    /// - Returns: the id and the chunked commands, each wrapped for tmux when needed.
    ///
    /// A picture in shared memory or a temporary file (``PictureEncoder/sharedMedium``) is one
    /// command of a few dozen bytes: `a=t,f=32,…,t=s` (or `t=t`) with the object's size (`S=`)
    /// and its name as the payload; the terminal reads the object and unlinks it.
    public mutating func transmitOnly(_ picture: EncodedPicture) -> (id: UInt32, bytes: [UInt8]) {
        if case .kittyShared(let object) = picture.payload {
            let id = takeID()
            let keys = "a=t,f=32,s=\(picture.width),v=\(picture.height),i=\(id)"
            return (id, sharedCommand(object, keys: keys))
        }
        guard case .kitty(let head, let rest) = picture.payload else { return (0, []) }
        let id = takeID()
        let keys = "a=t,f=\(picture.opaque ? 24 : 32),s=\(picture.width),v=\(picture.height),i=\(id)"
        return (id, transmission(head: head, rest: rest, keys: keys))
    }

    /// The bytes that place image `id` (sent with ``transmitOnly(_:)``), the part `source` of
    /// it, in `area`, then delete the image shown before (and any kept frames) with its data:
    /// the new placement is up before the old one goes, so the cells never show nothing.
    public mutating func placeTransmitted(id: UInt32, source: Viewport.PixelRect, in area: CellArea) -> [UInt8] {
        var old = storedFrames.values.sorted()
        if let shown = shownID, shown != id, !old.contains(shown) { old.append(shown) }
        storedFrames = [:]
        shownID = id
        shownSource = source
        shownCells = nil
        var out = Cursor.place(context.wrap(KittyGraphics.command(placementKeys(id: id))), in: area, rows: 1)
        for o in old where o != id { out += context.wrap(KittyGraphics.delete(id: o, freeData: true)) }
        return out
    }

    /// The bytes that delete image `id` with its data (a picture sent with
    /// ``transmitOnly(_:)`` and never placed, or only partly sent).
    public func discard(id: UInt32) -> [UInt8] {
        context.wrap(KittyGraphics.delete(id: id, freeData: true))
    }

    /// The bytes that abandon a ``transmitOnly(_:)`` transmission cut after a whole chunk:
    /// an empty last chunk (`m=0`) that ends kitty's load, then ``discard(id:)``. The last chunk
    /// matters: kitty 0.26 keeps a chunked load open across a delete, so the next image's
    /// chunks would go into the abandoned one (a newer kitty ends the load at the delete and
    /// takes the empty chunk as a command without an image, an error `q=2` keeps quiet).
    public func abandon(id: UInt32) -> [UInt8] {
        context.wrap(KittyGraphics.command("q=2,m=0")) + discard(id: id)
    }

    /// The part of the image on screen that is shown (kitty's source rectangle, in its
    /// pixels); nil: all of it.
    public private(set) var shownSource: Viewport.PixelRect?

    /// The bytes that show another part (`source`, in the image's pixels) of the image on
    /// screen, sent with ``showReplacing(encoded:in:source:)``: a placement (`a=p`) with a
    /// source rectangle (`x=,y=,w=,h=`) and the same placement id, which kitty moves in place
    /// (no blank frame), a few dozen bytes and no pixels. Nil when nothing is shown.
    public mutating func showPart(_ source: Viewport.PixelRect, in area: CellArea) -> [UInt8]? {
        guard let id = shownID else { return nil }
        shownSource = source
        shownCells = nil
        return Cursor.place(context.wrap(KittyGraphics.command(placementKeys(id: id))), in: area, rows: 1)
    }

    /// The cells the shown part fills, scaled by the terminal (``showScaledPart(_:columns:rows:in:)``);
    /// nil: the part is shown at its own size, one picture pixel a screen pixel.
    public private(set) var shownCells: (columns: Int, rows: Int)?

    /// The bytes that show `source` (in the pixels of the image on screen) scaled by the
    /// terminal to fill `columns` x `rows` cells from `area`'s origin (kitty's `c` and `r`
    /// placement keys; the terminal resamples): a zoom step shown at once from the pan region
    /// the terminal has, until the region at the new zoom is placed. The same placement id, so
    /// it replaces the one shown; nil when no image is shown.
    public mutating func showScaledPart(_ source: Viewport.PixelRect, columns: Int, rows: Int, in area: CellArea) -> [UInt8]? {
        guard let id = shownID, columns > 0, rows > 0 else { return nil }
        shownSource = source
        shownCells = (columns, rows)
        return Cursor.place(context.wrap(KittyGraphics.command(placementKeys(id: id))), in: area, rows: 1)
    }

    /// `a=p` for image `id`, placement 1, with the source rectangle shown and the cells it is
    /// scaled to, if any.
    private func placementKeys(id: UInt32) -> String {
        let cells = shownCells.map { ",c=\($0.columns),r=\($0.rows)" } ?? ""
        return "a=p,i=\(id),p=1\(sourceKeys)\(cells),C=1,q=2"
    }

    /// A new image id (1 after `UInt32.max`).
    private mutating func takeID() -> UInt32 {
        let id = nextID
        nextID = nextID == UInt32.max ? 1 : nextID + 1
        return id
    }

    /// The encoded chunks with `keys` put into the first command: `head` is ESC _ G then
    /// ",q=2…", and the keys go between them; that command is wrapped for tmux passthrough when
    /// it is on (`rest`, the later chunks, come wrapped from the encoder).
    private func transmission(head: [UInt8], rest: [UInt8], keys: String) -> [UInt8] {
        var first = Array(head.prefix(3))
        first += Array(keys.utf8)
        first += head.dropFirst(3)
        return (context.tmuxPassthrough ? context.wrap(first) : first) + rest
    }

    /// The one command that sends `object` (its name in base64) with `keys` in front of the
    /// medium's, wrapped for tmux when needed; the object is handed to the terminal.
    private func sharedCommand(_ object: KittySharedObject, keys: String) -> [UInt8] {
        let name = Base64.encode(object.handOver())
        let command = KittyGraphics.command("\(keys),t=\(object.medium.key),S=\(object.byteCount),q=2", payload: name[...])
        return context.wrap(command)
    }

    /// `,x=…,y=…,w=…,h=…` for ``shownSource``, empty without one.
    private var sourceKeys: String {
        guard let r = shownSource else { return "" }
        return ",x=\(r.x),y=\(r.y),w=\(r.width),h=\(r.height)"
    }

    /// Transmits and places `picture` with a new id (the one shown is left as it is): the
    /// keys (format, size, id, placement, source rectangle) go in front of the first command's
    /// header.
    private mutating func transmit(_ picture: EncodedPicture, in area: CellArea, source: Viewport.PixelRect? = nil) -> [UInt8] {
        if case .kittyShared(let object) = picture.payload {
            let id = takeID()
            shownID = id
            shownSource = source
            shownCells = nil
            let keys = "a=T,f=32,s=\(picture.width),v=\(picture.height),i=\(id),p=1\(sourceKeys),C=1"
            let rows = context.cells(for: PixelSize(width: picture.width, height: picture.height)).rows
            return Cursor.place(sharedCommand(object, keys: keys), in: area, rows: rows)
        }
        guard case .kitty(let head, let rest) = picture.payload else { return [] }
        let id = takeID()
        shownID = id
        shownSource = source
        shownCells = nil
        let keys = "a=T,f=\(picture.opaque ? 24 : 32),s=\(picture.width),v=\(picture.height),i=\(id),p=1\(sourceKeys),C=1"
        let drawn = transmission(head: head, rest: rest, keys: keys)
        return Cursor.place(drawn, in: area, rows: context.cells(for: PixelSize(width: picture.width, height: picture.height)).rows)
    }

    /// Places the image on screen again (`a=p`) at `area` without sending its pixels: for a
    /// redraw that cleared the screen. Empty when nothing was shown.
    public func replace(in area: CellArea) -> [UInt8] {
        guard let id = shownID else { return [] }
        let command = context.wrap(KittyGraphics.command(placementKeys(id: id)))
        return Cursor.place(command, in: area, rows: 1)
    }

    public mutating func remove(from area: CellArea) -> [UInt8] {
        var ids = storedFrames.values.sorted()
        if let id = shownID, !ids.contains(id) { ids.append(id) }
        shownID = nil
        shownSource = nil
        shownCells = nil
        storedFrames = [:]
        return ids.flatMap { context.wrap(KittyGraphics.delete(id: $0, freeData: true)) }
    }

    /// The chunked transmission of `image` (RGB when `opaque`, else RGBA), base64 encoded
    /// straight from the pixels into the commands (RFC 4648 alphabet, `=` padding on the last
    /// chunk only): one pass, no intermediate copies. Each chunk is 4096 characters (3072 bytes)
    /// but the last; the first carries `keys`. Same bytes as ``KittyGraphics/chunked(_:base64:quiet:)``
    /// over the whole payload's base64.
    static func transmission(_ image: RGBAImage, opaque: Bool, keys: String) -> [[UInt8]] {
        let bytesPerPixel = opaque ? 3 : 4
        let total = image.width * image.height * bytesPerPixel
        let chunkBytes = KittyGraphics.maxChunkBytes / 4 * 3
        let chunks = max(1, (total + chunkBytes - 1) / chunkBytes)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var commands: [[UInt8]] = []
        commands.reserveCapacity(chunks)
        image.pixels.withUnsafeBufferPointer { px in
            /// Byte `i` of the payload stream (RGB or RGBA, pixel after pixel).
            @inline(__always) func byte(_ i: Int) -> UInt8 {
                opaque ? px[i / 3 * 4 + i % 3] : px[i]
            }
            alphabet.withUnsafeBufferPointer { table in
                for c in 0..<chunks {
                    let start = c * chunkBytes, end = min(total, start + chunkBytes)
                    let header: String
                    if chunks == 1 { header = "\(keys),q=2" } else if c == 0 { header = "\(keys),q=2,m=1" } else {
                        header = "q=2,m=\(c == chunks - 1 ? 0 : 1)"
                    }
                    let headerBytes = Array(header.utf8)
                    let capacity = headerBytes.count + 6 + (end - start + 2) / 3 * 4
                    let out = [UInt8](unsafeUninitializedCapacity: capacity) { o, count in
                        var n = 0
                        @inline(__always) func put(_ b: UInt8) {
                            o[n] = b
                            n += 1
                        }
                        put(0x1B)
                        put(UInt8(ascii: "_"))
                        put(UInt8(ascii: "G"))
                        for b in headerBytes { put(b) }
                        put(UInt8(ascii: ";"))
                        @inline(__always) func quad(_ v: UInt32) {
                            o[n] = table[Int(v >> 18)]
                            o[n + 1] = table[Int(v >> 12 & 63)]
                            o[n + 2] = table[Int(v >> 6 & 63)]
                            o[n + 3] = table[Int(v & 63)]
                            n += 4
                        }
                        var i = start
                        if opaque && start % 3 == 0 {
                            // Whole pixels: 3 bytes in, 4 characters out, straight from RGBA.
                            var p = start / 3 * 4
                            while i + 3 <= end {
                                quad(UInt32(px[p]) << 16 | UInt32(px[p + 1]) << 8 | UInt32(px[p + 2]))
                                i += 3
                                p += 4
                            }
                        } else {
                            while i + 3 <= end {
                                quad(UInt32(byte(i)) << 16 | UInt32(byte(i + 1)) << 8 | UInt32(byte(i + 2)))
                                i += 3
                            }
                        }
                        if i < end {
                            let b0 = UInt32(byte(i)), b1 = i + 1 < end ? UInt32(byte(i + 1)) : 0
                            let v = b0 << 16 | b1 << 8
                            put(table[Int(v >> 18)])
                            put(table[Int(v >> 12 & 63)])
                            put(i + 1 < end ? table[Int(v >> 6 & 63)] : UInt8(ascii: "="))
                            put(UInt8(ascii: "="))
                        }
                        put(0x1B)
                        put(UInt8(ascii: "\\"))
                        count = n
                    }
                    commands.append(out)
                }
            }
        }
        return commands
    }

    static func isOpaque(_ image: RGBAImage) -> Bool {
        image.pixels.withUnsafeBufferPointer { p in
            var i = 3
            while i < p.count {
                if p[i] != 255 { return false }
                i += 4
            }
            return true
        }
    }
}
