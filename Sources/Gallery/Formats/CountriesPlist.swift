/// Apple's classic "Countries" sample: a property list (XML or binary) whose `countries` key
/// holds an array of `{name, url}` dictionaries.
///
/// ```xml
/// <dict><key>countries</key><array>
///   <dict><key>name</key><string>France</string><key>url</key><string>flags/fr.png</string></dict>
/// </array></dict>
/// ```
/// Any key may hold the list (the one whose dictionaries look most like items wins, see
/// ``ItemListFinder``), and a top-level array of such dictionaries works too. `url` is both
/// thumbnail and full image; `title`, `image`, `thumbnail` and the other ``GenericItem`` names
/// are accepted as well. A top-level `title` or `name` string names the gallery.
enum CountriesPlist: FormatReader {
    static let format = GalleryFormat.countriesPlist

    /// A list at the top level (else ``GenericSearch`` looks deeper).
    static func matches(_ root: Node) -> Bool { ItemListFinder.hasTopLevelList(root) }

    static func map(_ root: Cursor, context: MappingContext) throws(MappingError) -> MappedGallery {
        try MappedGallery(
            title: ItemListFinder.title(of: root), elements: try ItemListFinder.find(in: root),
            expected: "a url or image field"
        ) { element throws(MappingError) in try GenericItem.builder(element, context: context) }
    }
}
