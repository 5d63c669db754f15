import Foundation

/// Parses XML and binary property lists with `PropertyListSerialization`.
enum PlistParser {
    /// - Parameter binary: the bytes start with `bplist`. Linux Foundation falls back to the
    ///   OpenStep text parser when a binary plist is corrupt, which either "succeeds" (returning
    ///   the bytes as one string) or reports a nonsense position, so any trouble there is
    ///   reported as a corrupt binary plist.
    /// - Throws: `.syntax`, with the line when the XML parser names one ("... on line 7").
    static func parse(_ data: Data, source: String, binary: Bool) throws(GalleryError) -> Node {
        let corrupt = GalleryError.syntax(
            source: source, line: nil, column: nil, message: "corrupt binary property list"
        )
        var format = PropertyListSerialization.PropertyListFormat.xml
        let value: Any
        do {
            value = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            if binary { throw corrupt }
            let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                ?? error.localizedDescription
            let (line, message) = splitLine(text)
            throw .syntax(source: source, line: line, column: nil, message: message)
        }
        if binary, format != .binary { throw corrupt }
        return Node(foundation: value)
    }

    /// "Encountered unknown tag strin on line 5" → (5, "encountered unknown tag strin").
    static func splitLine(_ text: String) -> (Int?, String) {
        var message = text
        var line: Int?
        for marker in [", failing on line ", " on line ", " at line "] {
            guard let range = message.range(of: marker, options: .backwards) else { continue }
            let digits = message[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            guard let n = Int(digits), !digits.isEmpty else { continue }
            line = n
            message = String(message[..<range.lowerBound]) + message[range.upperBound...].dropFirst(digits.count)
            break
        }
        message = message.trimmingCharacters(in: .whitespaces)
        if message.hasSuffix(".") { message.removeLast() }
        guard let first = message.first else { return (line, "invalid property list") }
        return (line, DisplayText.sanitize(first.lowercased() + message.dropFirst()))
    }
}
