/// Parses well-formed JSON straight into a ``Node`` tree, without Foundation.
///
/// `JSONSerialization` on Linux builds an intermediate tree, then Foundation objects, which
/// ``Node/init(foundation:)`` converts again: for a 100,000-item gallery (5 MB) that took about
/// 1 s and 360 MB. This parser reads the bytes once and builds the final tree (a tenth of the
/// time and memory).
///
/// It only has to be right about well-formed input: on anything it does not accept it returns
/// nil, and ``JSONParser`` falls back to `JSONSerialization` and ``JSONSyntaxLocator`` for the
/// positioned error message. It accepts what Foundation on Linux accepts (RFC 8259, top-level
/// scalars, trailing commas before `]` and `}`), up to Foundation's 512 levels of nesting.
/// Duplicate keys: the last one wins.
struct NodeJSONParser {
    private let b: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0
    /// Members of the objects being parsed, innermost last: each object appends its members
    /// here and takes them out at its end into an array of exactly their number (growing one
    /// array per object from 1 to 2 to 4 members reallocated it for most gallery items).
    private let members = MemberStack()

    /// The tree for `bytes` (BOM-less UTF-8), or nil when they are not JSON this parser takes.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Node? {
        var parser = NodeJSONParser(b: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.i == bytes.count ? value : nil
    }

    private init(b: UnsafeBufferPointer<UInt8>) { self.b = b }

    private mutating func skipSpace() {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    private mutating func value() -> Node? {
        skipSpace()
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(Node.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: StaticString, _ node: Node) -> Node? {
        let n = word.utf8CodeUnitCount
        guard i + n <= b.count else { return nil }
        for k in 0..<n where b[i + k] != word.utf8Start[k] { return nil }
        i += n
        return node
    }

    private mutating func object() -> Node? {
        guard depth < JSONSyntaxLocator.maxDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        i += 1
        // Members are collected in document order; ``NodeObject`` keeps small objects as these
        // pairs (a dictionary per item of a big gallery costs twice the memory and the hashing).
        let start = members.count
        defer { members.drop(from: start) }
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object([:]) }
        while true {
            skipSpace()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: "}"), members.count > start { i += 1; return .object(NodeObject(pairs: members.take(from: start))) }  // trailing comma
            guard b[i] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard let v = value() else { return nil }
            members.push((key: key, value: v))
            skipSpace()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            i += 1
            return .object(NodeObject(pairs: members.take(from: start)))
        }
    }

    private mutating func array() -> Node? {
        guard depth < JSONSyntaxLocator.maxDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        i += 1
        var elements: [Node] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(elements) }
        while true {
            skipSpace()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: "]"), !elements.isEmpty { i += 1; return .array(elements) }  // trailing comma
            guard let v = value() else { return nil }
            elements.append(v)
            skipSpace()
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "]") else { return nil }
            i += 1
            return .array(elements)
        }
    }

    /// At `"`: the decoded string; nil for control characters, bad escapes, lone surrogates or
    /// invalid UTF-8.
    private mutating func string() -> String? {
        i += 1
        let start = i
        // Fast path: no escapes; ASCII needs no validation.
        var ascii = true
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: b[start..<i])
                i += 1
                return ascii ? String(decoding: raw, as: UTF8.self) : String(validating: raw, as: UTF8.self)
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { return nil }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        guard i < b.count else { return nil }
        var bytes = Array(b[start..<i])
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(validating: bytes, as: UTF8.self)
            }
            if c < 0x20 { return nil }
            if c != UInt8(ascii: "\\") { bytes.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { return nil }
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
                guard var code = hex4() else { return nil }
                if (0xD800...0xDBFF).contains(code) {
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else { return nil }
                    i += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(code) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(code) else { return nil }
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            default:
                return nil
            }
        }
        return nil
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
        guard i < b.count else { return nil }
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
            guard digits > 0 else { return nil }
        }
        var simple = digits <= 15
        if i < b.count, b[i] == UInt8(ascii: ".") {
            simple = false
            i += 1
            let fractionStart = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > fractionStart else { return nil }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            simple = false
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let exponentStart = i
            while i < b.count, (0x30...0x39).contains(b[i]) { i += 1 }
            guard i > exponentStart else { return nil }
        }
        if simple { return .number(Double(negative ? -integer : integer)) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        // Out of a Double's range (`1e999`) is still a number: ±infinity (or 0 for `1e-999`).
        // A field that needs a finite value fails its own item; the gallery is not refused.
        guard let d = Double(text) else { return nil }
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
