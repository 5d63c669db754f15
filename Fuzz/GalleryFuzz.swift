// libFuzzer entry for the Gallery module's parsers, built by Fuzz/run.sh together with every
// file of Sources/Gallery as one module (so internal parsers are reachable), with
// `-sanitize=fuzzer,address`. VITRINE_FUZZ picks the target:
//   json     NodeJSONParser and JSONParser (positioned errors)
//   plist    PlistParser, XML and binary
//   path     PathExpression (the --items/--title syntax) and its description
//   url      URLResolver on a string relative to an http base and a file base
//   gallery  GalleryReader.read, the whole way from bytes to items (formats, mapping)
// A crash, a leak, or one input taking over -timeout seconds fails the run.
import Foundation

private let target = ProcessInfo.processInfo.environment["VITRINE_FUZZ"] ?? "json"
private let httpBase = URL(string: "http://127.0.0.1:8000/galleries/g.json")!
private let fileBase = URL(fileURLWithPath: "/srv/galleries/g.json")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGallery(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    switch target {
    case "json":
        _ = start.withMemoryRebound(to: UInt8.self, capacity: count) {
            NodeJSONParser.parse(UnsafeBufferPointer(start: $0, count: count))
        }
        _ = try? JSONParser.parse(data, source: "fuzz.json")
    case "plist":
        _ = try? PlistParser.parse(data, source: "fuzz.plist", binary: data.starts(with: Array("bplist".utf8)))
    case "path":
        let text = String(decoding: data, as: UTF8.self)
        if let expression = try? PathExpression(text) { _ = expression.description }
    case "url":
        let text = String(decoding: data, as: UTF8.self)
        for base in [httpBase, fileBase] {
            let resolved = URLResolver(base: base).resolve(text, at: .root)
            _ = resolved?.string
        }
    case "gallery":
        if let gallery = try? GalleryReader.read(data, source: httpBase) {
            for item in gallery.items.prefix(64) { _ = (item.title, item.fileName, item.thumbnailURL) }
            _ = gallery.nextPageLink(after: httpBase)
        }
    default:
        fatalError("VITRINE_FUZZ=\(target): no such target")
    }
    return 0
}
