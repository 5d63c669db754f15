import Foundation

/// A store of downloaded image bytes on disk, one entry per normalised URL, with the response
/// metadata needed for freshness and revalidation.
///
/// Every method may block on file I/O: the pipeline calls them on its disk queue, never on the
/// caller's thread nor under its lock. Failures are not errors here: a cache that cannot read
/// or write behaves as empty.
///
/// - Important: only bytes that passed validation (a 2xx status and known image magic bytes)
///   are given to `store`.
protocol DiskCaching: Sendable {
    /// The entry for `url`, or nil. A hit counts as a use for LRU eviction (the file is touched).
    /// A file that is there but is not a whole entry (bad checksum, cut short) is deleted.
    func entry(for url: URL) -> DiskCacheEntry?

    /// Writes `entry` for `url` atomically (temporary file, then `rename`), replacing any
    /// older one, then trims the cache if it is over its limit.
    /// - Returns: false when nothing was written.
    @discardableResult
    func store(_ entry: DiskCacheEntry, for url: URL) -> Bool

    /// Deletes the entry for `url`, if any (its body failed to decode).
    func remove(for url: URL)

    /// Removes entries, least recently used first, until the total is within the byte limit;
    /// also deletes temporary files left by a crash.
    func sweep()
}

/// What `vitrine cache info` prints.
public struct DiskCacheSummary: Sendable, Equatable {
    /// The cache folder.
    public var directory: URL
    /// Cache files in it.
    public var entries: Int
    /// Their sizes added up, in bytes (file lengths, not blocks on disk).
    public var totalBytes: Int
    /// The size limit, in bytes.
    public var byteLimit: Int
}

extension DiskCache {
    /// The default cache folder: `$XDG_CACHE_HOME/vitrine`, or `~/.cache/vitrine` when
    /// `XDG_CACHE_HOME` is unset, empty or relative (XDG Base Directory Specification 0.8).
    /// - Parameter environment: the process environment (passed in so tests can pick it).
    public static func defaultDirectory(environment: [String: String]) -> URL {
        if let base = environment["XDG_CACHE_HOME"], base.hasPrefix("/") {
            return URL(fileURLWithPath: base, isDirectory: true).appendingPathComponent("vitrine", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".cache", isDirectory: true)
            .appendingPathComponent("vitrine", isDirectory: true)
    }

    /// The text a URL is hashed from: scheme and host lower-cased, the scheme's default port
    /// (80, 443) dropped, an empty path made `/`, the fragment and any password dropped; path
    /// and query are kept byte for byte (`a?x=1` and `a?x=2` are different images).
    static func normalisedKey(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        let scheme = parts.scheme?.lowercased()
        parts.scheme = scheme
        parts.percentEncodedHost = parts.percentEncodedHost?.lowercased()
        if (scheme == "http" && parts.port == 80) || (scheme == "https" && parts.port == 443) {
            parts.port = nil
        }
        if parts.percentEncodedPath.isEmpty, parts.host != nil { parts.percentEncodedPath = "/" }
        parts.fragment = nil
        parts.password = nil
        return parts.string ?? url.absoluteString
    }

    /// The entry's file name: the hex SHA-256 of `normalisedKey(url)` (64 characters), never a
    /// part of the URL, so two galleries' `1.jpg` cannot collide.
    static func fileName(for url: URL) -> String {
        Vips.sha256Hex(Data(normalisedKey(url).utf8))
    }

    /// The disk cache only holds http(s) downloads; files and `data:` URLs are local already.
    static func isCacheable(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "http" || scheme == "https"
    }
}
