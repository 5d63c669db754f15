import Foundation

/// Recursive-descent parser for ``PathExpression``.
///
/// ```
/// expression  := term ( "//" term )*
/// term        := path | string
/// path        := "." ( name | string | bracket )? step*  |  bracket step*
/// step        := "." ( name | string ) | "." bracket | bracket
/// bracket     := "[" ( integer | string )? "]"
/// string      := '"' ( char | escape | "\(" expression ")" )* '"'
/// ```
/// Whitespace may separate tokens. A leading `[0]` (without the dot) is refused with a hint:
/// in jq it builds an array, which is not what the user meant.
struct PathParser {
    private let chars: [Character]
    private let text: String
    private var i = 0
    /// Templates inside templates; capped so a hostile expression cannot exhaust the stack.
    private var depth = 0
    static let maxDepth = 16

    init(_ text: String) {
        self.text = text
        self.chars = Array(text)
    }

    mutating func parseWhole() throws(PathSyntaxError) -> PathExpression.Term {
        skipSpace()
        if i == chars.count { throw error("empty expression (try '.' for the whole value)") }
        let term = try parseAlternatives()
        skipSpace()
        if i < chars.count {
            if chars[i] == "|" { throw error("pipes are not supported; write the path in one piece (.a.b)") }
            throw error("unexpected '\(chars[i])'")
        }
        return term
    }

    private mutating func parseAlternatives() throws(PathSyntaxError) -> PathExpression.Term {
        var terms = [try parseTerm()]
        while true {
            skipSpace()
            guard peek("//") else { break }
            i += 2
            skipSpace()
            if i == chars.count { throw error("expected an expression after '//'") }
            terms.append(try parseTerm())
        }
        return terms.count == 1 ? terms[0] : .alternatives(terms)
    }

    private mutating func parseTerm() throws(PathSyntaxError) -> PathExpression.Term {
        guard i < chars.count else { throw error("expected an expression") }
        switch chars[i] {
        case "\"": return .template(try parseString())
        case ".": return .path(try parsePath())
        case "[":
            let start = i
            let steps = try parsePath()
            throw PathSyntaxError(
                expression: text, column: start + 1,
                message: "a path starts with '.': write '\(PathExpression.describe(steps))'")
        default:
            throw error("expected a path starting with '.' or a string in double quotes, found '\(chars[i])'")
        }
    }

    /// At `.` (or `[` for the error hint): the steps up to the first character that is not one.
    private mutating func parsePath() throws(PathSyntaxError) -> [PathExpression.Step] {
        var steps: [PathExpression.Step] = []
        var first = true
        while i < chars.count {
            if chars[i] == "." {
                i += 1
                guard i < chars.count else {
                    if first { break }            // "." alone is the identity
                    throw error("expected a key name after '.'")
                }
                let c = chars[i]
                if c == "[" {
                    steps.append(try parseBracket())
                } else if c == "\"" {
                    steps.append(.key(try literalString()))
                } else if let scalar = c.unicodeScalars.first, c.unicodeScalars.count == 1,
                          PathExpression.isIdentifierScalar(scalar), !("0"..."9").contains(scalar) {
                    steps.append(.key(parseName()))
                } else if first, c == " " || c == "/" {
                    break                          // ". // x": the identity, then more
                } else if c == "." {
                    throw error("'..' (recursive descent) is not supported")
                } else {
                    throw error("expected a key name, '[' or a string after '.', found '\(c)'")
                }
            } else if chars[i] == "[" {
                steps.append(try parseBracket())
            } else if chars[i] == "?" {
                i += 1                             // jq's "no error" marker: we never error on a miss
            } else {
                break
            }
            first = false
        }
        return steps
    }

    private mutating func parseName() -> String {
        let start = i
        while i < chars.count, let s = chars[i].unicodeScalars.first, chars[i].unicodeScalars.count == 1,
              PathExpression.isIdentifierScalar(s) {
            i += 1
        }
        return String(chars[start..<i])
    }

    /// At `[`: `[]`, `[n]`, `[-n]` or `["key"]`.
    private mutating func parseBracket() throws(PathSyntaxError) -> PathExpression.Step {
        let open = i
        i += 1
        skipSpace()
        guard i < chars.count else { throw PathSyntaxError(expression: text, column: open + 1, message: "'[' is never closed") }
        let step: PathExpression.Step
        if chars[i] == "]" {
            step = .iterate
        } else if chars[i] == "\"" {
            step = .key(try literalString())
        } else if chars[i] == "-" || chars[i].isASCII && chars[i].isNumber {
            let start = i
            i += 1
            while i < chars.count, chars[i].isASCII, chars[i].isNumber { i += 1 }
            guard let n = Int(String(chars[start..<i])) else {
                throw PathSyntaxError(expression: text, column: start + 1, message: "expected an index, like [0] or [-1]")
            }
            step = .index(n)
        } else if chars[i] == ":" {
            throw error("slices are not supported")
        } else {
            throw error("expected ']', an index or a \"key\" in '[ ]', found '\(chars[i])'")
        }
        skipSpace()
        guard i < chars.count else { throw PathSyntaxError(expression: text, column: open + 1, message: "'[' is never closed") }
        if chars[i] == ":" { throw error("slices are not supported") }
        guard chars[i] == "]" else { throw error("expected ']', found '\(chars[i])'") }
        i += 1
        return step
    }

    /// A string without interpolations (a key).
    private mutating func literalString() throws(PathSyntaxError) -> String {
        let start = i
        let parts = try parseString()
        var out = ""
        for part in parts {
            guard case .literal(let s) = part else {
                throw PathSyntaxError(expression: text, column: start + 1, message: "a key cannot contain \\( )")
            }
            out += s
        }
        return out
    }

    /// At `"`: literal runs and `\( … )` interpolations, up to the closing quote.
    private mutating func parseString() throws(PathSyntaxError) -> [PathExpression.Part] {
        let open = i
        i += 1
        var parts: [PathExpression.Part] = []
        var literal = ""
        while true {
            guard i < chars.count else {
                throw PathSyntaxError(expression: text, column: open + 1, message: "unterminated string (no closing '\"')")
            }
            let c = chars[i]
            if c == "\"" { i += 1; break }
            if c != "\\" { literal.append(c); i += 1; continue }
            let escape = i
            i += 1
            guard i < chars.count else { throw error("unterminated escape at the end") }
            switch chars[i] {
            case "\"": literal += "\""
            case "\\": literal += "\\"
            case "/": literal += "/"
            case "b": literal += "\u{8}"
            case "f": literal += "\u{C}"
            case "n": literal += "\n"
            case "r": literal += "\r"
            case "t": literal += "\t"
            case "u":
                let hex = chars.dropFirst(i + 1).prefix(4)
                guard hex.count == 4, let v = UInt32(String(hex), radix: 16), let scalar = Unicode.Scalar(v) else {
                    throw PathSyntaxError(expression: text, column: escape + 1, message: "expected four hex digits after \\u")
                }
                literal.unicodeScalars.append(scalar)
                i += 4
            case "(":
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                i += 1
                depth += 1
                if depth > PathParser.maxDepth {
                    throw PathSyntaxError(expression: text, column: escape + 1, message: "interpolations nested too deep")
                }
                skipSpace()
                if i < chars.count, chars[i] == ")" { throw error("empty interpolation \\( )") }
                let innerStart = i
                let inner = try parseAlternatives()
                skipSpace()
                guard i < chars.count, chars[i] == ")" else {
                    if i >= chars.count {
                        throw PathSyntaxError(expression: text, column: escape + 1, message: "'\\(' is never closed")
                    }
                    throw error("expected ')' to close '\\(', found '\(chars[i])'")
                }
                depth -= 1
                let innerText = String(chars[innerStart..<i]).trimmingCharacters(in: .whitespaces)
                parts.append(.interpolation(PathExpression(text: innerText, term: inner)))
            default:
                throw PathSyntaxError(expression: text, column: escape + 1, message: "unknown escape '\\\(chars[i])'")
            }
            i += 1
        }
        if !literal.isEmpty || parts.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    private func peek(_ s: String) -> Bool {
        var j = i
        for c in s {
            guard j < chars.count, chars[j] == c else { return false }
            j += 1
        }
        return true
    }

    private mutating func skipSpace() {
        while i < chars.count, chars[i].isWhitespace { i += 1 }
    }

    private func error(_ message: String) -> PathSyntaxError {
        PathSyntaxError(expression: text, column: i + 1, message: message)
    }
}
