/// Parses JSON straight into a ``Node`` tree, without Foundation, and says where and why it
/// stops on anything else: the one JSON grammar of Vitrine.
///
/// `JSONSerialization` on Linux builds an intermediate tree, then Foundation objects, which
/// ``Node/init(foundation:)`` converts again: for a 100,000-item gallery (5 MB) that took about
/// 1 s and 360 MB. This parser reads the bytes once and builds the final tree (a tenth of the
/// time and memory). It accepts what Foundation on Linux accepts (RFC 8259, top-level scalars,
/// trailing commas before `]` and `}`), up to Foundation's 512 levels of nesting, and numbers
/// beyond a Double's range as infinity. Duplicate keys: the last one wins.
///
/// On input it does not accept it returns a ``Failure``: the byte offset where it stopped and
/// a reason in the reader's terms ("unexpected character '}' (expected a value)", "invalid
/// literal 'tru'", "unexpected end of file: '[' opened at 1:1 is not closed"). Quoted text is
/// sanitized.
struct NodeJSONParser {
    /// Where parsing stopped and why.
    struct Failure: Error, Equatable {
        /// Byte offset into the UTF-8 text.
        var offset: Int
        var message: String
    }

    /// Foundation's nesting limit on Linux: 512 levels parse, the 513th opening fails.
    static let maxDepth = 512

    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0
    /// Offsets of the open `{` and `[`, innermost last (for "opened at" at end of file).
    private var opens: [(isObject: Bool, offset: Int)] = []
    private var failure: Failure?
    /// Members of the objects being parsed, innermost last: each object appends its members
    /// here and takes them out at its end into an array of exactly their number (growing one
    /// array per object from 1 to 2 to 4 members reallocated it for most gallery items).
    private let members = MemberStack()

    /// The tree for `bytes` (BOM-less UTF-8), or nil when they are not JSON.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Node? {
        try? parseReporting(bytes).get()
    }

    /// The tree for `bytes` (BOM-less UTF-8), or where and why it is not JSON.
    static func parseReporting(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Node, Failure> {
        var parser = NodeJSONParser(b: bytes)
        guard let value = parser.value() else {
            return .failure(parser.failure ?? Failure(offset: parser.i, message: "not JSON"))
        }
        parser.skipSpace()
        guard parser.i == bytes.count else {
            return .failure(Failure(offset: parser.i, message: "\(parser.describe(at: parser.i)) after the end of the JSON value"))
        }
        return .success(value)
    }

    private init(b: UnsafeBufferPointer<UInt8>) { self.b = b }

    // MARK: Failures

    /// Records the first failure (inner ones win: they are set first) and returns nil.
    private mutating func fail(at offset: Int, _ message: String) -> Node? {
        if failure == nil { failure = Failure(offset: offset, message: message) }
        return nil
    }

    private mutating func unexpected(expecting: String) -> Node? {
        fail(at: i, "\(describe(at: i)) (expected \(expecting))")
    }

    /// At end of file: which bracket is still open, or that a value was expected.
    private mutating func endOfFile() -> Node? {
        guard let open = opens.last else { return fail(at: i, "unexpected end of file (expected a value)") }
        let p = JSONPosition(offset: open.offset, in: Array(b))
        return fail(at: i, "unexpected end of file: '\(open.isObject ? "{" : "[")' opened at \(p.line):\(p.column) is not closed")
    }

    /// "invalid number '01'", "invalid literal 'tru'": the run of token bytes from `start`.
    private mutating func invalidToken(from start: Int, _ kind: String) -> Node? {
        var j = start
        while j < b.count, Self.isTokenByte(b[j]) || (j == start && b[j] == UInt8(ascii: "-")) { j += 1 }
        let token = String(decoding: UnsafeBufferPointer(rebasing: b[start..<max(j, start)]), as: UTF8.self)
        return fail(at: start, "invalid \(kind) '\(DisplayText.sanitize(token))'")
    }

    /// "unexpected character 'x'", "unexpected character U+0001", "invalid UTF-8 byte 0xFF".
    private func describe(at offset: Int) -> String {
        guard offset < b.count else { return "end of file" }
        guard let length = utf8Length(at: offset) else { return "invalid UTF-8 byte 0x" + Self.hex(b[offset]) }
        let scalar = String(decoding: UnsafeBufferPointer(rebasing: b[offset..<offset + length]), as: UTF8.self)
            .unicodeScalars.first!
        let shown = DisplayText.sanitize(String(scalar))
        if shown.isEmpty || shown.unicodeScalars.count != 1 {
            return "unexpected character U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        }
        return "unexpected character '\(shown)'"
    }

    static func isTokenByte(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

    static func hex(_ c: UInt8) -> String { String(c, radix: 16, uppercase: true).leftPadded(to: 2) }

    /// The length of the well-formed UTF-8 sequence at `offset`, or nil.
    private func utf8Length(at offset: Int) -> Int? {
        let lead = b[offset]
        let (length, low, high): (Int, UInt8, UInt8)
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
        case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
        case 0xED: (length, low, high) = (3, 0x80, 0x9F)
        case 0xE1...0xEF: (length, low, high) = (3, 0x80, 0xBF)
        case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
        case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
        case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
        default: return nil
        }
        guard offset + length <= b.count, (low...high).contains(b[offset + 1]) else { return nil }
        for k in 2..<length where !(0x80...0xBF).contains(b[offset + k]) { return nil }
        return length
    }

    // MARK: Grammar

    private mutating func skipSpace() {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    private mutating func value() -> Node? {
        skipSpace()
        guard i < b.count else { return endOfFile() }
        switch b[i] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(Node.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return unexpected(expecting: "a value")
        }
    }

    private mutating func literal(_ word: StaticString, _ node: Node) -> Node? {
        let n = word.utf8CodeUnitCount
        let start = i
        guard i + n <= b.count else { return invalidToken(from: start, "literal") }
        for k in 0..<n where b[i + k] != word.utf8Start[k] { return invalidToken(from: start, "literal") }
        if i + n < b.count, Self.isTokenByte(b[i + n]) { return invalidToken(from: start, "literal") }
        i += n
        return node
    }

    private mutating func open(isObject: Bool) -> Bool {
        guard opens.count < Self.maxDepth else {
            _ = fail(at: i, "nested more than \(Self.maxDepth) levels deep")
            return false
        }
        opens.append((isObject, i))
        i += 1
        return true
    }

    private mutating func object() -> Node? {
        guard open(isObject: true) else { return nil }
        defer { opens.removeLast() }
        // Members are collected in document order; ``NodeObject`` keeps small objects as these
        // pairs (a dictionary per item of a big gallery costs twice the memory and the hashing).
        let start = members.count
        defer { members.drop(from: start) }
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object([:]) }
        while true {
            skipSpace()
            guard i < b.count else { return endOfFile() }
            if b[i] == UInt8(ascii: "}"), members.count > start { i += 1; return .object(NodeObject(pairs: members.take(from: start))) }  // trailing comma
            guard b[i] == UInt8(ascii: "\"") else { return unexpected(expecting: "a string key") }
            guard let key = string() else { return nil }
            skipSpace()
            guard i < b.count else { return endOfFile() }
            guard b[i] == UInt8(ascii: ":") else { return unexpected(expecting: "':'") }
            i += 1
            guard let v = value() else { return nil }
            members.push((key: key, value: v))
            skipSpace()
            guard i < b.count else { return endOfFile() }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "}") else { return unexpected(expecting: "',' or '}'") }
            i += 1
            return .object(NodeObject(pairs: members.take(from: start)))
        }
    }

    private mutating func array() -> Node? {
        guard open(isObject: false) else { return nil }
        defer { opens.removeLast() }
        var elements: [Node] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(elements) }
        while true {
            skipSpace()
            guard i < b.count else { return endOfFile() }
            if b[i] == UInt8(ascii: "]"), !elements.isEmpty { i += 1; return .array(elements) }  // trailing comma
            guard let v = value() else { return nil }
            elements.append(v)
            skipSpace()
            guard i < b.count else { return endOfFile() }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "]") else { return unexpected(expecting: "',' or ']'") }
            i += 1
            return .array(elements)
        }
    }

    /// At `"`: the decoded string; nil (with the failure recorded) for control characters, line
    /// breaks, bad escapes, lone surrogates, invalid UTF-8 or a missing closing quote.
    private mutating func string() -> String? {
        let quote = i
        i += 1
        let start = i
        // Fast path: no escapes; ASCII needs no validation.
        var ascii = true
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: b[start..<i])
                i += 1
                if ascii { return String(decoding: raw, as: UTF8.self) }
                if let s = String(validating: raw, as: UTF8.self) { return s }
                return badUTF8(in: start..<(i - 1))
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { return control(c) }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        guard i < b.count else { return unterminated(quote) }
        var bytes = Array(b[start..<i])
        let slowStart = start
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                if let s = String(validating: bytes, as: UTF8.self) { return s }
                return badUTF8(in: slowStart..<(i - 1))
            }
            if c < 0x20 { return control(c) }
            if c != UInt8(ascii: "\\") { bytes.append(c); i += 1; continue }
            let escape = i
            i += 1
            guard i < b.count else { return unterminated(quote) }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(e)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                guard var code = hex4() else { return stringFailure(at: escape, "invalid \\u escape (expected 4 hex digits)") }
                if (0xD800...0xDBFF).contains(code) {
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                        return stringFailure(at: escape, "lone high surrogate in \\u escape")
                    }
                    i += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else {
                        return stringFailure(at: escape, "lone high surrogate in \\u escape")
                    }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    return stringFailure(at: escape, "lone low surrogate in \\u escape")
                }
                guard let scalar = Unicode.Scalar(code) else { return stringFailure(at: escape, "invalid \\u escape") }
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            default:
                let shown = DisplayText.sanitize(String(Unicode.Scalar(e)))
                return stringFailure(at: escape, shown.isEmpty ? "invalid escape (byte 0x\(Self.hex(e)))" : "invalid escape '\\\(shown)'")
            }
        }
        return unterminated(quote)
    }

    private mutating func stringFailure(at offset: Int, _ message: String) -> String? {
        _ = fail(at: offset, message)
        return nil
    }

    private mutating func control(_ c: UInt8) -> String? {
        if c == 0x0A || c == 0x0D { return stringFailure(at: i, "line break inside a string (missing '\"'?)") }
        return stringFailure(at: i, "unescaped control character U+00\(Self.hex(c)) in a string")
    }

    private mutating func unterminated(_ quote: Int) -> String? {
        stringFailure(at: quote, "unterminated string")
    }

    /// The first byte in `range` that is not well-formed UTF-8.
    private mutating func badUTF8(in range: Range<Int>) -> String? {
        var j = range.lowerBound
        while j < range.upperBound {
            guard let n = utf8Length(at: j), j + n <= range.upperBound else {
                return stringFailure(at: j, "invalid UTF-8 byte 0x" + Self.hex(b[j]))
            }
            j += n
        }
        return stringFailure(at: range.lowerBound, "invalid UTF-8")
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= b.count else { return nil }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`; integers of up
    /// to 15 digits are converted exactly without going through text.
    private mutating func number() -> Node? {
        let start = i
        var negative = false
        if i < b.count, b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < b.count else { return endOfFile() }
        var integer: Int64 = 0
        var digits = 0
        if b[i] == UInt8(ascii: "0") {
            i += 1
            digits = 1
        } else {
            while i < b.count, (0x30...0x39).contains(b[i]) {
                if digits < 18 { integer = integer * 10 + Int64(b[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return unexpected(expecting: "a value") }
        }
        var simple = digits <= 15
        if i < b.count, b[i] == UInt8(ascii: ".") {
            simple = false
            i += 1
            let fractionStart = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > fractionStart else { return invalidToken(from: start, "number") }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            simple = false
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let exponentStart = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > exponentStart else { return invalidToken(from: start, "number") }
        }
        // A number runs into the next token ("01", "1x"): the whole token is the bad number.
        if i < b.count, Self.isTokenByte(b[i]) { return invalidToken(from: start, "number") }
        if simple { return .number(Double(negative ? -integer : integer)) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        // Out of a Double's range (`1e999`) is still a number: ±infinity (or 0 for `1e-999`).
        // A field that needs a finite value fails its own item; the gallery is not refused.
        guard let d = Double(text) else { return invalidToken(from: start, "number") }
        return .number(d)
    }
}

/// The members of the objects being parsed, innermost last. An object pushes its members and
/// at its end moves them out into an array of exactly their number: no array grows member by
/// member (1, 2, 4: two reallocations for most gallery items), and nothing is copied and then
/// released.
private final class MemberStack {
    private var base: UnsafeMutablePointer<NodeObject.Member>
    private var capacity = 64
    private(set) var count = 0

    init() {
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func push(_ member: NodeObject.Member) {
        if count == capacity {
            let bigger = UnsafeMutablePointer<NodeObject.Member>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: base, count: count)
            base.deallocate()
            base = bigger
            capacity *= 2
        }
        (base + count).initialize(to: member)
        count += 1
    }

    /// Moves the members from `start` on out, in order.
    func take(from start: Int) -> [NodeObject.Member] {
        let n = count - start
        guard n > 0 else { return [] }
        let out = [NodeObject.Member](unsafeUninitializedCapacity: n) { buffer, initialized in
            buffer.baseAddress!.moveInitialize(from: base + start, count: n)
            initialized = n
        }
        count = start
        return out
    }

    /// Drops whatever is left from `start` on (an object that failed to parse).
    func drop(from start: Int) {
        guard count > start else { return }
        (base + start).deinitialize(count: count - start)
        count = start
    }
}

extension String {
    /// Padded on the left with zeros to `width` characters ("1" → "0001").
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
