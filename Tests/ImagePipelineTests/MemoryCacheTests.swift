import Testing

@testable import ImagePipeline

@Suite("MemoryCache")
struct MemoryCacheTests {
    @Test("evicts the least recently used entries to stay under the byte limit")
    func evictsLeastRecentlyUsed() {
        // Given a cache of 100 bytes holding a (40) and b (40)
        var cache = MemoryCache<String, Int>(costLimit: 100)
        cache.insert(1, for: "a", cost: 40)
        cache.insert(2, for: "b", cost: 40)
        // When a is read (so b is now least recently used) and c (40) arrives
        #expect(cache.value(for: "a") == 1)
        cache.insert(3, for: "c", cost: 40)
        // Then b was evicted and the total stays within the limit
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "c") == 3)
        #expect(cache.totalCost == 80)
        #expect(cache.count == 2)
    }

    @Test("an entry larger than the whole limit is not stored")
    func refusesOversizedEntry() {
        var cache = MemoryCache<String, Int>(costLimit: 10)
        cache.insert(1, for: "big", cost: 11)
        #expect(cache.value(for: "big") == nil)
        #expect(cache.totalCost == 0)
    }

    @Test("replacing a key charges only the new cost; lowering the limit trims")
    func replaceAndTrim() {
        var cache = MemoryCache<Int, Int>(costLimit: 1000)
        for i in 0..<10 { cache.insert(i, for: i, cost: 100) }
        cache.insert(99, for: 5, cost: 50)
        #expect(cache.totalCost == 950)
        cache.costLimit = 300
        #expect(cache.totalCost <= 300)
        // The most recently inserted key survives.
        #expect(cache.value(for: 5) == 99)
        #expect(cache.value(for: 0) == nil)
    }
}

@Suite("ImageFormat")
struct ImageFormatTests {
    @Test("recognises formats by magic bytes, not by name")
    func sniff() {
        #expect(ImageFormat.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0])) == .jpeg)
        #expect(ImageFormat.sniff(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])) == .png)
        #expect(ImageFormat.sniff(Data("GIF89a....".utf8)) == .gif)
        #expect(ImageFormat.sniff(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat.sniff(Data("<!DOCTYPE html><html>".utf8)) == nil)
        #expect(ImageFormat.sniff(Data()) == nil)
        #expect(ImageFormat.describe(Data("<html><body>".utf8)) == "HTML page")
        #expect(ImageFormat.describe(Data()) == "empty body")
    }
}

import Foundation
