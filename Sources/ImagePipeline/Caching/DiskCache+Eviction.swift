import Foundation

extension DiskCache {
    /// One file found in the cache folder.
    struct ListedFile {
        var url: URL
        /// File length in bytes.
        var bytes: Int
        /// Last modification (a write, or a read's touch).
        var modified: Date
    }

    /// Temporary files older than this many seconds are leftovers of a crash, not writes in progress.
    static let abandonedTemporaryAge: TimeInterval = 600

    /// Entries and temporary files in the folder (empty when it does not exist).
    func listing() -> (entries: [ListedFile], temporaries: [ListedFile]) {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        guard
            let urls = try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys, options: [])
        else { return ([], []) }
        var entries: [ListedFile] = []
        var temporaries: [ListedFile] = []
        for url in urls {
            let name = url.lastPathComponent
            let isEntry = Self.isEntryName(name)
            guard isEntry || Self.isTemporaryName(name),
                let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true
            else { continue }
            let file = ListedFile(
                url: url, bytes: values.fileSize ?? 0, modified: values.contentModificationDate ?? .distantPast)
            if isEntry { entries.append(file) } else { temporaries.append(file) }
        }
        return (entries, temporaries)
    }

    /// Below the limit, a sweep takes the total down to this share of it (7/8), so that the
    /// writes that follow do not each start a listing of the whole folder: one sweep per
    /// `byteLimit / 8` bytes written, at most.
    static let sweepTargetFraction = 0.875

    /// When the running total is over `byteLimit`: removes entries, least recently used (oldest
    /// modification time) first, until their sizes add up to at most 7/8 of it
    /// (``sweepTargetFraction``), deletes temporary files older than `abandonedTemporaryAge`
    /// seconds, and writes the counted totals. Under the limit it reads the totals and does
    /// nothing else (no listing). Runs one sweep at a time: a call during a sweep makes that
    /// sweep run once more instead of starting another.
    func sweep() {
        guard totals().bytes > byteLimit else { return }
        let mine = accounting.withLock { state -> Bool in
            if state.sweeping {
                state.sweepAgain = true
                return false
            }
            state.sweeping = true
            return true
        }
        guard mine else { return }
        while true {
            setTotals(sweepOnce(now: Date()))
            let again = accounting.withLock { state -> Bool in
                if state.sweepAgain {
                    state.sweepAgain = false
                    return true
                }
                state.sweeping = false
                return false
            }
            if !again { return }
        }
    }

    /// One pass of `sweep`. - Returns: the entries and bytes left.
    private func sweepOnce(now: Date) -> DiskCacheTotals {
        let found = listing()
        for file in found.temporaries where now.timeIntervalSince(file.modified) > Self.abandonedTemporaryAge {
            try? FileManager.default.removeItem(at: file.url)
        }
        var total = found.entries.reduce(0) { $0 + $1.bytes }
        var count = found.entries.count
        guard total > byteLimit else { return DiskCacheTotals(entries: count, bytes: total) }
        let target = Int(Double(byteLimit) * Self.sweepTargetFraction)
        for file in found.entries.sorted(by: { $0.modified < $1.modified }) {
            guard total > target else { break }
            if unlink(file.url.path) == 0 {
                total -= file.bytes
                count -= 1
            }
        }
        return DiskCacheTotals(entries: count, bytes: total)
    }
}
