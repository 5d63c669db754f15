import Foundation
import Gallery
import ImagePipeline

/// Turns the GALLERY argument into a parsed `Gallery`, before anything is drawn.
enum GallerySource {
    /// Reads and parses the gallery named by `argument` (a path, a file: URL or an http(s) URL;
    /// nil: the demo gallery).
    /// - Throws: `Failure` 66 (no such file, HTTP 404/410), 69 (network), 65 (bad data).
    static func load(_ argument: String?, pipeline: ImagePipeline) throws(Failure) -> Gallery {
        let url: URL
        if let argument {
            url = try resolve(argument)
        } else {
            url = try DemoGallery.url()
        }
        let data = try fetch(url, pipeline: pipeline)
        do {
            return try GalleryReader.read(data, source: url)
        } catch {
            throw Failure(status: .dataError, message: error.description)
        }
    }

    /// A URL for a command-line argument: http(s) and file URLs as given, anything else a path.
    static func resolve(_ argument: String) throws(Failure) -> URL {
        let lower = argument.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("file:") || lower.hasPrefix("data:") {
            guard let url = URL(string: argument), url.scheme != nil else {
                throw Failure(status: .usage, message: "not a valid URL: \(argument)")
            }
            return url
        }
        if lower.contains("://") {
            throw Failure(status: .usage, message: "unsupported URL scheme: \(argument) (use http, https or file)")
        }
        return URL(fileURLWithPath: argument).standardizedFileURL
    }

    /// Reads the bytes behind `url`, waiting for them (the UI is not up yet).
    static func fetch(_ url: URL, pipeline: ImagePipeline) throws(Failure) -> Data {
        if url.isFileURL {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw Failure(status: .noInput, message: "\(url.path): no such file")
            }
            if isDirectory.boolValue { throw Failure(status: .noInput, message: "\(url.path): is a directory") }
        }
        let result = Synchronous.wait { done in pipeline.fetchData(for: url, completion: done) }
        switch result {
        case .success(let data): return data
        case .failure(let error):
            let name = url.isFileURL ? url.path : url.absoluteString
            switch error {
            case .httpStatus(404), .httpStatus(410), .file:
                throw Failure(status: .noInput, message: "\(name): \(error)")
            case .responseTooLarge:
                throw Failure(status: .dataError, message: "\(name): \(error)")
            default:
                throw Failure(status: .unavailable, message: "\(name): \(error)")
            }
        }
    }
}

/// Blocks the calling thread until a completion-handler API answers (only before the UI starts,
/// and in the one-shot `render` and `list` commands).
enum Synchronous {
    static func wait<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        start { value in
            box.set(value)
            semaphore.signal()
        }
        semaphore.wait()
        return box.get()!
    }

    final class ResultBox<T: Sendable>: @unchecked Sendable {
        // @unchecked: written once before the semaphore signals, read after it.
        private let lock = NSLock()
        private var value: T?
        func set(_ v: T) { lock.withLock { value = v } }
        func get() -> T? { lock.withLock { value } }
    }
}

/// Finds the demo gallery shipped in Resources/demo, without `Bundle.module` (which kills the
/// process when the resource folder is missing).
enum DemoGallery {
    /// Looked up beside the executable (`swift build` puts `Vitrine_vitrine.resources/demo`
    /// there), then in `../share/vitrine/demo` (`make install`), then `$VITRINE_DEMO`.
    static func url() throws(Failure) -> URL {
        var candidates: [String] = []
        if let demo = ProcessInfo.processInfo.environment["VITRINE_DEMO"] { candidates.append(demo) }
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let dir = exe.deletingLastPathComponent()
        candidates.append(dir.appendingPathComponent("Vitrine_vitrine.resources/demo").path)
        candidates.append(dir.deletingLastPathComponent().appendingPathComponent("share/vitrine/demo").path)
        for candidate in candidates {
            let plist = URL(fileURLWithPath: candidate).appendingPathComponent("gallery.plist")
            if FileManager.default.fileExists(atPath: plist.path) { return plist }
        }
        throw Failure(
            status: .noInput,
            message: "demo gallery not found (looked in \(candidates.joined(separator: ", "))); pass a GALLERY")
    }
}
