import Foundation
import ImagePipeline

/// The image pipeline's command-line settings: cache sizes, cache use, per-host limit, headers.
struct LoadingOptions: Equatable {
    /// `--memory-cache SIZE`: decoded thumbnails kept in memory, in bytes (nil: the default).
    var memoryCacheBytes: Int?
    /// `--disk-cache SIZE`: downloaded bytes kept on disk, in bytes (nil: the default).
    var diskCacheBytes: Int?
    /// `--no-disk-cache`: keep nothing on disk (and read nothing from it).
    var diskCache = true
    /// `--reload`: download every image again instead of reading the disk cache.
    var reload = false
    /// `--offline`: use only the disk cache; rows it lacks fail as "not cached".
    var offline = false
    /// `--max-per-host N`: loads running at once against one host.
    var maxPerHost: Int?
    /// `--header 'HOST: NAME: VALUE'`, repeatable: request headers per lower-cased host.
    var headers: [String: [String: String]] = [:]

    /// Takes one of the LOADING options of ``OptionDeclaration/table`` (its long name) and its value.
    /// - Throws: `Failure` 64 with the expected form, or when `--offline` meets `--reload` or
    ///   `--no-disk-cache` (offline reads only the disk cache, which those two leave unread).
    mutating func set(_ flag: String, _ value: String?) throws(Failure) {
        func usage(_ text: String) -> Failure { Failure(status: .usage, message: "\(text)\nTry 'vitrine --help'.") }
        switch flag {
        case "--reload": reload = true
        case "--no-disk-cache": diskCache = false
        case "--offline": offline = true
        case "--memory-cache", "--disk-cache":
            guard let bytes = ByteSize.parse(value ?? "") else {
                throw usage("\(flag) takes a size like 64M, 1G or 500000 (bytes), not '\(value ?? "")'")
            }
            if flag == "--memory-cache" { memoryCacheBytes = bytes } else { diskCacheBytes = bytes }
        case "--max-per-host":
            guard let n = Int(value ?? ""), (1...64).contains(n) else {
                throw usage("--max-per-host takes a number from 1 to 64, not '\(value ?? "")'")
            }
            maxPerHost = n
        case "--header":
            // Split at ": " (colon and space), so a host may carry a port and a value colons.
            let parts = (value ?? "").components(separatedBy: ": ")
            guard parts.count >= 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[1].contains(" "),
                !(value ?? "").contains("\r"), !(value ?? "").contains("\n")
            else {
                throw usage("--header takes 'HOST: NAME: VALUE', like 'api.example.org: Authorization: Bearer x'")
            }
            // Headers apply per host name, whatever the port.
            let host = parts[0].split(separator: ":").first.map(String.init)?.lowercased() ?? parts[0]
            headers[host, default: [:]][parts[1]] = parts[2...].joined(separator: ": ")
        default:
            break
        }
        if offline && (reload || !diskCache) {
            throw usage("--offline reads only the disk cache: it cannot be combined with \(reload ? "--reload" : "--no-disk-cache")")
        }
    }

    /// Applies these settings to a pipeline configuration.
    func apply(to configuration: inout ImagePipeline.Configuration) {
        if let memoryCacheBytes { configuration.memoryCacheBytes = memoryCacheBytes }
        if let diskCacheBytes { configuration.diskCacheBytes = diskCacheBytes }
        if let maxPerHost { configuration.maxConcurrentLoadsPerHost = maxPerHost }
        configuration.readsDiskCache = !reload
        configuration.offline = offline
        configuration.headers = headers
        configuration.userAgent = Self.userAgent
    }

    /// `User-Agent: vitrine/VERSION`.
    static let userAgent = String(versionText.map { $0 == " " ? "/" : $0 })
}

/// Sizes on the command line: a whole number of bytes with an optional binary suffix
/// (K, M, G, also written KiB/KB, case-insensitive; 1K = 1024 bytes).
enum ByteSize {
    /// A size for messages: whole MiB as "64 MiB", anything else in bytes ("1000 bytes").
    static func describe(_ bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    static func parse(_ text: String) -> Int? {
        var digits = text.trimmingCharacters(in: .whitespaces).uppercased()
        var multiplier = 1
        for (suffix, factor) in [("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 1 << 10), ("MB", 1 << 20),
                                 ("GB", 1 << 30), ("K", 1 << 10), ("M", 1 << 20), ("G", 1 << 30), ("B", 1)]
        where digits.hasSuffix(suffix) {
            digits.removeLast(suffix.count)
            multiplier = factor
            break
        }
        guard let value = Int(digits.trimmingCharacters(in: .whitespaces)), value >= 0,
            value <= Int.max / multiplier
        else { return nil }
        return value * multiplier
    }
}
