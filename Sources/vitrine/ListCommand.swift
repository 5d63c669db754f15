import Foundation
import Gallery
import ImagePipeline

/// `vitrine list` options.
struct ListOptions: Equatable {
    var output = ListOutput.tsv
    /// Pages to fetch at most (`--pages`), following the gallery's next-page links.
    var pages = 1
    var reading = GalleryReadOptions()
    /// `--header` (galleries behind a token), `--offline` (the copy in the disk cache) and the
    /// other loading options; the disk cache is read only with `--offline`.
    var loading = LoadingOptions()

    static let maxPages = 1000
}

/// `vitrine list GALLERY`: prints the items found, so a gallery's mapping can be checked
/// without the TUI. TSV: title, thumbnail URL, image URL and problem per line, the problem
/// empty unless the item's URL cannot be used ("file: URL in a gallery read over http"; its
/// URLs are empty then); tabs and newlines in titles and problems are already folded to spaces
/// by sanitising. JSON: an array of objects with keys title, thumbnail, image, and problem
/// only for items that have one.
///
/// With `--pages N`, up to N pages are read and printed as one list; when a later page fails,
/// the items read so far are printed and then the failure is reported (with its status).
enum ListCommand {
    static func run(galleries arguments: [String], options: ListOptions) throws(Failure) {
        var configuration = ImagePipeline.Configuration(memoryCacheBytes: 0)
        options.loading.apply(to: &configuration)
        // A gallery is read from the disk cache only offline (online, list always asks the server).
        if options.loading.offline && options.loading.diskCache {
            configuration.diskCacheDirectory = DiskCache.defaultDirectory(environment: ProcessInfo.processInfo.environment)
        }
        let pipeline = ImagePipeline(configuration: configuration)
        let fetcher = PipelineGalleryFetcher(pipeline: pipeline)
        let gallery: Gallery
        var failure: Failure?
        if arguments.count == 1, arguments[0] != "-", case let url = try GallerySource.url(for: arguments[0]),
            !url.isFileURL || FileGallery.kind(of: url.path) != .directory
        {
            (gallery, failure) = try GallerySource.pages(from: url, maxPages: options.pages, fetcher: fetcher, reading: options.reading)
        } else {
            // A folder, standard input or several arguments: no pages to follow.
            gallery = try FileGallery.open(arguments, fetcher: fetcher, reading: options.reading).gallery
        }
        try write(gallery.items, as: options.output)
        if let failure { throw failure }
    }

    static func write(_ items: [GalleryItem], as output: ListOutput) throws(Failure) {
        var text = ""
        switch output {
        case .tsv:
            // Written in chunks: the whole list as one string, then as bytes, would cost a big
            // gallery twice its listing in memory.
            text.reserveCapacity(1 << 16)
            for item in items {
                text += item.title
                text += "\t" + (item.thumbnailURLString ?? "")
                text += "\t" + (item.imageURLString ?? "")
                text += "\t" + (item.problem ?? "") + "\n"
                if text.utf8.count >= 1 << 16 {
                    FileHandle.standardOutput.write(Data(text.utf8))
                    text.removeAll(keepingCapacity: true)
                }
            }
        case .json:
            let objects: [[String: String]] = items.map {
                var object = ["title": $0.title, "thumbnail": $0.thumbnailURLString ?? "", "image": $0.imageURLString ?? ""]
                if let problem = $0.problem { object["problem"] = problem }
                return object
            }
            guard let data = try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
                throw Failure(status: .software, message: "could not encode the item list")
            }
            text = String(decoding: data, as: UTF8.self) + "\n"
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
