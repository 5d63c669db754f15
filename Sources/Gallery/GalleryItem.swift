import Foundation

/// One picture of a gallery: what the list shows and what the pipeline loads.
///
/// Readers fill the thumbnail with the smallest rendition the format offers and the image with
/// the largest; either falls back to the other, so both are nil only for an item that has no
/// picture at all (the UI shows "no image" for it) or whose URL cannot be used (`problem`).
///
/// URLs are kept as strings, absolute and already checked: a big gallery holds one string per
/// item (shared when thumbnail and image are the same), and a `URL` (about 440 bytes on Linux)
/// is made by ``thumbnailURL`` and ``imageURL`` only when asked for, that is, for the rows
/// being loaded.
public struct GalleryItem: Sendable, Hashable {
    /// Display text, already passed through ``DisplayText/sanitize(_:)`` and cut to
    /// ``DisplayText/maxTitleColumns`` columns.
    public var title: String
    /// The smallest suitable rendition, as an absolute URL string; falls back to the image.
    public var thumbnailURLString: String?
    /// The full-size picture, as an absolute URL string; falls back to the thumbnail.
    public var imageURLString: String?
    /// Why the item's picture cannot be loaded, when the gallery gave a URL that cannot be
    /// used ("file: URL in a gallery read over http", "not a valid URL: '…'", "unsupported URL
    /// scheme 'javascript'"); the URLs are nil then. Sanitized.
    public var problem: String?

    /// Creates an item, sanitizing the title and applying the URL fallbacks.
    ///
    /// - Important: A title that is empty after sanitizing is replaced by ``fileName``; one
    ///   wider than ``DisplayText/maxTitleColumns`` is cut there, with "…".
    public init(title: String, thumbnailURL: URL? = nil, imageURL: URL? = nil) {
        self.init(title: title, thumbnail: thumbnailURL?.absoluteString, image: imageURL?.absoluteString)
    }

    /// Creates an item from URL strings (absolute, as `URL.absoluteString` gives them), or
    /// with a `problem` instead; sanitizes the title and applies the URL fallbacks.
    public init(title: String, thumbnail: String?, image: String?, problem: String? = nil) {
        self.thumbnailURLString = thumbnail ?? image
        self.imageURLString = image ?? thumbnail
        self.problem = problem.map(DisplayText.sanitize)
        self.title = ""
        let clean = DisplayText.sanitize(title)
        self.title = DisplayText.truncated(clean.isEmpty ? fileName : clean)
    }

    /// The smallest suitable rendition; falls back to `imageURL`. Made on each call.
    public var thumbnailURL: URL? {
        get { thumbnailURLString.flatMap { URL(string: $0) } }
        set { thumbnailURLString = newValue?.absoluteString }
    }

    /// The full-size picture; falls back to `thumbnailURL`. Made on each call.
    public var imageURL: URL? {
        get { imageURLString.flatMap { URL(string: $0) } }
        set { imageURLString = newValue?.absoluteString }
    }

    /// True when the item has a URL to load.
    public var hasURL: Bool { thumbnailURLString != nil || imageURLString != nil }

    /// The last path component of the image (else thumbnail) URL, percent-decoded and
    /// sanitized; "" when there is no URL or it has no path (a `data:` URL, `https://host/`).
    public var fileName: String {
        guard let string = imageURLString ?? thumbnailURLString else { return "" }
        if string.utf8.count >= 5, string.prefix(5).lowercased() == "data:" { return "" }
        guard let url = URL(string: string) else { return "" }
        let last = url.lastPathComponent
        if last == "/" { return "" }
        return DisplayText.sanitize(last)
    }
}
