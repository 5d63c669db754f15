import Foundation
import Testing

@testable import ImagePipeline

@Suite("Freshness (RFC 9111 section 4.2, heuristic 4.2.2)")
struct FreshnessTests {
    func metadata(_ headers: [String: String], storedAt: Date) -> DiskCacheMetadata {
        DiskCacheMetadata(url: "http://h/a.png", headers: headers, now: storedAt)
    }

    @Test("max-age wins over Last-Modified; no-cache is stale at once and may not be served stale")
    func explicitLifetime() {
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let old = "Sun, 06 Nov 1994 08:49:37 GMT"
        let explicit = metadata(["cache-control": "max-age=30", "last-modified": old], storedAt: now)
        #expect(Freshness.lifetime(of: explicit) == 30)
        #expect(Freshness.isFresh(explicit, now: now.addingTimeInterval(29)))
        #expect(!Freshness.isFresh(explicit, now: now.addingTimeInterval(31)))
        let noCache = metadata(["cache-control": "no-cache", "etag": "\"x\""], storedAt: now)
        #expect(!Freshness.isFresh(noCache, now: now))
        #expect(!Freshness.mayServeStale(noCache))
    }

    @Test("without max-age: 10% of the time since Last-Modified, at most a week")
    func heuristic() {
        // Given responses received at `now`, last modified 10 hours and 3 years before
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        let tenHours = metadata(["last-modified": "Tue, 14 Nov 2023 12:13:20 GMT"], storedAt: now)
        let years = metadata(["last-modified": "Sat, 14 Nov 2020 22:13:20 GMT"], storedAt: now)
        // Then the first is fresh for an hour, the second for a week
        #expect(Freshness.lifetime(of: tenHours) == 3600)
        #expect(Freshness.isFresh(tenHours, now: now.addingTimeInterval(3599)))
        #expect(!Freshness.isFresh(tenHours, now: now.addingTimeInterval(3601)))
        #expect(Freshness.lifetime(of: years) == Freshness.maxHeuristicLifetime)
        // A Last-Modified in the future, unreadable, or missing gives no lifetime
        #expect(Freshness.lifetime(of: metadata(["last-modified": "Fri, 01 Jan 2100 00:00:00 GMT"], storedAt: now)) == nil)
        #expect(Freshness.lifetime(of: metadata(["last-modified": "yesterday"], storedAt: now)) == nil)
        #expect(Freshness.lifetime(of: metadata([:], storedAt: now)) == nil)
        // Stale ones with a validator may be shown while they are revalidated
        #expect(Freshness.mayServeStale(tenHours))
        #expect(!Freshness.mayServeStale(metadata([:], storedAt: now)))
    }

    @Test("HTTP-dates in all three forms of RFC 9110 section 5.6.7")
    func dates() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
    }
}
