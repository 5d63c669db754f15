import Foundation

/// Parses JSON bytes with ``NodeJSONParser`` and turns a failure into a positioned
/// ``GalleryError/syntax(source:line:column:message:)``.
enum JSONParser {
    /// - Throws: `.syntax` with the line and column where ``NodeJSONParser`` stopped and its
    ///   reason; `.syntax` without a position for UTF-16/32 text that does not decode.
    static func parse(_ data: Data, source: String) throws(GalleryError) -> Node {
        // Rebased only when it is a slice: a copy of a big gallery costs its size again.
        guard let utf8 = TextEncoding.utf8(data).map({ $0.startIndex == 0 ? $0 : Data($0) }) else {
            throw .syntax(source: source, line: nil, column: nil, message: "not valid UTF-16 or UTF-32 text")
        }
        let result = utf8.withUnsafeBytes { raw in NodeJSONParser.parseReporting(raw.bindMemory(to: UInt8.self)) }
        switch result {
        case .success(let node):
            return node
        case .failure(let failure):
            let p = JSONPosition(offset: failure.offset, in: [UInt8](utf8))
            throw .syntax(source: source, line: p.line, column: p.column, message: failure.message)
        }
    }
}
