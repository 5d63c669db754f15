import Foundation

/// How long a stored response may be used without asking the server (RFC 9111 section 4.2).
///
/// - An explicit `Cache-Control: max-age` wins (`no-cache` is stored as 0).
/// - Otherwise, with a `Last-Modified` date, the heuristic of section 4.2.2 that browsers use:
///   fresh for 10% of the time between `Last-Modified` and when the response was received
///   (`storedAt`, standing in for its `Date`), at most one week (Firefox's bound; Chromium uses
///   the same 10% with no cap). An image last changed a year ago is fresh for a week; one
///   changed an hour before it was fetched, for six minutes.
/// - Otherwise the entry is stale at once.
enum Freshness {
    /// The fraction of the time since `Last-Modified` an entry stays fresh.
    static let heuristicFraction = 0.1
    /// The longest heuristic lifetime, in seconds (a week).
    static let maxHeuristicLifetime: Double = 7 * 24 * 3600

    /// Seconds the entry is fresh for after `storedAt`, or nil when nothing says (stale).
    static func lifetime(of metadata: DiskCacheMetadata) -> Double? {
        if let maxAge = metadata.maxAge { return Double(maxAge) }
        guard let text = metadata.lastModified, let modified = HTTPDate.parse(text) else { return nil }
        let age = metadata.storedAt - modified.timeIntervalSince1970
        guard age > 0 else { return nil }
        return min(age * heuristicFraction, maxHeuristicLifetime)
    }

    /// Fresh at `now`: stored less than `lifetime` seconds before it.
    static func isFresh(_ metadata: DiskCacheMetadata, now: Date) -> Bool {
        guard let lifetime = lifetime(of: metadata) else { return false }
        return metadata.storedAt + lifetime > now.timeIntervalSince1970
    }

    /// A stale entry may be shown at once while it is revalidated in the background: it has a
    /// validator, and the server did not ask for revalidation on every use (`no-cache` or
    /// `max-age=0`, both stored as a max-age of 0).
    static func mayServeStale(_ metadata: DiskCacheMetadata) -> Bool {
        metadata.validators != nil && metadata.maxAge != 0
    }
}

/// HTTP-dates (RFC 9110 section 5.6.7): the IMF-fixdate form servers send
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850 and asctime forms.
enum HTTPDate {
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }
}
