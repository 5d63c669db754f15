import Foundation
import Gallery
import ImagePipeline

/// How the user wants a gallery read: an explicit mapping and/or a forced format.
struct GalleryReadOptions: Equatable {
    var mapping = GalleryMapping()
    var preset: GalleryFormat?
    /// `-R`, `--recursive`: a folder's subfolders are read too.
    var recursive = false

    /// Takes one of the MAPPING options of ``OptionDeclaration/table`` (its long name) and its value.
    /// - Throws: `Failure` 64 for an expression that does not parse (with a caret under the
    ///   column), an unknown preset, or `--preset` together with an item mapping.
    mutating func set(_ flag: String, _ value: String) throws(Failure) {
        if flag == "--preset" {
            do {
                preset = try GalleryFormat(preset: value)
            } catch {
                throw Failure(status: .usage, message: "--preset: \(error)")
            }
        } else {
            let expression: PathExpression
            do {
                expression = try PathExpression(value)
            } catch {
                let pointer = error.pointer.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
                throw Failure(status: .usage, message: "\(flag) '\(value)': \(error)\n\(pointer)")
            }
            switch flag {
            case "--items": mapping.items = expression
            case "--title": mapping.title = expression
            case "--thumb": mapping.thumb = expression
            case "--image": mapping.image = expression
            default: mapping.next = expression
            }
        }
        if let preset, mapping.mapsItems {
            throw Failure(
                status: .usage,
                message: "--preset \(preset.rawValue) cannot be combined with --items, --title, --thumb or --image "
                    + "(a preset reads the items its own way; --next may be combined)")
        }
    }
}

/// What fetching a gallery page gives: its bytes and, when the fetcher can tell, the
/// response's `Link` header (for APIs that page by it).
struct GalleryResponse: Sendable {
    var data: Data
    var linkHeader: String?
}

/// Fetches gallery pages (the seam that tests, and a header-aware pipeline API, plug into).
protocol GalleryFetching: Sendable {
    /// - Throws: `Failure` 66 (no such file, HTTP 404/410), 69 (network), 65 (too large).
    func fetch(_ url: URL) throws(Failure) -> GalleryResponse
}

/// The default fetcher: `ImagePipeline.fetchResponse`, so a gallery gets the same loaders,
/// headers, timeouts and size cap as images, and its `Link` header for paging.
struct PipelineGalleryFetcher: GalleryFetching {
    let pipeline: ImagePipeline

    func fetch(_ url: URL) throws(Failure) -> GalleryResponse {
        try GallerySource.fetch(url, pipeline: pipeline)
    }
}

/// Turns the GALLERY argument into a parsed `Gallery`, before anything is drawn.
enum GallerySource {
    /// One page of a gallery and the URL of the next, if any.
    struct Page: Sendable {
        var gallery: Gallery
        var next: URL?
        /// Why the page's next-page link cannot be followed, when it has one that cannot
        /// (`Gallery.nextPageLink`): the next page fails with it.
        var nextProblem: String? = nil
    }

    /// The URL of the GALLERY argument, or of the demo gallery for nil.
    static func url(for argument: String?) throws(Failure) -> URL {
        if let argument { return try resolve(argument) }
        return try DemoGallery.url()
    }

    /// Fetches and reads the page at `url`, and works out the next page's URL (from the body,
    /// else the `Link` header).
    /// - Parameter progress: whether a big gallery may show ``ReadingProgress`` on stderr (not
    ///   for pages loaded while the browser is up).
    static func page(
        at url: URL, fetcher: some GalleryFetching, reading: GalleryReadOptions, progress: Bool = true
    ) throws(Failure) -> Page {
        var note = progress ? ReadingProgress(url: url, bytes: ReadingProgress.fileSize(url), stage: "reading") : nil
        defer { note?.clear() }
        let response = try fetcher.fetch(url)
        // A picture given where a gallery belongs (by the decoder's own signatures) is a
        // gallery of one: `vitrine http://host/photo.jpg` shows it, as `vitrine photo.jpg` does.
        if ImagePipeline.imageKind(of: response.data) != nil {
            let item = FileGallery.item(url.absoluteString)
            return Page(gallery: Gallery(name: Gallery.displayName(of: url), source: url, items: [item], format: .files), next: nil)
        }
        if let note {
            note.show(stage: "parsing")
        } else if progress {
            note = ReadingProgress(url: url, bytes: response.data.count, stage: "parsing")
        }
        do {
            let gallery = try GalleryReader.read(response.data, source: url, mapping: reading.mapping, preset: reading.preset)
            let link = gallery.nextPageLink(after: url, linkHeader: response.linkHeader)
            return Page(gallery: gallery, next: link.url, nextProblem: link.problem)
        } catch {
            throw Failure(status: .dataError, message: error.description)
        }
    }

    /// Reads up to `maxPages` pages from `url` on, following next-page links, into one gallery.
    ///
    /// Stops early at the last page, or at a next URL already fetched (a loop). A failure on
    /// the first page is thrown; a failure on a later page is returned beside the pages read
    /// so far, so the caller can show them and then report it.
    static func pages(
        from url: URL, maxPages: Int, fetcher: some GalleryFetching, reading: GalleryReadOptions
    ) throws(Failure) -> (gallery: Gallery, failure: Failure?) {
        let first = try page(at: url, fetcher: fetcher, reading: reading)
        var gallery = first.gallery
        var trail = PageTrail(first: url)
        var next = trail.unvisited(first.next)
        var problem = first.nextProblem
        var count = 1
        while count < maxPages {
            guard let pageURL = next else {
                // A link that cannot be followed fails the next page; the pages read stand.
                guard let problem else { break }
                return (gallery, Failure(status: .dataError, message: "page \(count + 1): \(problem)"))
            }
            do {
                let page = try page(at: pageURL, fetcher: fetcher, reading: reading)
                trail.visited(pageURL)
                gallery.append(page: page.gallery)
                next = trail.unvisited(page.next)
                problem = page.nextProblem
                count += 1
            } catch {
                let failure = Failure(status: error.status, message: "page \(count + 1) (\(pageURL.absoluteString)): \(error.message)")
                return (gallery, failure)
            }
        }
        return (gallery, nil)
    }

    /// A URL for a command-line argument: http(s) and file URLs as given, anything else a path
    /// (made absolute against the working directory; with `standardize`, also without `.` and
    /// `..` and marked a directory when it is one).
    /// - Throws: `Failure` (usage) for a malformed URL or an unsupported scheme.
    static func resolve(_ argument: String, standardize: Bool = true) throws(Failure) -> URL {
        let lower = argument.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("file:") || lower.hasPrefix("data:") {
            guard let url = URL(string: argument), url.scheme != nil,
                !lower.hasPrefix("http") || !(url.host ?? "").isEmpty
            else {
                throw Failure(status: .usage, message: "not a valid URL: \(DisplayText.sanitize(argument))")
            }
            return url
        }
        if lower.contains("://") {
            throw Failure(status: .usage, message: "unsupported URL scheme: \(argument) (use http, https or file)")
        }
        // `render` reads the file once and keys nothing on its URL: no stat for a trailing
        // slash and no standardizing (measurable in a 1x1 render's 3 ms, issue 14).
        if !standardize { return URL(fileURLWithPath: argument, isDirectory: false) }
        return URL(fileURLWithPath: argument).standardizedFileURL
    }

    /// Reads the bytes behind `url`, waiting for them (the UI is not up yet).
    static func fetch(_ url: URL, pipeline: ImagePipeline) throws(Failure) -> GalleryResponse {
        if url.isFileURL {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw Failure(status: .noInput, message: "\(url.path): no such file")
            }
            if isDirectory.boolValue { throw Failure(status: .noInput, message: "\(url.path): is a directory") }
        }
        let result = Synchronous.wait { done in pipeline.fetchResponse(for: url, completion: done) }
        switch result {
        case .success(let response): return GalleryResponse(data: response.data, linkHeader: response.headers["link"])
        case .failure(let error):
            let name = url.isFileURL ? url.path : url.absoluteString
            let status = ExitStatus(for: error)
            switch error {
            case .responseTooLarge(let limit):
                throw Failure(status: status, message: "\(name): gallery larger than the \(ByteSize.describe(limit)) limit")
            case _ where status == .unavailable && error != .notCached:
                // A gallery fetched before is in the disk cache: say how to open it.
                throw Failure(status: status, message: "\(name): \(error) (--offline opens the copy in the disk cache, if any)")
            default:
                throw Failure(status: status, message: "\(name): \(error)")
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

/// A one-line note on stderr while a big gallery is read and parsed, since nothing else is
/// drawn until it is (`reading g1m.json: 53 MB…`, then `parsing g1m.json: 53 MB…`), cleared
/// once the gallery is read. Only for galleries over ``threshold`` bytes, and only when stderr
/// is a terminal: logs and pipes get nothing.
struct ReadingProgress {
    /// Smaller galleries read in well under a second.
    static let threshold = 8 << 20

    private let label: String

    /// Shows the note at `stage`; nil (nothing shown) when `bytes` is unknown or under the
    /// threshold, or stderr is not a terminal.
    init?(url: URL, bytes: Int?, stage: String, isTerminal: Bool = isatty(2) == 1) {
        guard let bytes, bytes > Self.threshold, isTerminal else { return nil }
        let name = url.isFileURL ? url.lastPathComponent : (url.lastPathComponent.isEmpty ? url.host ?? "gallery" : url.lastPathComponent)
        label = "\(DisplayText.sanitize(name)): \((bytes + (1 << 19)) >> 20) MB…"
        show(stage: stage)
    }

    /// Rewrites the line: "\r<stage> <name>: <size> MB…", the rest of the line erased.
    func show(stage: String) {
        Output.control(.lineStart)
        Output.err("\(stage) \(label)")
        Output.control(.eraseLine)
    }

    /// Erases the line, leaving the cursor at its start.
    func clear() {
        Output.control(.lineStart)
        Output.control(.eraseLine)
    }

    /// The size of a regular file behind a file: URL; nil otherwise.
    static func fileSize(_ url: URL) -> Int? {
        guard url.isFileURL, let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }
}

/// The pages of a gallery fetched so far, so that paging stops at a next-page link to one of
/// them (a loop: a server answering every page with the same `next`). Shared by `list --pages`
/// and the browser's `PageLoader`. URLs are compared absolute.
struct PageTrail {
    private var seen: Set<URL>

    /// A trail that starts with the gallery's first page.
    init(first: URL) { seen = [first.absoluteURL] }

    /// Records `url` as fetched (after it was read: a page that failed may be retried).
    mutating func visited(_ url: URL) { seen.insert(url.absoluteURL) }

    /// `next`, unless it is nil or a page already fetched.
    func unvisited(_ next: URL?) -> URL? {
        guard let next, !seen.contains(next.absoluteURL) else { return nil }
        return next
    }
}
