/// Which reader recognised a gallery. The raw value is a stable, lowercase-camel name fit for
/// `vitrine list --output json` and logs.
public enum GalleryFormat: String, Sendable, CaseIterable {
    /// Apple's classic "Countries" sample plist (XML or binary): a key holding an array of
    /// `{name, url}` dictionaries, or such an array at the top level.
    case countriesPlist
    /// JSON: a top-level array of objects with a title/name and a url/image/thumbnail field (or
    /// of bare URL strings), or an object holding one such array (`{"items": [...]}`).
    case plainArray
    /// The DeviantArt API v1 gallery response (`/api/v1/oauth2/gallery/...`): `results[]` with
    /// `content`, `preview` and `thumbs[]`, paged by `has_more` / `next_offset`.
    case deviantArt
    /// A Reddit listing (`/r/{sub}.json`, `/user/{name}/submitted.json`, a post page): posts
    /// under `data.children[].data`; gallery posts give one item per picture.
    case reddit
    /// An Imgur API v3 album (`/3/album/{id}`, `/3/gallery/album/{id}`) or album images list.
    case imgur
    /// A IIIF Presentation 2.x manifest (`sequences[0].canvases[]`).
    case iiifV2
    /// A IIIF Presentation 3.0 manifest (`items[]` of canvases, language-map labels).
    case iiifV3
    /// Unsplash API photos: a search response (`results[]`, `total_pages`) or a bare array.
    case unsplash
    /// Flickr API responses with `photos.photo[]` or `photoset.photo[]`.
    case flickr
    /// JSON Feed 1.0 / 1.1 (`version` `https://jsonfeed.org/version/1.1`).
    case jsonFeed
    /// MediaWiki Action API `prop=imageinfo` results (`query.pages`, object or array).
    case mediaWiki
    /// An array of Mastodon statuses (a timeline); one item per media attachment.
    case mastodon
    /// The iTunes / Apple RSS JSON feed (`feed.entry[]` with `im:name`, `im:image`).
    case iTunesRSS
    /// None of the above: the array of objects carrying image URLs was found by searching the
    /// whole tree, with ``GenericItem``'s field names.
    case generic
    /// Read by an explicit ``GalleryMapping`` (`--items`, `--title`, ...). Not a preset.
    case mapped
    /// A text list: one image path or URL per line (``TextList``). Not a preset.
    case textList
    /// The images of a folder, or of paths and URLs given one by one on the command line.
    /// Made by the caller (``Gallery/init(name:source:items:format:nextPage:)``); not a preset.
    case files

    /// The formats `--preset` can force: every case but ``mapped``, ``textList`` and ``files``.
    public static var presets: [GalleryFormat] { allCases.filter { $0 != .mapped && $0 != .textList && $0 != .files } }

    /// The preset called `name` (a raw value; case and `-`/`_` are ignored, so `iiif-v3` and
    /// `itunesrss` work).
    /// - Throws: ``UnknownPreset``, whose description lists the valid names.
    public init(preset name: String) throws(UnknownPreset) {
        func fold(_ s: String) -> String { s.lowercased().filter { $0 != "-" && $0 != "_" } }
        guard let format = GalleryFormat.presets.first(where: { fold($0.rawValue) == fold(name) }) else {
            throw UnknownPreset(name: name)
        }
        self = format
    }

    /// A `--preset` name that is not one.
    public struct UnknownPreset: Error, Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var description: String {
            "unknown preset '\(DisplayText.sanitize(name))' (valid: "
                + GalleryFormat.presets.map(\.rawValue).joined(separator: ", ") + ")"
        }
    }
}
