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

    /// Removes entries, least recently used (oldest modification time) first, until their sizes
    /// add up to at most `byteLimit` bytes, and deletes temporary files older than
    /// `abandonedTemporaryAge` seconds. Runs one sweep at a time: a call during a sweep makes
    /// that sweep run once more instead of starting another.
    func sweep() {
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
            let total = sweepOnce(now: Date())
            let again = accounting.withLock { state -> Bool in
                state.totalBytes = total
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

    /// One pass of `sweep`. - Returns: the bytes left in entries.
    private func sweepOnce(now: Date) -> Int {
        let found = listing()
        for file in found.temporaries where now.timeIntervalSince(file.modified) > Self.abandonedTemporaryAge {
            try? FileManager.default.removeItem(at: file.url)
        }
        var total = found.entries.reduce(0) { $0 + $1.bytes }
        guard total > byteLimit else { return total }
        for file in found.entries.sorted(by: { $0.modified < $1.modified }) {
            guard total > byteLimit else { break }
            if (try? FileManager.default.removeItem(at: file.url)) != nil { total -= file.bytes }
        }
        return total
    }
}
