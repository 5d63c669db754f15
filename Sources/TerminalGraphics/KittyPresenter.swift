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

    public mutating func show(_ image: RGBAImage, in area: CellArea) -> [UInt8] {
        var out = remove(from: area)
        let id = nextID
        nextID = nextID == UInt32.max ? 1 : nextID + 1
        shownID = id
        let opaque = Self.isOpaque(image)
        let raw: Data
        if opaque {
            var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
            image.pixels.withUnsafeBufferPointer { src in
                for i in 0..<(image.width * image.height) {
                    rgb[3 * i] = src[4 * i]
                    rgb[3 * i + 1] = src[4 * i + 1]
                    rgb[3 * i + 2] = src[4 * i + 2]
                }
            }
            raw = Data(rgb)
        } else {
            raw = Data(image.pixels)
        }
        let base64 = [UInt8](raw.base64EncodedData())
        let keys = "a=T,f=\(opaque ? 24 : 32),s=\(image.width),v=\(image.height),i=\(id),p=1,C=1"
        var drawn: [UInt8] = []
        for command in KittyGraphics.chunked(keys, base64: base64) { drawn += context.wrap(command) }
        out += Cursor.place(drawn, in: area, rows: context.cells(for: PixelSize(width: image.width, height: image.height)).rows)
        return out
    }

    /// Places the image on screen again (`a=p`) at `area` without sending its pixels: for a
    /// redraw that cleared the screen. Empty when nothing was shown.
    public func replace(in area: CellArea) -> [UInt8] {
        guard let id = shownID else { return [] }
        let command = context.wrap(KittyGraphics.command("a=p,i=\(id),p=1,C=1,q=2"))
        return Cursor.place(command, in: area, rows: 1)
    }

    public mutating func remove(from area: CellArea) -> [UInt8] {
        guard let id = shownID else { return [] }
        shownID = nil
        return context.wrap(KittyGraphics.delete(id: id, freeData: true))
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
