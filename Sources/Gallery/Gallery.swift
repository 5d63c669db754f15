import Foundation

/// A gallery read from a file or a URL: a name, where it came from, and its items in order.
///
/// Made by ``GalleryReader/read(_:source:)``; the public initializer is for callers that build
/// one themselves (a demo gallery, tests).
public struct Gallery: Sendable {
    /// Display name: the gallery's own title when the format has one (a top-level `title`),
    /// else the file name of `source`. Sanitized.
    public var name: String
    /// The file URL or http(s) URL the gallery was read from; relative item URLs resolved
    /// against it.
    public var source: URL
    /// The items in the order the gallery lists them.
    public var items: [GalleryItem]
    /// Which reader recognised the bytes.
    public var format: GalleryFormat
    /// How to fetch the next page, when the format pages and says there is one.
    public var nextPage: NextPage?

    public init(
        name: String, source: URL, items: [GalleryItem], format: GalleryFormat, nextPage: NextPage? = nil
    ) {
        self.name = DisplayText.sanitize(name)
        self.source = source
        self.items = items
        self.format = format
        self.nextPage = nextPage
    }

    /// The name used for `source` in titles and error messages: its last path component, or its
    /// host for a URL without a path, or the whole URL.
    public static func displayName(of source: URL) -> String {
        let last = source.lastPathComponent
        if !last.isEmpty, last != "/" { return DisplayText.sanitize(last) }
        if let host = source.host, !host.isEmpty { return DisplayText.sanitize(host) }
        return DisplayText.sanitize(source.absoluteString)
    }
}
