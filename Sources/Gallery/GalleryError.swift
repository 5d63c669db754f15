/// Why a gallery could not be read. Every case names the source by its file name.
///
/// `description` is one line, in the compiler style editors understand:
/// - `gallery.json:12:5: unexpected character '}'` (JSON syntax: line and column, 1-based;
///   the column counts characters, not bytes)
/// - `flags.plist:7: close tag on line 7 does not match open tag dict` (XML plist: line only)
/// - `flags.plist: countries[3].url: not a string (found a number)` (shape: key path)
/// - `gallery.json: no gallery items found (expected an array of items with an image URL)`
public enum GalleryError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The bytes are not well-formed JSON or property list. `line` and `column` are 1-based;
    /// either may be nil when the parser does not say (binary plists, empty files).
    case syntax(source: String, line: Int?, column: Int?, message: String)
    /// Well-formed, but a field has the wrong type or an unusable value. `keyPath` is jq-like
    /// (`results[2].content.src`); "" for the top level.
    case shape(source: String, keyPath: String, message: String)
    /// Well-formed and recognised, but the list of items is empty.
    case empty(source: String)
    /// Well-formed, but nothing in it looks like a list of pictures. `found` describes the top
    /// level ("an object with keys error, status").
    case unrecognized(source: String, found: String)
    /// An explicit mapping (``GalleryMapping``) found nothing, or nothing usable. `expression`
    /// is the option and its text (`--items .data.images[]`); `message` names the step that
    /// matched nothing and what was there instead.
    case mapping(source: String, expression: String, message: String)

    /// The text after `expected` in `empty` and `unrecognized` messages.
    static let expectation = "expected an array of items with an image URL"

    public var description: String {
        switch self {
        case let .syntax(source, line?, column?, message):
            "\(source):\(line):\(column): \(message)"
        case let .syntax(source, line?, nil, message):
            "\(source):\(line): \(message)"
        case let .syntax(source, _, _, message):
            "\(source): \(message)"
        case let .shape(source, keyPath, message) where keyPath.isEmpty:
            "\(source): \(message)"
        case let .shape(source, keyPath, message):
            "\(source): \(keyPath): \(message)"
        case let .empty(source):
            "\(source): no gallery items found (\(GalleryError.expectation))"
        case let .unrecognized(source, found):
            "\(source): not a gallery: found \(found) (\(GalleryError.expectation))"
        case let .mapping(source, expression, message):
            "\(source): \(expression): \(message)"
        }
    }
}

/// What a format reader throws; ``GalleryReader`` adds the source name.
enum MappingError: Error, Equatable {
    case shape(KeyPath, String)
    case empty
    case unrecognized(found: String)
    /// An explicit mapping's expression (`--items .data[]`) and what went wrong with it.
    case mapping(String, String)

    func galleryError(source: String) -> GalleryError {
        switch self {
        case let .shape(path, message): .shape(source: source, keyPath: path.description, message: message)
        case .empty: .empty(source: source)
        case let .unrecognized(found): .unrecognized(source: source, found: found)
        case let .mapping(expression, message): .mapping(source: source, expression: expression, message: message)
        }
    }
}
