import Browse
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Remembered places (`Place`): one small JSON file per gallery under
/// `$XDG_STATE_HOME/vitrine/places/` (default `~/.local/state/vitrine/places/`), named by a
/// hash of the gallery's normalised location, written atomically (a temporary file, then
/// `rename(2)`), at most ``limit`` files (the least recently written go first).
enum PlaceStore {
    /// Most galleries remembered.
    static let limit = 500
    /// Largest place file read, in bytes (a place with 100,000 marks is about 5 MB).
    static let maxBytes = 16 << 20

    /// The file format: the location is stored too, so a hash collision is noticed.
    struct File: Codable {
        var version: Int
        var location: String
        var place: Place
    }

    /// The folder, from `XDG_STATE_HOME` (absolute only, per the XDG spec) or `HOME`.
    static func directory(environment: [String: String]) -> URL {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state).appendingPathComponent("vitrine/places", isDirectory: true)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/vitrine/places", isDirectory: true)
    }

    /// The normalised location of the GALLERY arguments: each as an absolute, symlink-free
    /// path, or a URL with its scheme and host lower-cased and no fragment, one per line;
    /// "demo" for none. Nil when one is `-` (standard input is not a place to come back to).
    static func location(for arguments: [String]) -> String? {
        if arguments.isEmpty { return "demo" }
        var parts: [String] = []
        for argument in arguments {
            if argument == "-" { return nil }
            guard let url = try? GallerySource.url(for: argument) else { return nil }
            if url.isFileURL {
                parts.append(url.standardizedFileURL.resolvingSymlinksInPath().path)
            } else if var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                components.scheme = components.scheme?.lowercased()
                components.host = components.host?.lowercased()
                components.fragment = nil
                parts.append(components.string ?? url.absoluteString)
            }
        }
        return parts.joined(separator: "\n")
    }

    /// The file name for `location`: two FNV-1a 64-bit hashes (different offsets) in hex.
    static func fileName(for location: String) -> String {
        func fnv(_ basis: UInt64) -> UInt64 {
            var h = basis
            for b in location.utf8 {
                h ^= UInt64(b)
                h = h &* 0x100_0000_01b3
            }
            return h
        }
        let a = fnv(0xcbf2_9ce4_8422_2325), b = fnv(0x6c62_272e_07bb_0142)
        return String(format: "%016llx%016llx.json", a, b)
    }

    /// The place remembered for `location`: nil when there is none.
    /// - Throws: a reason, for a file that exists but cannot be used (unreadable, not JSON,
    ///   another version, too large); the caller says so and starts fresh.
    static func load(_ location: String, in directory: URL) throws(PlaceError) -> Place? {
        let path = directory.appendingPathComponent(fileName(for: location)).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw PlaceError(reason: "cannot read it: \(path)") }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxBytes + 1) else { throw PlaceError(reason: "cannot read it: \(path)") }
        if data.count > maxBytes { throw PlaceError(reason: "larger than \(maxBytes >> 20) MB: \(path)") }
        guard let file = try? JSONDecoder().decode(File.self, from: data) else {
            throw PlaceError(reason: "not a place file Vitrine wrote: \(path)")
        }
        guard file.version == 1 else { throw PlaceError(reason: "of another version (\(file.version)): \(path)") }
        return file.location == location ? file.place : nil
    }

    /// Writes `place` for `location` atomically, then removes the oldest files past ``limit``.
    /// - Throws: a reason when the folder or the file cannot be written.
    static func save(_ place: Place, for location: String, in directory: URL) throws(PlaceError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(File(version: 1, location: location, place: place))
            // Data.write(.atomic) writes a temporary file in the folder and renames it.
            try data.write(to: directory.appendingPathComponent(fileName(for: location)), options: .atomic)
        } catch {
            throw PlaceError(reason: "cannot write the place in \(directory.path): \(error.localizedDescription)")
        }
        prune(directory)
    }

    /// Removes the least recently written place files past ``limit``.
    static func prune(_ directory: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let files = names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
        guard files.count > limit else { return }
        let dated = files.map { name -> (String, Double) in
            var info = stat()
            let path = directory.appendingPathComponent(name).path
            let time = stat(path, &info) == 0 ? Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9 : 0
            return (path, time)
        }.sorted { $0.1 < $1.1 }
        for (path, _) in dated.prefix(files.count - limit) { unlink(path) }
    }

    struct PlaceError: Error { var reason: String }
}
