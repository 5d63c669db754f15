import Foundation
import Gallery
import ImagePipeline

/// `vitrine list` options.
struct ListOptions: Equatable {
    var output = ListOutput.tsv
    /// Pages to fetch at most (`--pages`), following the gallery's next-page links.
    var pages = 1
    var reading = GalleryReadOptions()

    static let maxPages = 1000
}

/// `vitrine list GALLERY`: prints the items found, so a gallery's mapping can be checked
/// without the TUI. TSV: title, thumbnail URL, image URL per line (tabs and newlines in titles
/// are already folded to spaces by sanitising). JSON: an array of objects with those keys.
///
/// With `--pages N`, up to N pages are read and printed as one list; when a later page fails,
/// the items read so far are printed and then the failure is reported (with its status).
enum ListCommand {
    static func run(gallery argument: String, options: ListOptions) throws(Failure) {
        let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(memoryCacheBytes: 0))
        let url = try GallerySource.url(for: argument)
        let (gallery, failure) = try GallerySource.pages(
            from: url, maxPages: options.pages, fetcher: PipelineGalleryFetcher(pipeline: pipeline), reading: options.reading)
        try write(gallery.items, as: options.output)
        if let failure { throw failure }
    }

    static func write(_ items: [GalleryItem], as output: ListOutput) throws(Failure) {
        var text = ""
        switch output {
        case .tsv:
            text.reserveCapacity(items.count * 96)
            for item in items {
                text += "\(item.title)\t\(item.thumbnailURL?.absoluteString ?? "")\t\(item.imageURL?.absoluteString ?? "")\n"
            }
        case .json:
            let objects: [[String: String]] = items.map {
                ["title": $0.title, "thumbnail": $0.thumbnailURL?.absoluteString ?? "", "image": $0.imageURL?.absoluteString ?? ""]
            }
            guard let data = try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys]) else {
                throw Failure(status: .software, message: "could not encode the item list")
            }
            text = String(decoding: data, as: UTF8.self) + "\n"
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
