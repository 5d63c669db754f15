/// Finds the first syntax error in JSON text and says what is wrong there.
///
/// Runs only after `JSONSerialization` has refused the bytes: on Linux its errors give a byte
/// offset for some mistakes and nothing at all for others ("Unexpected end of file during JSON
/// parse." even for `{"a": tru}`). One linear scan with an explicit stack (no recursion, so
/// deep nesting cannot overflow). It is as lenient as Foundation: trailing commas before `]`
/// and `}` are accepted, and nesting stops at Foundation's 512 levels.
struct JSONSyntaxLocator {
    struct Failure: Equatable {
        /// Byte offset into the UTF-8 text.
        var offset: Int
        var message: String
    }

    private enum State { case value, key, colon, after }

    /// Foundation's nesting limit on Linux: 512 levels parse, the 513th opening fails.
    static let maxDepth = 512

    private let b: [UInt8]
    private var i = 0

    /// The first error in `bytes` (BOM-less UTF-8), or nil if the text is well-formed JSON.
    static func locate(_ bytes: [UInt8]) -> Failure? {
        var scanner = JSONSyntaxLocator(b: bytes)
        return scanner.scan()
    }

    private init(b: [UInt8]) { self.b = b }

    private mutating func scan() -> Failure? {
        var stack: [(isObject: Bool, open: Int)] = []
        var state = State.value
        var allowClose = false
        while true {
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
            guard i < b.count else {
                if stack.isEmpty, state == .after { return nil }
                if let top = stack.last {
                    let p = JSONPosition(offset: top.open, in: b)
                    let bracket = top.isObject ? "{" : "["
                    return Failure(offset: i, message: "unexpected end of file: '\(bracket)' opened at \(p.line):\(p.column) is not closed")
                }
                return Failure(offset: i, message: "unexpected end of file (expected a value)")
            }
            let c = b[i]
            switch state {
            case .value:
                switch c {
                case UInt8(ascii: "{") where stack.count == Self.maxDepth,
                     UInt8(ascii: "[") where stack.count == Self.maxDepth:
                    return Failure(offset: i, message: "nested more than \(Self.maxDepth) levels deep")
                case UInt8(ascii: "{"):
                    stack.append((true, i)); i += 1; state = .key; allowClose = true
                case UInt8(ascii: "["):
                    stack.append((false, i)); i += 1; state = .value; allowClose = true
                case UInt8(ascii: "]") where allowClose && stack.last?.isObject == false:
                    stack.removeLast(); i += 1; state = .after
                case UInt8(ascii: "\""):
                    if let f = scanString() { return f }
                    state = .after
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if let f = scanNumber() { return f }
                    state = .after
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    if let f = scanLiteral() { return f }
                    state = .after
                default:
                    return unexpected(expecting: "a value")
                }
            case .key:
                if c == UInt8(ascii: "\"") {
                    if let f = scanString() { return f }
                    state = .colon
                } else if c == UInt8(ascii: "}"), allowClose {
                    stack.removeLast(); i += 1; state = .after
                } else {
                    return unexpected(expecting: "a string key")
                }
            case .colon:
                guard c == UInt8(ascii: ":") else { return unexpected(expecting: "':'") }
                i += 1; state = .value; allowClose = false
            case .after:
                guard let top = stack.last else {
                    return Failure(offset: i, message: "\(describe(at: i)) after the end of the JSON value")
                }
                let close = top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if c == UInt8(ascii: ",") {
                    i += 1; state = top.isObject ? .key : .value; allowClose = true
                } else if c == close {
                    stack.removeLast(); i += 1
                } else {
                    return unexpected(expecting: top.isObject ? "',' or '}'" : "',' or ']'")
                }
            }
        }
    }

    private func unexpected(expecting: String) -> Failure {
        Failure(offset: i, message: "\(describe(at: i)) (expected \(expecting))")
    }

    /// "unexpected character 'x'", "unexpected character U+0001", "invalid UTF-8 byte 0xFF".
    private func describe(at offset: Int) -> String {
        guard let length = utf8Length(at: offset) else {
            return "invalid UTF-8 byte 0x" + hex(b[offset])
        }
        let scalar = String(decoding: b[offset..<offset + length], as: UTF8.self).unicodeScalars.first!
        let shown = DisplayText.sanitize(String(scalar))
        if shown.isEmpty || shown.unicodeScalars.count != 1 {
            return "unexpected character U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        }
        return "unexpected character '\(shown)'"
    }

    private mutating func scanString() -> Failure? {
        let start = i
        i += 1
        while i < b.count {
            let c = b[i]
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return nil
            case UInt8(ascii: "\\"):
                if let f = scanEscape() { return f }
            case 0x0A, 0x0D:
                return Failure(offset: i, message: "line break inside a string (missing '\"'?)")
            case 0x00..<0x20:
                return Failure(offset: i, message: "unescaped control character U+00\(hex(c)) in a string")
            case 0x80...:
                guard let length = utf8Length(at: i) else {
                    return Failure(offset: i, message: "invalid UTF-8 byte 0x" + hex(c))
                }
                i += length
            default:
                i += 1
            }
        }
        return Failure(offset: start, message: "unterminated string")
    }

    private mutating func scanEscape() -> Failure? {
        let start = i
        guard i + 1 < b.count else { return Failure(offset: start, message: "unterminated string") }
        let e = b[i + 1]
        if "\"\\/bfnrt".utf8.contains(e) { i += 2; return nil }
        guard e == UInt8(ascii: "u") else {
            return Failure(offset: start, message: "invalid escape '\\\(Character(Unicode.Scalar(e)))'")
        }
        guard let unit = hex4(at: i + 2) else {
            return Failure(offset: start, message: "invalid \\u escape (expected 4 hex digits)")
        }
        i += 6
        if (0xDC00...0xDFFF).contains(unit) {
            return Failure(offset: start, message: "lone low surrogate in \\u escape")
        }
        if (0xD800...0xDBFF).contains(unit) {
            guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u"),
                  let low = hex4(at: i + 2), (0xDC00...0xDFFF).contains(low) else {
                return Failure(offset: start, message: "lone high surrogate in \\u escape")
            }
            i += 6
        }
        return nil
    }

    private func hex4(at offset: Int) -> UInt32? {
        guard offset + 4 <= b.count else { return nil }
        return UInt32(String(decoding: b[offset..<offset + 4], as: UTF8.self), radix: 16)
    }

    private mutating func scanNumber() -> Failure? {
        let start = i
        var j = i
        while j < b.count, isTokenByte(b[j]) { j += 1 }
        let token = String(decoding: b[start..<j], as: UTF8.self)
        i = j
        guard isJSONNumber(token.utf8) else {
            return Failure(offset: start, message: "invalid number '\(DisplayText.sanitize(token))'")
        }
        guard let value = Double(token), value.isFinite else {
            return Failure(offset: start, message: "number out of range '\(token)'")
        }
        return nil
    }

    /// JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private func isJSONNumber(_ s: String.UTF8View) -> Bool {
        var p = s[...]
        func digits() -> Int { let n = p.prefix { (48...57).contains($0) }.count; p = p.dropFirst(n); return n }
        if p.first == UInt8(ascii: "-") { p = p.dropFirst() }
        if p.first == UInt8(ascii: "0") { p = p.dropFirst() } else if digits() == 0 { return false }
        if p.first == UInt8(ascii: ".") { p = p.dropFirst(); if digits() == 0 { return false } }
        if p.first == UInt8(ascii: "e") || p.first == UInt8(ascii: "E") {
            p = p.dropFirst()
            if p.first == UInt8(ascii: "+") || p.first == UInt8(ascii: "-") { p = p.dropFirst() }
            if digits() == 0 { return false }
        }
        return p.isEmpty
    }

    private mutating func scanLiteral() -> Failure? {
        let start = i
        var j = i
        while j < b.count, isTokenByte(b[j]) { j += 1 }
        let word = String(decoding: b[start..<j], as: UTF8.self)
        guard word == "true" || word == "false" || word == "null" else {
            return Failure(offset: start, message: "invalid literal '\(DisplayText.sanitize(word))'")
        }
        i = j
        return nil
    }

    private func isTokenByte(_ c: UInt8) -> Bool {
        (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c)
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

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

    private func hex(_ c: UInt8) -> String {
        String(c, radix: 16, uppercase: true).leftPadded(to: 2)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
