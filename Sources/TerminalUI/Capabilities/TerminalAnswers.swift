/// What a terminal said back to the capability queries of ``TerminalProbe``, parsed from the raw
/// bytes read from the tty.
///
/// Pure: ``parse(_:)`` takes everything read so far (split reads are handled by parsing the
/// accumulated buffer again) and never fails. Bytes that belong to no known reply (garbage, keys
/// typed during the probe) are skipped and counted in ``unrecognizedBytes``.
///
/// Replies understood (xterm's ctlseqs, "Xterm Control Sequences", and kitty's
/// graphics-protocol docs):
/// - primary device attributes (DA1) `CSI ? Ps ; … c`; attribute 4 means sixel graphics;
/// - XTVERSION `DCS > | text ST`;
/// - the kitty graphics query reply `APC G i=ID ; OK ST` (or `; ECODE:message`);
/// - the cell size in pixels `CSI 6 ; height ; width t` (reply to `CSI 16 t`) and the text area
///   size `CSI 4 ; height ; width t` (reply to `CSI 14 t`);
/// - the background colour `OSC 11 ; rgb:RRRR/GGGG/BBBB ST` (or BEL-terminated), 1-4 hex digits
///   per channel.
public struct TerminalAnswers: Sendable, Equatable {
    /// Each DA1 reply's attribute list, in arrival order (inside tmux with passthrough there are
    /// two: tmux's own and the outer terminal's).
    public var deviceAttributes: [[Int]] = []
    /// The XTVERSION text, e.g. `kitty(0.26.5)`, `XTerm(379)`, `tmux 3.3a`; control bytes removed.
    public var version: String?
    /// The kitty graphics query reply: true for `OK`, false for an error code, nil when no reply.
    public var kittyGraphics: Bool?
    /// The replies to the transmission-medium queries (``TerminalProbe``: a 1-pixel image in a
    /// shared memory object, `t=s`, id ``sharedMemoryQueryID``, and in a temporary file, `t=t`,
    /// id ``tempFileQueryID``): the reply's message, `OK` or an error such as
    /// `EBADF:Failed to open…` (printable ASCII, at most 80 characters); nil when no reply.
    public var kittySharedMemory: String?
    public var kittyTempFile: String?
    /// Image ids of the medium queries (the plain graphics query has ``TerminalProbe``'s 31).
    public static let sharedMemoryQueryID = 32
    public static let tempFileQueryID = 33
    /// Cell size in pixels from `CSI 6 ; h ; w t`.
    public var cellPixels: (width: Int, height: Int)?
    /// Text-area size in pixels from `CSI 4 ; h ; w t`.
    public var textAreaPixels: (width: Int, height: Int)?
    /// The default background colour (8 bits a channel) from OSC 11.
    public var background: (r: UInt8, g: UInt8, b: UInt8)?
    /// Bytes that were part of no recognised reply.
    public var unrecognizedBytes = 0

    public init() {}

    /// True when the union of all DA1 replies lists attribute 4 (sixel).
    public var sixel: Bool { deviceAttributes.contains { $0.dropFirst().contains(4) } }

    public static func == (a: Self, b: Self) -> Bool {
        a.deviceAttributes == b.deviceAttributes && a.version == b.version && a.kittyGraphics == b.kittyGraphics
            && a.kittySharedMemory == b.kittySharedMemory && a.kittyTempFile == b.kittyTempFile
            && a.cellPixels?.width == b.cellPixels?.width && a.cellPixels?.height == b.cellPixels?.height
            && a.textAreaPixels?.width == b.textAreaPixels?.width
            && a.textAreaPixels?.height == b.textAreaPixels?.height
            && a.background?.r == b.background?.r && a.background?.g == b.background?.g
            && a.background?.b == b.background?.b && a.unrecognizedBytes == b.unrecognizedBytes
    }

    /// Parses every reply found in `bytes`. A reply cut off at the end of the buffer is left for
    /// a later call with more bytes (it is not counted as unrecognized).
    public static func parse(_ bytes: [UInt8]) -> TerminalAnswers {
        var answers = TerminalAnswers()
        var i = 0
        let n = bytes.count
        let esc: UInt8 = 0x1B
        /// Index just past the string terminator (ESC \ or BEL when `bel`) at or after `from`,
        /// and the index where the body ends; nil when not terminated yet.
        func terminator(from: Int, bel: Bool) -> (bodyEnd: Int, next: Int)? {
            var j = from
            while j < n {
                if bytes[j] == esc && j + 1 < n && bytes[j + 1] == UInt8(ascii: "\\") { return (j, j + 2) }
                if bytes[j] == 0x9C { return (j, j + 1) }
                if bel && bytes[j] == 0x07 { return (j, j + 1) }
                j += 1
            }
            return nil
        }
        while i < n {
            guard bytes[i] == esc, i + 1 < n else {
                if bytes[i] != esc { answers.unrecognizedBytes += 1 }
                i += 1
                continue
            }
            let kind = bytes[i + 1]
            switch kind {
            case UInt8(ascii: "["):
                // CSI: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, final 0x40-0x7E.
                var j = i + 2
                while j < n && (0x20...0x3F).contains(bytes[j]) { j += 1 }
                guard j < n else { return answers }
                let final = bytes[j]
                let params = Array(bytes[(i + 2)..<j])
                if final == UInt8(ascii: "c"), params.first == UInt8(ascii: "?") {
                    answers.deviceAttributes.append(numbers(params.dropFirst()))
                } else if final == UInt8(ascii: "t") {
                    let v = numbers(params[...])
                    if v.count == 3, v[1] > 0, v[2] > 0 {
                        if v[0] == 6 { answers.cellPixels = (v[2], v[1]) }
                        if v[0] == 4 { answers.textAreaPixels = (v[2], v[1]) }
                    }
                } else {
                    answers.unrecognizedBytes += j + 1 - i
                }
                i = j + 1
            case UInt8(ascii: "P"), UInt8(ascii: "_"), UInt8(ascii: "]"):
                guard let end = terminator(from: i + 2, bel: kind == UInt8(ascii: "]")) else { return answers }
                let body = Array(bytes[(i + 2)..<end.bodyEnd])
                if kind == UInt8(ascii: "P"), body.starts(with: Array(">|".utf8)) {
                    answers.version = String(decoding: body.dropFirst(2).filter { (0x20...0x7E).contains($0) }, as: UTF8.self)
                } else if kind == UInt8(ascii: "_"), body.first == UInt8(ascii: "G"),
                    let semicolon = body.firstIndex(of: UInt8(ascii: ";"))
                {
                    let message = body[(semicolon + 1)...]
                    let text = String(decoding: message.prefix(80).filter { (0x20...0x7E).contains($0) }, as: UTF8.self)
                    switch kittyID(body[1..<semicolon]) {
                    case sharedMemoryQueryID: answers.kittySharedMemory = text
                    case tempFileQueryID: answers.kittyTempFile = text
                    default: answers.kittyGraphics = message.starts(with: Array("OK".utf8))
                    }
                } else if kind == UInt8(ascii: "]"), let color = backgroundColor(body) {
                    answers.background = color
                } else {
                    answers.unrecognizedBytes += end.next - i
                }
                i = end.next
            default:
                answers.unrecognizedBytes += 1
                i += 1
            }
        }
        return answers
    }

    /// The `i=` key's value among a kitty reply's `key=value,…` keys; nil when it has none.
    static func kittyID(_ keys: ArraySlice<UInt8>) -> Int? {
        for field in keys.split(separator: UInt8(ascii: ",")) where field.starts(with: Array("i=".utf8)) {
            let digits = field.dropFirst(2)
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        return nil
    }

    /// The decimal numbers of a `;`-separated parameter list (empty fields are 0).
    static func numbers(_ params: ArraySlice<UInt8>) -> [Int] {
        params.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { field in
            field.reduce(0) { value, digit in
                (0x30...0x39).contains(digit) ? min(value * 10 + Int(digit - 0x30), 1 << 30) : value
            }
        }
    }

    /// `11;rgb:RRRR/GGGG/BBBB` with 1-4 hex digits a channel, scaled to 8 bits.
    static func backgroundColor(_ body: [UInt8]) -> (r: UInt8, g: UInt8, b: UInt8)? {
        let text = String(decoding: body, as: UTF8.self)
        guard text.hasPrefix("11;rgb:") else { return nil }
        let channels = text.dropFirst(7).split(separator: "/", omittingEmptySubsequences: false)
        guard channels.count == 3 else { return nil }
        var out: [UInt8] = []
        for channel in channels {
            guard (1...4).contains(channel.count), let value = UInt32(channel, radix: 16) else { return nil }
            let maxValue = (UInt32(1) << (4 * UInt32(channel.count))) - 1
            out.append(UInt8((value * 255 + maxValue / 2) / maxValue))
        }
        return (out[0], out[1], out[2])
    }
}
