import Foundation

/// What the disk cache keeps beside a response's bytes, for freshness now and revalidation later.
///
/// Freshness (RFC 9111 section 4.2, with the heuristic of 4.2.2 for responses that have a
/// `Last-Modified` but no `max-age`) is decided by `Freshness`, in `Freshness.swift`.
struct DiskCacheMetadata: Codable, Sendable, Equatable {
    /// The normalised URL (`DiskCache.normalisedKey`), checked on read against hash collisions
    /// and stale renames.
    var url: String
    /// The `ETag` response header, verbatim (quotes and `W/` included), sent back as `If-None-Match`.
    var etag: String?
    /// The `Last-Modified` response header (an HTTP-date), sent back as `If-Modified-Since`.
    var lastModified: String?
    /// When the bytes were stored or last revalidated, in seconds since 1970-01-01 UTC.
    var storedAt: Double
    /// `Cache-Control: max-age`, in seconds; nil when the server sent none.
    var maxAge: Int?
    /// The body's length in bytes, written with it; a file whose body is shorter or longer (cut
    /// short by a crash before the data reached the disk) is not an entry.
    var length = 0
    /// The hex SHA-256 of the body, written with it: a body that no longer matches (a flipped
    /// bit on disk, an edit) is not an entry, and the cache deletes its file.
    var sha256: String?

    /// Fresh: stored less than `maxAge` seconds before `now`.
    func isFresh(now: Date) -> Bool {
        guard let maxAge else { return false }
        return storedAt + Double(maxAge) > now.timeIntervalSince1970
    }

    /// The validators for a conditional request, or nil when the server gave none.
    var validators: CacheValidators? {
        etag == nil && lastModified == nil ? nil : CacheValidators(etag: etag, lastModified: lastModified)
    }

    /// Metadata for a response to `url` received at `now`, from its lower-cased `headers`.
    init(url: String, headers: [String: String], now: Date) {
        self.url = url
        self.etag = headers["etag"]
        self.lastModified = headers["last-modified"]
        self.storedAt = now.timeIntervalSince1970
        self.maxAge = CacheControl(headers["cache-control"]).maxAge
    }

    /// After a 304 at `now`: the time restarts, and validators and max-age the 304 carried
    /// replace the stored ones (RFC 9111 section 4.3.4).
    func refreshed(headers: [String: String], now: Date) -> DiskCacheMetadata {
        var copy = self
        copy.storedAt = now.timeIntervalSince1970
        if let etag = headers["etag"] { copy.etag = etag }
        if let date = headers["last-modified"] { copy.lastModified = date }
        if let control = headers["cache-control"] { copy.maxAge = CacheControl(control).maxAge }
        return copy
    }
}

/// The parts of a `Cache-Control` response header (RFC 9111 section 5.2.2) the disk cache obeys.
struct CacheControl: Equatable {
    /// `max-age=N`, in seconds; `no-cache` counts as 0 (store, but revalidate every time).
    var maxAge: Int?
    /// `no-store`: keep nothing.
    var noStore = false

    init(_ header: String?) {
        for directive in (header ?? "").split(separator: ",") {
            // "=" or "=5" splits into no name at all (found by Fuzz/, target cache-entry).
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let first = parts.first else { continue }
            let name = first.trimmingCharacters(in: .whitespaces).lowercased()
            let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            switch name {
            case "no-store": noStore = true
            case "no-cache": maxAge = 0
            case "max-age":
                let digits = value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if maxAge != 0, let seconds = Int(digits), seconds >= 0 { maxAge = seconds }
            default: continue
            }
        }
    }
}

/// One cache file: the bytes and their metadata.
///
/// File layout (Vitrine's own, version 2): the line `vitrine-cache 2`, one line of JSON
/// (`DiskCacheMetadata`, UTF-8, no raw newlines since JSON escapes them, with the body's length
/// and SHA-256), then the response body verbatim. Bytes and metadata share one file so that one
/// `rename` publishes both. Version 1 files (no checksum) are not entries.
struct DiskCacheEntry: Sendable, Equatable {
    var metadata: DiskCacheMetadata
    /// The response body that passed validation (2xx, image magic bytes).
    var data: Data

    /// The first line. An array, not `Data`: LeakSanitizer cannot follow the spare-bit-tagged
    /// pointer of a `Data` held in a global and reported it as a leak in the fuzz runs.
    static let magic = Array("vitrine-cache 2\n".utf8)
    /// The longest metadata line accepted when reading, in bytes.
    static let maxHeaderBytes = 64 << 10

    /// The file's bytes.
    func encoded() throws -> Data {
        var file = Data(Self.magic)
        var header = metadata
        header.length = data.count
        header.sha256 = Vips.sha256Hex(data)
        file.append(try JSONEncoder().encode(header))
        file.append(0x0A)
        file.append(data)
        return file
    }

    /// Parses a cache file; nil when it is not one (wrong magic, bad JSON, no body, a body whose
    /// length or SHA-256 is not the one recorded).
    init?(file: Data) {
        guard file.starts(with: Self.magic) else { return nil }
        let headerStart = file.startIndex + Self.magic.count
        let searchEnd = min(file.endIndex, headerStart + Self.maxHeaderBytes)
        guard let newline = file[headerStart..<searchEnd].firstIndex(of: 0x0A),
            let metadata = try? JSONDecoder().decode(DiskCacheMetadata.self, from: file[headerStart..<newline])
        else { return nil }
        let body = file[(newline + 1)...]
        guard !body.isEmpty, body.count == metadata.length, let sum = metadata.sha256,
            Vips.sha256Hex(Data(body)) == sum
        else { return nil }
        self.init(metadata: metadata, data: Data(body))
    }

    init(metadata: DiskCacheMetadata, data: Data) {
        self.metadata = metadata
        self.data = data
    }
}
