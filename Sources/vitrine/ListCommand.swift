import Foundation
import Gallery
import ImagePipeline

/// `vitrine list GALLERY`: prints the items found, so a gallery's mapping can be checked
/// without the TUI. TSV: title, thumbnail URL, image URL per line (tabs and newlines in titles
/// are already folded to spaces by sanitising). JSON: an array of objects with those keys.
enum ListCommand {
    static func run(gallery argument: String, output: ListOutput) throws(Failure) {
        let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(memoryCacheBytes: 0))
        let gallery = try GallerySource.load(argument, pipeline: pipeline)
        var text = ""
        switch output {
        case .tsv:
            for item in gallery.items {
                text += "\(item.title)\t\(item.thumbnailURL?.absoluteString ?? "")\t\(item.imageURL?.absoluteString ?? "")\n"
            }
        case .json:
            let objects: [[String: String]] = gallery.items.map {
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
