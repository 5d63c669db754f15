import Foundation

/// Parses JSON bytes (with ``NodeJSONParser``, else `JSONSerialization`) and turns failures
/// into a positioned ``GalleryError/syntax(source:line:column:message:)``.
enum JSONParser {
    /// - Throws: `.syntax` with line and column from ``JSONSyntaxLocator``; if that finds no
    ///   fault (Foundation limits such as nesting depth), Foundation's own message and, when it
    ///   gives one, its byte offset.
    static func parse(_ data: Data, source: String) throws(GalleryError) -> Node {
        // Rebased only when it is a slice: a copy of a big gallery costs its size again.
        guard let utf8 = TextEncoding.utf8(data).map({ $0.startIndex == 0 ? $0 : Data($0) }) else {
            throw .syntax(source: source, line: nil, column: nil, message: "not valid UTF-16 or UTF-32 text")
        }
        // Well-formed input takes the direct path; anything it refuses goes through Foundation,
        // whose verdict (and our locator's message) stands.
        if let node = utf8.withUnsafeBytes({ raw in NodeJSONParser.parse(raw.bindMemory(to: UInt8.self)) }) {
            return node
        }
        do {
            let value = try JSONSerialization.jsonObject(with: utf8, options: [.fragmentsAllowed])
            return Node(foundation: value)
        } catch {
            let bytes = [UInt8](utf8)
            if let failure = JSONSyntaxLocator.locate(bytes) {
                let p = JSONPosition(offset: failure.offset, in: bytes)
                throw .syntax(source: source, line: p.line, column: p.column, message: failure.message)
            }
            let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
                ?? error.localizedDescription
            let position = JSONPosition.foundationOffset(in: text).map { JSONPosition(offset: $0, in: bytes) }
            throw .syntax(
                source: source, line: position?.line, column: position?.column,
                message: DisplayText.sanitize(JSONPosition.foundationMessage(text))
            )
        }
    }
}
