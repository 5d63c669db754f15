import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#endif

/// The default `DiskCaching`: one file per URL in one folder (by default
/// `$XDG_CACHE_HOME/vitrine`), named by the hex SHA-256 of the normalised URL, holding the
/// response bytes after a one-line JSON header (`DiskCacheEntry`'s layout).
///
/// Writes go to a temporary file in the same folder (`.<name>.<random>.tmp`) and are renamed into
/// place, so a reader — another thread or another `vitrine` — sees the old entry or the new one,
/// never half of one. Reads touch the file's modification time, which eviction orders by (least
/// recently used first). Entries and bytes are kept as a running total (``DiskCacheTotals``),
/// so the start-up check and `cache info` do not list the folder. The size limit is enforced by
/// `sweep`, which lists the folder only when the total is over the limit: once in the
/// background when the pipeline starts, and after any write that takes the total over it.
///
/// - Important: files in the folder that are not 64 hex digits (or our temporary files) are
///   never read, counted or removed.
public final class DiskCache: DiskCaching, Sendable {
    /// The cache folder (created on the first write, mode 0700).
    public let directory: URL
    /// The size limit, in bytes of file length.
    public let byteLimit: Int

    struct Accounting {
        var sweeping = false
        var sweepAgain = false
    }
    let accounting = Mutex(Accounting())

    /// - Parameters:
    ///   - directory: the cache folder, e.g. `DiskCache.defaultDirectory(environment:)`.
    ///   - byteLimit: most bytes kept (default 512 MiB).
    public init(directory: URL, byteLimit: Int = 512 << 20) {
        self.directory = directory
        self.byteLimit = max(0, byteLimit)
    }

    func fileURL(for url: URL) -> URL {
        directory.appendingPathComponent(Self.fileName(for: url), isDirectory: false)
    }

    func entry(for url: URL) -> DiskCacheEntry? {
        let file = fileURL(for: url)
        guard let bytes = FileManager.default.contents(atPath: file.path) else { return nil }
        guard let entry = DiskCacheEntry(file: bytes) else {
            // Damaged (checksum or length), or another version's layout: of no use to anyone.
            remove(file: file, bytes: bytes.count)
            return nil
        }
        guard entry.metadata.url == Self.normalisedKey(url) else { return nil }
        Self.touch(file)
        return entry
    }

    func remove(for url: URL) {
        let file = fileURL(for: url)
        guard let bytes = Self.fileSize(file) else { return }
        remove(file: file, bytes: bytes)
    }

    /// Deletes one entry file of `bytes` bytes and takes it off the running totals.
    private func remove(file: URL, bytes: Int) {
        _ = changeEntries { unlink(file.path) == 0 ? (-1, -bytes) : nil }
    }

    @discardableResult
    func store(_ entry: DiskCacheEntry, for url: URL) -> Bool {
        guard let encoded = try? entry.encoded(), encoded.count <= byteLimit else { return false }
        let fm = FileManager.default
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return false
        }
        let target = fileURL(for: url)
        let temporary = directory.appendingPathComponent(
            ".\(target.lastPathComponent).\(UUID().uuidString).tmp", isDirectory: false)
        do {
            // Not `.atomic`: that would make a second temporary file of Foundation's own naming.
            try encoded.write(to: temporary, options: .withoutOverwriting)
        } catch {
            try? fm.removeItem(at: temporary)
            return false
        }
        // The previous entry's size and the rename, under the folder lock with the totals.
        let totals = changeEntries { () -> (entries: Int, bytes: Int)? in
            let previous = Self.fileSize(target)
            guard rename(temporary.path, target.path) == 0 else { return nil }
            return (previous == nil ? 1 : 0, encoded.count - (previous ?? 0))
        }
        guard let totals else {
            try? fm.removeItem(at: temporary)
            return false
        }
        if totals.bytes > byteLimit { sweep() }
        return true
    }

    /// The entries and their bytes, from the running totals (``DiskCacheTotals``): no work
    /// that grows with the number of entries, except once when the totals file is missing.
    public func summary() -> DiskCacheSummary {
        let totals = totals()
        return DiskCacheSummary(directory: directory, entries: totals.entries, totalBytes: totals.bytes, byteLimit: byteLimit)
    }

    /// Deletes every entry and temporary file; other files in the folder stay.
    /// - Returns: the number of entries removed.
    /// - Throws: `.file` naming the first file that could not be removed.
    @discardableResult
    public func removeAll() throws(ImagePipeline.Error) -> Int {
        let found = listing()
        var removed = 0
        for file in found.entries.map(\.url) + found.temporaries.map(\.url) {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                if FileManager.default.fileExists(atPath: file.path) {
                    throw .file("cannot remove \(file.path)")
                }
            }
            if Self.isEntryName(file.lastPathComponent) { removed += 1 }
        }
        if FileManager.default.fileExists(atPath: directory.path) { setTotals(countedTotals()) }
        return removed
    }

    /// Sets the file's modification time to now (LRU order); errors are ignored.
    static func touch(_ file: URL) {
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    }

    static func fileSize(_ file: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
    }

    /// 64 lower-case hex digits: a SHA-256 file name.
    static func isEntryName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// `.<hash>.<uuid>.tmp`: a write in progress, or left by a crash.
    static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }
}
