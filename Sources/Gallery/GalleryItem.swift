import Foundation

/// One picture of a gallery: what the list shows and what the pipeline loads.
///
/// Readers fill `thumbnailURL` with the smallest rendition the format offers and `imageURL` with
/// the largest; either falls back to the other, so both are nil only for an item that has no
/// picture at all (the UI shows "no image" for it).
public struct GalleryItem: Sendable, Hashable {
    /// Display text, already passed through ``DisplayText/sanitize(_:)`` and cut to
    /// ``DisplayText/maxTitleColumns`` columns.
    public var title: String
    /// The smallest suitable rendition; falls back to `imageURL`.
    public var thumbnailURL: URL?
    /// The full-size picture; falls back to `thumbnailURL`.
    public var imageURL: URL?

    /// Creates an item, sanitizing the title and applying the URL fallbacks.
    ///
    /// - Important: A title that is empty after sanitizing is replaced by ``fileName``; one
    ///   wider than ``DisplayText/maxTitleColumns`` is cut there, with "…".
    public init(title: String, thumbnailURL: URL? = nil, imageURL: URL? = nil) {
        self.thumbnailURL = thumbnailURL ?? imageURL
        self.imageURL = imageURL ?? thumbnailURL
        self.title = ""
        let clean = DisplayText.sanitize(title)
        self.title = DisplayText.truncated(clean.isEmpty ? fileName : clean)
    }

    /// The last path component of `imageURL ?? thumbnailURL`, percent-decoded and sanitized;
    /// "" when there is no URL or it has no path (a `data:` URL, `https://host/`).
    public var fileName: String {
        guard let url = imageURL ?? thumbnailURL else { return "" }
        if url.scheme?.lowercased() == "data" { return "" }
        let last = url.lastPathComponent
        if last == "/" { return "" }
        return DisplayText.sanitize(last)
    }
}
