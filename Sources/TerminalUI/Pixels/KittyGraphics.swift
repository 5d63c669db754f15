#if canImport(Glibc)
import Glibc
#endif

/// Escape sequences of the kitty graphics protocol (kitty's docs, "Terminal graphics protocol"):
/// `ESC _ G <key=value,…> ; <base64 payload> ESC \`.
///
/// Pure byte builders, kept in TerminalUI so the terminal's lifecycle code (teardown, the fatal
/// signal path) can remove images without depending on the presenters.
public enum KittyGraphics {
    /// Deletes every image placement and frees every image's data (`a=d,d=A`), answer
    /// suppressed (`q=2`), as a literal: no storage, no lazy initialisation.
    public static var deleteAllSequence: StaticString { "\u{1B}_Ga=d,d=A,q=2\u{1B}\\" }

    /// ``deleteAllSequence`` as bytes.
    public static var deleteAll: [UInt8] {
        deleteAllSequence.withUTF8Buffer { Array($0) }
    }

    /// Writes ``deleteAllSequence`` to `fd` with one `write(2)`. Async-signal-safe (a static
    /// literal, no allocation, no lock): the fatal-signal and exit paths call it so no picture
    /// is left on the screen after a crash. Terminals without the kitty protocol ignore an APC
    /// sequence. Inside tmux, wrap it with ``deleteAllThroughTmuxSequence`` instead.
    public static func writeDeleteAll(to fd: Int32, throughTmux: Bool = false) {
        let sequence = throughTmux ? deleteAllThroughTmuxSequence : deleteAllSequence
        sequence.withUTF8Buffer { buffer in _ = write(fd, buffer.baseAddress, buffer.count) }
    }

    /// ``deleteAllSequence`` inside tmux's DCS passthrough (ESC doubled), as a literal.
    public static var deleteAllThroughTmuxSequence: StaticString {
        "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=A,q=2\u{1B}\u{1B}\\\u{1B}\\"
    }

    /// The largest base64 payload of one escape sequence, in bytes (the protocol's limit).
    public static let maxChunkBytes = 4096

    /// One graphics command with `keys` (e.g. `a=T,f=32,s=4,v=2`) and an optional payload.
    public static func command(_ keys: String, payload: ArraySlice<UInt8> = []) -> [UInt8] {
        var out: [UInt8] = [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")]
        out.append(contentsOf: keys.utf8)
        if !payload.isEmpty {
            out.append(UInt8(ascii: ";"))
            out.append(contentsOf: payload)
        }
        out.append(contentsOf: [0x1B, UInt8(ascii: "\\")])
        return out
    }

    /// Transmission of `base64` (an already base64-encoded payload) in chunks of at most
    /// ``maxChunkBytes``: the first command carries `keys` and `m=1` while more follow; the rest
    /// carry only `m` and `q` (the protocol allows nothing else on continuation chunks).
    /// - Returns: one byte array per escape sequence, in order (tmux passthrough wraps each).
    public static func chunked(_ keys: String, base64: [UInt8], quiet: Int = 2) -> [[UInt8]] {
        if base64.count <= maxChunkBytes {
            return [command("\(keys),q=\(quiet)", payload: base64[...])]
        }
        var commands: [[UInt8]] = []
        var offset = 0
        while offset < base64.count {
            let end = min(base64.count, offset + maxChunkBytes)
            let more = end < base64.count ? 1 : 0
            let k = offset == 0 ? "\(keys),q=\(quiet),m=\(more)" : "q=\(quiet),m=\(more)"
            commands.append(command(k, payload: base64[offset..<end]))
            offset = end
        }
        return commands
    }

    /// Deletes image `id`'s placements (`d=i`, data kept for a later `a=p`) or, with
    /// `freeData`, its placements and data (`d=I`).
    public static func delete(id: UInt32, freeData: Bool) -> [UInt8] {
        command("a=d,d=\(freeData ? "I" : "i"),i=\(id),q=2")
    }
}
