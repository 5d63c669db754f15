/// Undoes the HTML escaping some APIs apply to text and URLs (DeviantArt titles, Reddit's
/// `&amp;` in preview URLs).
enum HTMLEntities {
    private static let named: [Substring: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}",
    ]

    /// Replaces `&amp; &lt; &gt; &quot; &apos; &nbsp;` and numeric `&#39; &#x27;` references.
    /// Anything else that starts with `&` is left as it is.
    static func unescape(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        var rest = s[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            if let semi = rest[afterAmp...].prefix(10).firstIndex(of: ";"),
               let text = decode(rest[afterAmp..<semi]) {
                out += text
                rest = rest[rest.index(after: semi)...]
            } else {
                out += "&"
                rest = rest[afterAmp...]
            }
        }
        out += rest
        return out
    }

    private static func decode(_ name: Substring) -> String? {
        if let text = named[name] { return text }
        guard name.first == "#" else { return nil }
        let digits = name.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let v = value, let scalar = Unicode.Scalar(v) else { return nil }
        return String(Character(scalar))
    }
}
