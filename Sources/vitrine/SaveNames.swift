import Foundation
import Gallery
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// File names and folders for saving images (`s`), and the no-overwrite write.
enum SaveNames {
    /// Longest file name written, in UTF-8 bytes (ext4 and most file systems allow 255; room is
    /// left for " (9999)").
    static let maxNameBytes = 200

    /// A safe file name for the image at `url` whose bytes are of `kind` (`ImagePipeline.imageKind`,
    /// for the extension when the name has none): the URL's last path component, percent-decoded,
    /// with `/`, NUL, C0 and C1 controls, DEL and bidi controls replaced by `_`, leading dots and
    /// spaces dropped, cut to ``maxNameBytes`` on a character boundary keeping the extension;
    /// "image" when nothing is left (a URL ending in `/`, `..`, or only dots).
    static func safeName(for url: URL, kind: String?) -> String {
        var raw = url.lastPathComponent
        if url.isFileURL == false, let decoded = raw.removingPercentEncoding { raw = decoded }
        var name = String(String.UnicodeScalarView(raw.unicodeScalars.map { s -> Unicode.Scalar in
            let v = s.value
            let unsafe = v == 0x2F || v == 0x5C || v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v)
                || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C || v == 0xFEFF
            return unsafe ? "_" : s
        }))
        while let first = name.first, first == "." || first == " " { name.removeFirst() }
        while let last = name.last, last == " " { name.removeLast() }
        if name.isEmpty || name.allSatisfy({ $0 == "_" }) { name = "image" }
        var (stem, ext) = split(name)
        if ext.isEmpty, let kind, let known = extensions[kind] { ext = known }
        let room = maxNameBytes - (ext.isEmpty ? 0 : ext.utf8.count + 1)
        if stem.utf8.count > room {
            var cut = ""
            for c in stem {
                if cut.utf8.count + String(c).utf8.count > room { break }
                cut.append(c)
            }
            stem = cut.isEmpty ? "image" : cut
        }
        return ext.isEmpty ? stem : stem + "." + ext
    }

    /// Extensions for names that have none, by image kind.
    static let extensions = ["JPEG": "jpg", "PNG": "png", "GIF": "gif", "WebP": "webp", "TIFF": "tif", "HEIF/AVIF": "heic", "BMP": "bmp"]

    /// `name` as stem and extension ("a.b.jpg" → ("a.b", "jpg")); an extension is 1-10
    /// letters or digits.
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let ext = String(name[name.index(after: dot)...])
        guard (1...10).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return (name, "") }
        return (String(name[..<dot]), ext)
    }

    /// The n-th candidate for `name`: the name itself, then "stem (1).ext", "stem (2).ext", …
    static func candidate(_ name: String, _ n: Int) -> String {
        guard n > 0 else { return name }
        let (stem, ext) = split(name)
        return ext.isEmpty ? "\(stem) (\(n))" : "\(stem) (\(n)).\(ext)"
    }

    enum WriteError: Error, CustomStringConvertible {
        case io(String)
        var description: String { if case .io(let s) = self { return s } else { return "" } }
    }

    /// Writes `data` into `folder` as `name`, or the first free "name (n)" when it is taken:
    /// to a hidden temporary file first (`.vitrine-partial-…`, fsync'd), then linked to the
    /// final name (`link(2)` fails rather than replace an existing file) and the temporary
    /// name removed. A file is never overwritten and never seen half written.
    /// - Returns: the file name used.
    /// - Throws: `WriteError` with the reason (no room, no permission, …); nothing is left behind.
    static func write(_ data: Data, named name: String, in folder: URL) throws(WriteError) -> String {
        let temp = folder.appendingPathComponent(".vitrine-partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io("cannot write in \(folder.path): \(String(cString: strerror(errno)))") }
        var failure: String?
        data.withUnsafeBytes { buffer in
            do throws(POSIXCallError) { try POSIX.writeAll(fd, buffer) } catch { failure = String(cString: strerror(error.code)) }
        }
        if failure == nil && fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        defer { unlink(temp.path) }
        if let failure { throw .io(failure) }
        for n in 0..<10_000 {
            let final = candidate(name, n)
            if link(temp.path, folder.appendingPathComponent(final).path) == 0 { return final }
            if errno != EEXIST { throw .io("cannot name the file \(final): \(String(cString: strerror(errno)))") }
        }
        throw .io("10,000 files named like \(name) already")
    }

    /// The folder `s` saves to: `--save-dir` when given; else `XDG_DOWNLOAD_DIR` from
    /// `$XDG_CONFIG_HOME/user-dirs.dirs` (default `~/.config`), else `~/Downloads`, else the
    /// working folder — the first that is a folder.
    static func folder(option: String?, environment: [String: String]) -> URL {
        if let option { return URL(fileURLWithPath: option, isDirectory: true) }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        var candidates: [String] = []
        if let text = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8),
            let dir = downloadDir(inUserDirs: text, home: home)
        {
            candidates.append(dir)
        }
        candidates.append(home + "/Downloads")
        for path in candidates where isDirectory(path) { return URL(fileURLWithPath: path, isDirectory: true) }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    }

    /// `XDG_DOWNLOAD_DIR` from the text of a `user-dirs.dirs` file (lines like
    /// `XDG_DOWNLOAD_DIR="$HOME/Downloads"`, as xdg-user-dirs writes them: `$HOME/` or an
    /// absolute path, in double quotes), or nil.
    static func downloadDir(inUserDirs text: String, home: String) -> String? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("XDG_DOWNLOAD_DIR=") else { continue }
            var value = String(trimmed.dropFirst("XDG_DOWNLOAD_DIR=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            if value.hasPrefix("$HOME") { value = home + value.dropFirst(5) }
            return value.hasPrefix("/") ? value : nil
        }
        return nil
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
