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
        write(gallery.items, as: options.output)
        if let failure { throw failure }
    }

    /// Prints `items` to stdout in `output`'s format, streamed in 64 KiB chunks (a million
    /// items cost one chunk of memory beyond the items themselves, in JSON as in TSV). Every
    /// field goes through ``DisplayText/sanitize(_:)`` on the way out (titles and problems were
    /// sanitized when read; URLs and file names are checked here too: this is the output
    /// boundary).
    static func write(_ items: [GalleryItem], as output: ListOutput) {
        var writer = ChunkWriter()
        switch output {
        case .tsv:
            for item in items {
                writer.append(DisplayText.sanitize(item.title))
                writer.append("\t")
                writer.append(DisplayText.sanitize(item.thumbnailURLString ?? ""))
                writer.append("\t")
                writer.append(DisplayText.sanitize(item.imageURLString ?? ""))
                writer.append("\t")
                writer.append(DisplayText.sanitize(item.problem ?? ""))
                writer.append("\n")
            }
        case .json:
            // The layout of JSONSerialization's .prettyPrinted with .sortedKeys, which this
            // output had before it was streamed: keys image, problem (only when there is one),
            // thumbnail, title.
            if items.isEmpty {
                writer.append("[\n\n]\n")
                break
            }
            writer.append("[\n")
            for (index, item) in items.enumerated() {
                writer.append(index == 0 ? "  {\n" : ",\n  {\n")
                writer.member("image", item.imageURLString ?? "")
                if let problem = item.problem { writer.member("problem", problem) }
                writer.member("thumbnail", item.thumbnailURLString ?? "")
                writer.member("title", item.title, last: true)
                writer.append("  }")
            }
            writer.append("\n]\n")
        }
        writer.flush()
    }
}

/// Bytes for stdout, written whenever 64 KiB have gathered.
struct ChunkWriter {
    private var buffer: [UInt8] = []
    static let chunkBytes = 1 << 16

    init() { buffer.reserveCapacity(Self.chunkBytes + 4096) }

    /// Appends `text` as it is (the caller sanitized it, or it is Vitrine's own).
    mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.chunkBytes { flush() }
    }

    /// Appends `    "key" : "value"` and `,` unless `last`, then a line feed; the value is
    /// sanitized and JSON-escaped (RFC 8259 section 7: quote, backslash, and controls; `/` is
    /// left alone).
    mutating func member(_ key: String, _ value: String, last: Bool = false) {
        append("    \"\(key)\" : \"")
        for byte in DisplayText.sanitize(value).utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): buffer.append(contentsOf: #"\\"#.utf8)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: #"\u00"#.utf8)
                buffer.append(hex[Int(byte >> 4)])
                buffer.append(hex[Int(byte & 15)])
            default: buffer.append(byte)
            }
        }
        append(last ? "\"\n" : "\",\n")
    }

    /// Writes what has gathered.
    mutating func flush() {
        Output.outSanitized(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
