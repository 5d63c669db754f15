import Foundation
import Gallery
import ImagePipeline

#if canImport(Glibc)
import Glibc
#endif

/// Galleries with no gallery file: a folder of images, images and galleries named one by one
/// on the command line (`vitrine *.jpg`), or a list read from standard input (`vitrine -`).
///
/// Images are told by their first bytes (``ImagePipeline/imageKind(of:)``), never by their
/// names: a folder's `notes.txt` is skipped, a `photo` with no extension is shown.
enum FileGallery {
    /// Largest list read from standard input, in bytes (as for a gallery file).
    static let maxStandardInputBytes = 64 << 20
    /// The bytes read from each file to tell an image (the longest signature is 12).
    static let sniffBytes = 16

    /// The gallery for the GALLERY arguments: one gallery file or URL as before (with its
    /// pages); `-` (standard input: a text list or a gallery); a folder; one image; or several
    /// of these, whose items are shown one after the other in the order given.
    ///
    /// With several arguments a gallery that cannot be read becomes one row that says why, so
    /// the rest still open; a path that does not exist becomes a row that fails as
    /// "no such file" when it is loaded.
    /// - Throws: `Failure` 64 (`-` with a terminal on standard input), 66 (no such file, an
    ///   empty folder), 65/69 for a single gallery that cannot be read (as ``GallerySource``).
    static func open(
        _ arguments: [String], fetcher: some GalleryFetching, reading: GalleryReadOptions
    ) throws(Failure) -> GallerySource.Page {
        guard arguments.count != 1 else { return try single(arguments[0], fetcher: fetcher, reading: reading) }
        guard !arguments.isEmpty else {
            return try GallerySource.page(at: try DemoGallery.url(), fetcher: fetcher, reading: reading)
        }
        var items: [GalleryItem] = []
        for argument in arguments {
            items += try self.items(of: argument, fetcher: fetcher, reading: reading)
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let name = "\(arguments.count) arguments"
        return GallerySource.Page(gallery: Gallery(name: name, source: cwd, items: items, format: .files), next: nil)
    }

    /// One argument, which may page.
    private static func single(
        _ argument: String, fetcher: some GalleryFetching, reading: GalleryReadOptions
    ) throws(Failure) -> GallerySource.Page {
        if argument == "-" { return GallerySource.Page(gallery: try standardInput(reading: reading), next: nil) }
        let url = try GallerySource.url(for: argument)
        if url.isFileURL {
            switch kind(of: url.path) {
            case .directory:
                return GallerySource.Page(gallery: try folder(url, recursive: reading.recursive), next: nil)
            case .image:
                let gallery = Gallery(
                    name: Gallery.displayName(of: url), source: url, items: [item(url.absoluteString)], format: .files)
                return GallerySource.Page(gallery: gallery, next: nil)
            case .other, .missing:
                break
            }
        }
        return try GallerySource.page(at: url, fetcher: fetcher, reading: reading)
    }

    /// The items one of several arguments stands for.
    private static func items(
        of argument: String, fetcher: some GalleryFetching, reading: GalleryReadOptions
    ) throws(Failure) -> [GalleryItem] {
        if argument == "-" { return try standardInput(reading: reading).items }
        let url = try GallerySource.url(for: argument)
        if url.isFileURL {
            switch kind(of: url.path) {
            case .directory: return try folder(url, recursive: reading.recursive).items
            case .image, .missing: return [item(url.absoluteString)]
            case .other: break
            }
        } else if TextList.looksLikeLocation(url.path), TextList.imageExtensions.contains(url.pathExtension.lowercased()) {
            // An image URL by its name: shown as it is, with no request before the browser starts.
            return [item(url.absoluteString)]
        }
        do {
            return try GallerySource.page(at: url, fetcher: fetcher, reading: reading).gallery.items
        } catch {
            // A gallery that cannot be read is a row that says why; the other arguments open.
            return [GalleryItem(title: argument, thumbnail: nil, image: nil, problem: error.message)]
        }
    }

    /// A row for an image at `location` (an absolute URL string), titled by its file name.
    static func item(_ location: String) -> GalleryItem {
        GalleryItem(title: TextList.title(of: location), thumbnail: location, image: location)
    }

    enum Kind { case directory, image, other, missing }

    /// What is at `path`: a folder, an image (by its first bytes), another file, or nothing.
    static func kind(of path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return isImage(path) ? .image : .other
        default: return .other
        }
    }

    /// Whether the regular file at `path` starts with an image signature.
    static func isImage(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var buffer = [UInt8](repeating: 0, count: sniffBytes)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, sniffBytes) }
        guard n > 0 else { return false }
        return ImagePipeline.imageKind(of: Data(buffer[0..<n])) != nil
    }

    /// The images in the folder at `url`, in natural order of their paths below it (`img2`
    /// before `img10`); with `recursive`, those of its subfolders too (titled `sub/name`).
    /// Names starting with `.` are skipped; links to folders are not followed (no loops).
    /// - Throws: `Failure` 66 when the folder cannot be read or holds no image.
    static func folder(_ url: URL, recursive: Bool) throws(Failure) -> Gallery {
        let root = url.standardizedFileURL
        var found: [(relative: String, url: URL)] = []
        var pending: [(relative: String, url: URL)] = [("", root)]
        var first = true
        while let (prefix, directory) = pending.popLast() {
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            } catch {
                if first { throw Failure(status: .noInput, message: "\(DisplayText.sanitize(root.path)): cannot read this folder") }
                continue
            }
            first = false
            for name in names where !name.hasPrefix(".") {
                let child = directory.appendingPathComponent(name)
                let relative = prefix.isEmpty ? name : prefix + "/" + name
                var linkInfo = stat()
                guard lstat(child.path, &linkInfo) == 0 else { continue }
                let isLink = linkInfo.st_mode & S_IFMT == S_IFLNK
                switch kind(of: child.path) {
                case .image: found.append((relative, child))
                case .directory where recursive && !isLink: pending.append((relative, child))
                default: continue
                }
            }
        }
        guard !found.isEmpty else {
            let hint = recursive ? "" : " (-R looks in subfolders too)"
            throw Failure(status: .noInput, message: "\(DisplayText.sanitize(root.path)): no images in this folder\(hint)")
        }
        found.sort { NaturalOrder.less($0.relative, $1.relative) }
        let items = found.map { entry in
            // Titled by the path below the folder, without the extension: `sub/deep`.
            let folder = entry.relative.split(separator: "/").dropLast().joined(separator: "/")
            let name = TextList.title(of: entry.url.lastPathComponent)
            return GalleryItem(
                title: folder.isEmpty ? name : folder + "/" + name, thumbnail: entry.url.absoluteString,
                image: entry.url.absoluteString)
        }
        let name = root.lastPathComponent.isEmpty ? root.path : root.lastPathComponent + "/"
        return Gallery(name: name, source: root.appendingPathComponent(""), items: items, format: .files)
    }

    /// A gallery read from standard input (`-`): a text list of paths and URLs, or any gallery
    /// Vitrine reads from a file; relative paths resolve against the working directory.
    /// - Throws: `Failure` 64 when standard input is a terminal, 65 for data that is no
    ///   gallery or too large.
    static func standardInput(reading: GalleryReadOptions) throws(Failure) -> Gallery {
        guard isatty(0) != 1 else {
            throw Failure(
                status: .usage,
                message: "'-' reads a list of images from standard input, which is a terminal (pipe one in: find . -name '*.jpg' | vitrine -)")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, 1 << 16) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
            if data.count > maxStandardInputBytes {
                throw Failure(status: .dataError, message: "standard input: larger than the \(ByteSize.describe(maxStandardInputBytes)) limit for a gallery")
            }
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let source = cwd.appendingPathComponent("stdin")
        do {
            // A list whatever its first line is (`find` prints `pics/a` with no extension), unless
            // it opens like a JSON or plist gallery or a mapping says how to read it.
            let list = !reading.mapping.mapsItems && reading.preset == nil && !TextList.opensLikeGallery(data)
            var gallery =
                try list
                ? TextList.read(data, source: source)
                : GalleryReader.read(data, source: source, mapping: reading.mapping, preset: reading.preset)
            if gallery.name == "stdin" { gallery.name = "standard input" }
            return gallery
        } catch {
            throw Failure(status: .dataError, message: error.description)
        }
    }
}

/// The terminal the browser draws on when standard input or output is redirected
/// (`find . | vitrine -`, `vitrine pick g.json | xargs …`): `/dev/tty`, put in their place, as
/// fzf and nsxiv do.
enum ControllingTerminal {
    /// Points file descriptors 0 and 1, where they are not a terminal, at `/dev/tty`; returns a
    /// duplicate of the original standard output when it was redirected (for output written
    /// after the screen closes), else nil.
    /// - Throws: `Failure` 64 when there is no controlling terminal at all.
    static func attach() throws(Failure) -> Int32? {
        if isatty(0) == 1 && isatty(1) == 1 { return nil }
        let tty = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw Failure(status: .usage, message: "the browser needs a terminal, and this process has none (no /dev/tty); try vitrine list")
        }
        defer { Glibc.close(tty) }
        var savedOutput: Int32?
        if isatty(1) != 1 {
            savedOutput = fcntl(1, F_DUPFD_CLOEXEC, 3)
            guard dup2(tty, 1) >= 0 else { throw Failure(status: .software, message: "cannot attach the terminal to standard output") }
        }
        if isatty(0) != 1 {
            guard dup2(tty, 0) >= 0 else { throw Failure(status: .software, message: "cannot attach the terminal to standard input") }
        }
        return savedOutput
    }
}
