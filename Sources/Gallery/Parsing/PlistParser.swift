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
        // swift-corelibs-foundation 6.3.1 crashes (SIGSEGV bridging an NSSet) on a binary plist
        // holding a set, a type property lists do not have: refused before Foundation sees it.
        if binary, !BinaryPlistCheck.isFreeOfSets(data) { throw corrupt }
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

/// A look at a binary property list's object table before Foundation parses it (the format of
/// Apple's CFBinaryPList.c: a 32-byte trailer giving the offset-table position, the widths of
/// offsets, and the object count; each object starts with a marker byte whose high nibble is
/// its type).
enum BinaryPlistCheck {
    /// False when the offset table can be read and one of its objects is a set (marker
    /// `0xC_`), which property lists do not have and which crashed Foundation's reader (found
    /// by the `plist` fuzz target, Fuzz/corpus/plist/crash-binary-set.plist). True otherwise,
    /// including for tables Foundation itself will refuse as corrupt.
    static func isFreeOfSets(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 40 else { return true }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        func uint(at start: Int, width: Int) -> Int? {
            guard width >= 1, width <= 8, start >= 0, start + width <= bytes.count else { return nil }
            var v = 0
            for k in 0..<width {
                guard v < Int.max >> 8 else { return nil }
                v = v << 8 | Int(bytes[start + k])
            }
            return v
        }
        guard let count = uint(at: trailer + 8, width: 8), let table = uint(at: trailer + 24, width: 8),
              offsetSize >= 1, offsetSize <= 8, count <= bytes.count, table < bytes.count
        else { return true }
        for n in 0..<count {
            guard let offset = uint(at: table + n * offsetSize, width: offsetSize) else { return true }
            guard offset < bytes.count else { continue }
            if bytes[offset] >> 4 == 0xC { return false }
        }
        return true
    }
}
