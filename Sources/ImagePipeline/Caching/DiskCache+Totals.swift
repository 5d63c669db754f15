import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The disk cache's running total: how many entries and how many bytes the folder holds,
/// kept in one small file beside them so that `vitrine cache info` and the start-up check read
/// two numbers instead of listing (and `stat`ing) every entry. With 200,000 entries a listing
/// took 16.8 s of `cache info` and as much CPU at every browser start.
///
/// File `.vitrine-totals` (never an entry or temporary name): the line `vitrine-totals 1`, then
/// `<entries> <bytes>`. Every change goes through ``changeEntries(_:)``: under an
/// exclusive `flock` on `.vitrine-lock` (other `vitrine` processes share the folder), read,
/// add, write to a temporary file and `rename` it into place, so a reader sees the old totals
/// or the new ones. A missing or unreadable file is rebuilt by one listing. A sweep, which lists
/// the folder anyway, writes the exact numbers, so a drift (a crash between an entry's rename
/// and the total's, files deleted by hand) lasts until the next sweep at most.
struct DiskCacheTotals: Equatable, Sendable {
    /// Entry files.
    var entries: Int
    /// Their lengths added up, in bytes.
    var bytes: Int

    static let fileName = ".vitrine-totals"
    static let lockName = ".vitrine-lock"
    static let header = "vitrine-totals 1"

    /// The file's text.
    var encoded: String { "\(Self.header)\n\(entries) \(bytes)\n" }

    /// Parses the file's text; nil when it is not one.
    init?(text: String) {
        let lines = text.split(separator: "\n")
        guard lines.count == 2, lines[0] == Self.header else { return nil }
        let numbers = lines[1].split(separator: " ").compactMap { Int($0) }
        guard numbers.count == 2, numbers[0] >= 0, numbers[1] >= 0 else { return nil }
        self.init(entries: numbers[0], bytes: numbers[1])
    }

    init(entries: Int, bytes: Int) {
        self.entries = entries
        self.bytes = bytes
    }
}

extension DiskCache {
    var totalsURL: URL { directory.appendingPathComponent(DiskCacheTotals.fileName, isDirectory: false) }

    /// The running totals: read from the file, or counted by one listing when there is none
    /// (and then written). An absent folder holds nothing, and nothing is created for it.
    func totals() -> DiskCacheTotals {
        guard FileManager.default.fileExists(atPath: directory.path) else { return DiskCacheTotals(entries: 0, bytes: 0) }
        if let stored = readTotals() { return stored }
        return withFolderLock { () -> DiskCacheTotals in
            if let stored = readTotals() { return stored }
            let counted = countedTotals()
            writeTotals(counted)
            return counted
        }
    }

    /// Runs `change` (a rename or unlink of entry files that returns how it changed the entries
    /// and their bytes, or nil for no change) and applies that to the totals, both under the
    /// folder lock: a writer that looked for an entry's previous size outside it raced another
    /// writer of the same entry, and both counted it as new (41 entries for 40 files).
    /// - Returns: the totals after the change; nil when `change` changed nothing.
    func changeEntries(_ change: () -> (entries: Int, bytes: Int)?) -> DiskCacheTotals? {
        withFolderLock { () -> DiskCacheTotals? in
            guard let (entries, bytes) = change() else { return nil }
            // Counted after the change when there was no file: the listing already sees it.
            guard var totals = readTotals() else {
                let counted = countedTotals()
                writeTotals(counted)
                return counted
            }
            totals.entries = max(0, totals.entries + entries)
            totals.bytes = max(0, totals.bytes + bytes)
            writeTotals(totals)
            return totals
        }
    }

    /// Replaces the totals with counted ones (after a sweep or `removeAll`).
    func setTotals(_ totals: DiskCacheTotals) {
        withFolderLock { writeTotals(totals) }
    }

    /// Entries and bytes by listing the folder (the slow way).
    func countedTotals() -> DiskCacheTotals {
        let entries = listing().entries
        return DiskCacheTotals(entries: entries.count, bytes: entries.reduce(0) { $0 + $1.bytes })
    }

    private func readTotals() -> DiskCacheTotals? {
        guard let data = FileManager.default.contents(atPath: totalsURL.path) else { return nil }
        return DiskCacheTotals(text: String(decoding: data, as: UTF8.self))
    }

    private func writeTotals(_ totals: DiskCacheTotals) {
        let temporary = directory.appendingPathComponent(
            "\(DiskCacheTotals.fileName).\(UUID().uuidString).tmp", isDirectory: false)
        do {
            try Data(totals.encoded.utf8).write(to: temporary, options: .withoutOverwriting)
        } catch {
            return
        }
        if rename(temporary.path, totalsURL.path) != 0 { unlink(temporary.path) }
    }

    /// Runs `body` holding an exclusive `flock` on the folder's lock file (created 0600 when
    /// missing); without a lock (the folder cannot be written) `body` runs anyway: the totals
    /// are a hint that the next sweep corrects.
    private func withFolderLock<T>(_ body: () -> T) -> T {
        let path = directory.appendingPathComponent(DiskCacheTotals.lockName, isDirectory: false).path
        var fd: Int32
        repeat { fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return body() }
        defer { close(fd) }
        var rc: Int32
        repeat { rc = flock(fd, LOCK_EX) } while rc != 0 && errno == EINTR
        defer { if rc == 0 { _ = flock(fd, LOCK_UN) } }
        return body()
    }
}
