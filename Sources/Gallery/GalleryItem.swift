import Foundation

/// One picture of a gallery: what the list shows and what the pipeline loads.
///
/// Readers fill the thumbnail with the smallest rendition the format offers and the image with
/// the largest; either falls back to the other, so both are nil only for an item that has no
/// picture at all (the UI shows "no image" for it) or whose URL cannot be used (`problem`).
///
/// URLs are kept as strings, already checked. A plain relative path of a gallery
/// ("pictures/1.jpg") is kept as the gallery gave it, beside the gallery's directory (one
/// object shared by all items), and joined into the absolute string only when
/// ``thumbnailURLString`` or ``imageURLString`` is read: a big gallery holds no absolute copy
/// of every URL. A `URL` (about 440 bytes on Linux) is made by ``thumbnailURL`` and
/// ``imageURL`` only when asked for, that is, for the rows being loaded.
public struct GalleryItem: Sendable, Hashable {
    /// Display text, already passed through ``DisplayText/sanitize(_:)`` and cut to
    /// ``DisplayText/maxTitleColumns`` columns.
    public var title: String
    /// Why the item's picture cannot be loaded, when the gallery gave a URL that cannot be
    /// used ("file: URL in a gallery read over http", "not a valid URL: '…'", "unsupported URL
    /// scheme 'javascript'", "url: not a URL string (found a number)"); the URLs are nil then.
    /// Sanitized.
    public var problem: String?
    /// The thumbnail and image as stored: absolute, or relative to `directory` (see
    /// `relative`).
    private var thumbnail: String?
    private var image: String?
    /// The gallery directory that relative URLs of this item are joined to.
    private var directory: URLDirectory?
    /// Bit 0: `thumbnail` is relative to `directory`; bit 1: `image` is.
    private var relative: UInt8 = 0

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
        self.init(title: title, resolvedThumbnail: thumbnail.map { .url($0) }, resolvedImage: image.map { .url($0) }, problem: problem)
    }

    /// Creates an item from resolved URLs, keeping plain relative ones unjoined; a
    /// ``ResolvedURL`` that is a problem counts as no URL (pass the message as `problem`).
    init(title: String, resolvedThumbnail: ResolvedURL?, resolvedImage: ResolvedURL?, problem: String? = nil) {
        let thumb = Self.stored(resolvedThumbnail ?? resolvedImage)
        let full = Self.stored(resolvedImage ?? resolvedThumbnail)
        self.thumbnail = thumb?.string
        self.image = full?.string
        self.directory = thumb?.directory ?? full?.directory
        if thumb?.directory != nil { relative |= 1 }
        if full?.directory != nil { relative |= 2 }
        self.problem = problem.map(DisplayText.sanitize)
        self.title = ""
        let clean = DisplayText.sanitize(title)
        self.title = DisplayText.truncated(clean.isEmpty ? fileName : clean)
    }

    private static func stored(_ url: ResolvedURL?) -> (string: String, directory: URLDirectory?)? {
        switch url {
        case .url(let s)?: (s, nil)
        case .joined(let directory, let path)?: (path, directory)
        default: nil
        }
    }

    /// The smallest suitable rendition, as an absolute URL string; falls back to the image.
    public var thumbnailURLString: String? {
        get { absolute(thumbnail, relative & 1 != 0) }
        set { storeAbsolute(thumbnail: newValue, image: imageURLString) }
    }

    /// The full-size picture, as an absolute URL string; falls back to the thumbnail.
    public var imageURLString: String? {
        get { absolute(image, relative & 2 != 0) }
        set { storeAbsolute(thumbnail: thumbnailURLString, image: newValue) }
    }

    /// Stores both URLs as absolute strings (a setter joins the other one first, so that it
    /// stays what it was once `relative` no longer says it is relative).
    private mutating func storeAbsolute(thumbnail: String?, image: String?) {
        self.thumbnail = thumbnail
        self.image = image
        relative = 0
    }

    private func absolute(_ stored: String?, _ isRelative: Bool) -> String? {
        guard let stored else { return nil }
        guard isRelative, let directory else { return stored }
        return directory.prefix + stored
    }

    /// Equal when title, problem and both absolute URL strings are (however they are stored).
    public static func == (lhs: GalleryItem, rhs: GalleryItem) -> Bool {
        lhs.title == rhs.title && lhs.problem == rhs.problem && lhs.thumbnailURLString == rhs.thumbnailURLString
            && lhs.imageURLString == rhs.imageURLString
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(title)
        hasher.combine(problem)
        hasher.combine(thumbnailURLString)
        hasher.combine(imageURLString)
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
    public var hasURL: Bool { thumbnail != nil || image != nil }

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
