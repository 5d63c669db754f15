import Foundation
import Testing

@testable import ImagePipeline

/// A fresh, empty folder under the system temporary directory.
func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-disk-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// Names of the files in `dir`.
/// The files in `dir` other than the cache's own bookkeeping (running totals and their lock).
func fileNames(in dir: URL) -> [String] {
    // Not the running totals, their lock, nor the totals' own temporary file, which the
    // start-up sweep may be writing in the background at the moment the folder is listed.
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
        .filter {
            $0 != DiskCacheTotals.fileName && $0 != DiskCacheTotals.lockName
                && !$0.hasPrefix(DiskCacheTotals.fileName + ".")
        }.sorted()
}

/// Waits until every disk-cache read, write and removal `pipeline` has queued so far has ended
/// (true), or `seconds` pass (false): a barrier on its disk queue.
func diskWorkDone(_ pipeline: ImagePipeline, seconds: Double = 10) -> Bool {
    let done = DispatchSemaphore(value: 0)
    pipeline.diskQueue.async(flags: .barrier) { done.signal() }
    return done.wait(timeout: .now() + seconds) == .success
}

@Suite("DiskCache")
struct DiskCacheTests {
    let png = TestPNG.solid(width: 4, height: 4, [10, 20, 30, 255])

    func entry(_ url: String, _ data: Data, maxAge: Int? = 3600, storedAt: Double = Date().timeIntervalSince1970)
        -> DiskCacheEntry
    {
        var metadata = DiskCacheMetadata(url: DiskCache.normalisedKey(URL(string: url)!), headers: [:], now: Date())
        metadata.maxAge = maxAge
        metadata.storedAt = storedAt
        return DiskCacheEntry(metadata: metadata, data: data)
    }

    @Test("GLib's SHA-256 gives the FIPS 180-2 test vectors")
    func sha256() {
        #expect(Vips.sha256Hex(Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Vips.sha256Hex(Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("normalising lower-cases scheme and host, drops default ports and fragments, keeps the rest")
    func normalisation() {
        func key(_ s: String) -> String { DiskCache.normalisedKey(URL(string: s)!) }
        #expect(key("HTTP://Example.COM:80/Photos/1.JPG#top") == "http://example.com/Photos/1.JPG")
        #expect(key("https://example.com:443/a?x=1") == "https://example.com/a?x=1")
        #expect(key("https://example.com:8443/a") == "https://example.com:8443/a")
        #expect(key("http://example.com:443/a") == "http://example.com:443/a")
        #expect(key("http://example.com") == "http://example.com/")
        #expect(key("http://example.com/a?x=1") != key("http://example.com/a?x=2"))
        #expect(DiskCache.fileName(for: URL(string: "HTTP://EXAMPLE.com:80/a#b")!)
            == DiskCache.fileName(for: URL(string: "http://example.com/a")!))
    }

    @Test("two galleries' 1.jpg on different hosts are different files, named by hash only")
    func collisionResistance() throws {
        // Given one cache and the same file name on two hosts
        let dir = try temporaryDirectory()
        let cache = DiskCache(directory: dir, byteLimit: 1 << 20)
        let a = URL(string: "http://one.example/gallery/1.jpg")!
        let b = URL(string: "http://two.example/gallery/1.jpg")!
        let other = TestPNG.solid(width: 4, height: 4, [200, 0, 0, 255])
        // When both are stored
        #expect(cache.store(entry(a.absoluteString, png), for: a))
        #expect(cache.store(entry(b.absoluteString, other), for: b))
        // Then they are two 64-hex-digit files and each reads back its own bytes
        #expect(DiskCache.fileName(for: a) != DiskCache.fileName(for: b))
        let names = fileNames(in: dir)
        #expect(names.count == 2)
        #expect(names.allSatisfy { DiskCache.isEntryName($0) && !$0.contains("1.jpg") })
        #expect(cache.entry(for: a)?.data == png)
        #expect(cache.entry(for: b)?.data == other)
        #expect(cache.entry(for: URL(string: "http://three.example/gallery/1.jpg")!) == nil)
    }

    @Test("a write leaves only the entry file: no temporary files; a cut file is no entry")
    func atomicWrite() throws {
        let dir = try temporaryDirectory()
        let cache = DiskCache(directory: dir, byteLimit: 1 << 20)
        let url = URL(string: "https://example.com/a.png")!
        // When the same URL is written three times
        for _ in 0..<3 { #expect(cache.store(entry(url.absoluteString, png), for: url)) }
        // Then one file holds it, nothing else is left behind
        #expect(fileNames(in: dir) == [DiskCache.fileName(for: url)])
        let file = cache.fileURL(for: url)
        let bytes = try Data(contentsOf: file)
        #expect(bytes.starts(with: DiskCacheEntry.magic))
        #expect(DiskCacheEntry(file: bytes)?.data == png)
        // And a file cut short (a crash before the data reached the disk) reads as a miss
        try bytes.dropLast(5).write(to: file)
        #expect(cache.entry(for: url) == nil)
    }

    @Test("an entry records its body's SHA-256; one flipped bit makes it a miss and deletes the file")
    func checksum() throws {
        // Given a stored entry
        let dir = try temporaryDirectory()
        let cache = DiskCache(directory: dir, byteLimit: 1 << 20)
        let url = URL(string: "https://example.com/a.png")!
        #expect(cache.store(entry(url.absoluteString, png), for: url))
        let file = cache.fileURL(for: url)
        var bytes = try Data(contentsOf: file)
        #expect(DiskCacheEntry(file: bytes)?.metadata.sha256 == Vips.sha256Hex(png))
        // When one bit of its body flips on disk
        bytes[bytes.count - 3] ^= 0x10
        try bytes.write(to: file)
        // Then it reads as a miss, and the damaged file is gone
        #expect(cache.entry(for: url) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("sweeping removes the least recently used entries first, down to the limit")
    func eviction() throws {
        // Given five entries of (about) the same size, written at t = 1000...5000 seconds, and room
        // for three and a half
        let dir = try temporaryDirectory()
        let urls = (0..<5).map { URL(string: "http://example.com/\($0).png")! }
        let size = try entry(urls[0].absoluteString, png).encoded().count
        let seeding = DiskCache(directory: dir, byteLimit: 1 << 20)
        let cache = DiskCache(directory: dir, byteLimit: size * 3 + size / 2)
        for (i, url) in urls.enumerated() {
            #expect(seeding.store(entry(url.absoluteString, png), for: url))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: Double(1000 * (i + 1)))],
                ofItemAtPath: cache.fileURL(for: url).path)
        }
        // When the oldest is read (touched, so now the newest) and the cache is swept
        #expect(cache.entry(for: urls[0]) != nil)
        cache.sweep()
        // Then the two least recently used (1 and 2) are gone and the total fits the limit
        let summary = cache.summary()
        #expect(summary.entries == 3)
        #expect(summary.totalBytes <= cache.byteLimit)
        #expect(cache.entry(for: urls[1]) == nil)
        #expect(cache.entry(for: urls[2]) == nil)
        #expect(cache.entry(for: urls[0]) != nil)
        #expect(cache.entry(for: urls[4]) != nil)

        // When a write takes it over the limit again, it trims itself at once
        let extra = URL(string: "http://example.com/extra.png")!
        #expect(cache.store(entry(extra.absoluteString, png), for: extra))
        #expect(cache.summary().entries == 3)
        #expect(cache.entry(for: extra) != nil)
    }

    @Test("crash leftovers go with a sweep over the limit; clear empties the folder but leaves others' files")
    func sweepAndClear() throws {
        let dir = try temporaryDirectory()
        let old = URL(string: "http://example.com/old.png")!
        let url = URL(string: "http://example.com/a.png")!
        let size = try entry(url.absoluteString, png).encoded().count
        let seeding = DiskCache(directory: dir, byteLimit: 1 << 20)
        seeding.store(entry(old.absoluteString, png), for: old)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-60)], ofItemAtPath: seeding.fileURL(for: old).path)
        seeding.store(entry(url.absoluteString, png), for: url)
        let leftover = dir.appendingPathComponent(".\(DiskCache.fileName(for: url)).X.tmp")
        try Data("partial".utf8).write(to: leftover)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: leftover.path)
        try Data("keep".utf8).write(to: dir.appendingPathComponent("README"))
        // Under the limit a sweep lists nothing: the leftover stays
        seeding.sweep()
        #expect(FileManager.default.fileExists(atPath: leftover.path))
        // Over it, the least recently used entry and the leftover go
        let cache = DiskCache(directory: dir, byteLimit: size + size / 2)
        cache.sweep()
        #expect(fileNames(in: dir) == [DiskCache.fileName(for: url), "README"].sorted())
        #expect(try cache.removeAll() == 1)
        #expect(fileNames(in: dir) == ["README"])
        #expect(cache.summary().entries == 0)
    }

    @Test("summary and the start-up check read the running totals, not the folder")
    func runningTotals() throws {
        // Given three stored entries
        let dir = try temporaryDirectory()
        let cache = DiskCache(directory: dir, byteLimit: 1 << 20)
        let urls = (0..<3).map { URL(string: "http://example.com/\($0).png")! }
        for url in urls { #expect(cache.store(entry(url.absoluteString, png), for: url)) }
        func size(_ i: Int) -> Int { DiskCache.fileSize(cache.fileURL(for: urls[i]))! }
        let sizes = (0..<3).map(size)
        #expect(cache.summary() == DiskCacheSummary(directory: dir, entries: 3, totalBytes: sizes.reduce(0, +), byteLimit: 1 << 20))
        // When one file is deleted behind the cache's back, summary still answers from the
        // totals (it did not list the folder) and a sweep under the limit changes nothing
        try FileManager.default.removeItem(at: cache.fileURL(for: urls[0]))
        cache.sweep()
        #expect(cache.summary().entries == 3)
        // Replacing an entry changes bytes, not the count; removing one takes it off
        #expect(cache.store(entry(urls[1].absoluteString, png + png), for: urls[1]))
        let bigger = size(1)
        #expect(cache.summary().totalBytes == sizes[0] + bigger + sizes[2])
        cache.remove(for: urls[2])
        #expect(cache.summary().entries == 2)
        // And when the totals file goes, one listing counts them again
        try FileManager.default.removeItem(at: cache.totalsURL)
        #expect(cache.summary() == DiskCacheSummary(directory: dir, entries: 1, totalBytes: bigger, byteLimit: 1 << 20))
    }

    @Test("concurrent writers through two caches on one folder keep the totals exact (flock)")
    func concurrentTotals() throws {
        let dir = try temporaryDirectory()
        let caches = [DiskCache(directory: dir, byteLimit: 1 << 24), DiskCache(directory: dir, byteLimit: 1 << 24)]
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let url = URL(string: "http://example.com/\(i % 40).png")!
            caches[i % 2].store(entry(url.absoluteString, png), for: url)
        }
        #expect(caches[0].summary().entries == 40)
        #expect(caches[0].totals() == caches[0].countedTotals())
    }

    @Test("an absent folder is reported empty and not created")
    func absentFolder() throws {
        let dir = try temporaryDirectory().appendingPathComponent("never", isDirectory: true)
        #expect(DiskCache(directory: dir).summary().entries == 0)
        DiskCache(directory: dir).sweep()
        #expect(!FileManager.default.fileExists(atPath: dir.path))
    }

    @Test("Cache-Control and freshness")
    func freshness() {
        // A directive with no name ("=", found by the cache-entry fuzz target) crashed the parser
        #expect(CacheControl("plic,=,am -.0.0").maxAge == nil)
        #expect(CacheControl("=5, max-age=7, =").maxAge == 7)
        #expect(CacheControl("public, max-age=60").maxAge == 60)
        #expect(CacheControl("max-age=60, no-cache").maxAge == 0)
        #expect(CacheControl("no-store").noStore)
        #expect(CacheControl(nil) == CacheControl(""))
        let now = Date()
        let meta = DiskCacheMetadata(
            url: "http://x/", headers: ["cache-control": "max-age=60", "etag": "\"v1\""],
            now: now.addingTimeInterval(-30))
        #expect(meta.isFresh(now: now))
        #expect(!meta.isFresh(now: now.addingTimeInterval(31)))
        #expect(meta.validators == CacheValidators(etag: "\"v1\"", lastModified: nil))
        let refreshed = meta.refreshed(headers: ["cache-control": "max-age=5"], now: now)
        #expect(refreshed.storedAt == now.timeIntervalSince1970 && refreshed.maxAge == 5 && refreshed.etag == "\"v1\"")
        let none = DiskCacheMetadata(url: "http://x/", headers: [:], now: now)
        #expect(!none.isFresh(now: now) && none.validators == nil)
    }

    @Test("the default folder follows XDG_CACHE_HOME, else ~/.cache")
    func defaultDirectory() {
        #expect(DiskCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/h"]).path
            == "/x/cache/vitrine")
        #expect(DiskCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/h"]).path
            == "/h/.cache/vitrine")
        #expect(DiskCache.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.cache/vitrine")
    }
}
