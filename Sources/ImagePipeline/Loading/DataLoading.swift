import Foundation

/// A load that can be called off. Calling `cancel` after completion does nothing.
public protocol Cancellable: Sendable {
    func cancel()
}

/// The pipeline's loading seam: fetches the raw bytes behind a URL and validates them as a
/// response (status, size cap). The default (`ImagePipeline.Configuration.dataLoader` nil)
/// reads http(s) with libcurl (`HTTPClient`), files and `data:` URLs in-process; a test or
/// another client plugs in its own through `Configuration.dataLoader`.
///
/// `completion` runs exactly once, on a background thread, with the bytes or a typed error
/// (`.cancelled` after `cancel`). Both methods return at once and never block on I/O.
public protocol DataLoading: Sendable {
    /// The body behind `url` (a 2xx body, a file's bytes, a `data:` payload).
    func loadData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable

    /// Like `loadData`, but also hands back the response headers the disk cache keeps, and
    /// sends `validators` as a conditional request (a 304 answer is `notModified`, not an error).
    func loadResponse(
        for url: URL, validators: CacheValidators?,
        completion: @escaping @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
    ) -> any Cancellable
}

extension DataLoading {
    /// Loaders without headers (files, `data:`, test mocks): the bytes, no headers, never a 304.
    public func loadResponse(
        for url: URL, validators: CacheValidators?,
        completion: @escaping @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        loadData(for: url) { completion($0.map { LoadedResponse(data: $0) }) }
    }
}

/// Validators for a conditional GET (RFC 9110 section 13.1), taken from a stored response.
public struct CacheValidators: Sendable, Equatable {
    /// Sent as `If-None-Match`.
    public var etag: String?
    /// Sent as `If-Modified-Since` (an HTTP-date, passed back as the server wrote it).
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A successful response: a 2xx body, or a 304 to a conditional request.
public struct LoadedResponse: Sendable {
    /// The body; empty when `notModified`.
    public var data: Data
    /// The server answered 304 Not Modified: the stored bytes are still good.
    public var notModified = false
    /// Response headers, names lower-cased (empty for files and `data:` URLs).
    public var headers: [String: String] = [:]

    public init(data: Data, notModified: Bool = false, headers: [String: String] = [:]) {
        self.data = data
        self.notModified = notModified
        self.headers = headers
    }
}

/// A cancellable that only records that it was cancelled (file and data: loads check it).
final class CancellationFlag: Cancellable {
    private let flag = Atomic(false)
    func cancel() { flag.store(true) }
    var isCancelled: Bool { flag.load() }
}

/// Small atomic box over a lock, for flags read on several threads.
final class Atomic<Value: Sendable>: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func load() -> Value { lock.withLock { value } }
    func store(_ newValue: Value) { lock.withLock { value = newValue } }
}

/// Routes a URL to the loader for its scheme: http(s) to `HTTPDataLoader`, file URLs and
/// `data:` URLs read in-process on a utility queue.
struct DataLoader: DataLoading {
    let http: HTTPDataLoader
    /// Largest accepted body, in bytes.
    let maxResponseBytes: Int

    func loadData(
        for url: URL, completion: @escaping @Sendable (Result<Data, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        switch url.scheme?.lowercased() {
        case "http", "https":
            // Schemes are case-insensitive (RFC 3986 section 3.1); the cache key and host key want lower case.
            return http.loadData(for: Self.lowercasingScheme(url), completion: completion)
        case "file", "data":
            let flag = CancellationFlag()
            let limit = maxResponseBytes
            DispatchQueue.global(qos: .utility).async {
                if flag.isCancelled { return completion(.failure(.cancelled)) }
                let result =
                    url.isFileURL ? LocalData.readFile(url, limit: limit) : LocalData.decodeDataURL(url, limit: limit)
                completion(flag.isCancelled ? .failure(.cancelled) : result)
            }
            return flag
        default:
            completion(.failure(.unsupportedURL(url.absoluteString)))
            return CancellationFlag()
        }
    }

    func loadResponse(
        for url: URL, validators: CacheValidators?,
        completion: @escaping @Sendable (Result<LoadedResponse, ImagePipeline.Error>) -> Void
    ) -> any Cancellable {
        switch url.scheme?.lowercased() {
        case "http", "https":
            return http.loadResponse(for: Self.lowercasingScheme(url), validators: validators, completion: completion)
        default:
            return loadData(for: url) { completion($0.map { LoadedResponse(data: $0) }) }
        }
    }
}

extension DataLoader {
    /// `url` with its scheme in lower case (`HTTP://x` → `http://x`).
    static func lowercasingScheme(_ url: URL) -> URL {
        guard let scheme = url.scheme, scheme != scheme.lowercased(),
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url }
        components.scheme = scheme.lowercased()
        return components.url ?? url
    }
}

/// Reading local files and `data:` URLs (RFC 2397).
enum LocalData {
    /// The bytes of the regular file at `url`, at most `limit` of them: plain POSIX calls (one
    /// `open`, `fstat`, and `read`s into one buffer of the file's size) rather than
    /// `FileHandle`, whose Foundation set-up was part of every one-shot render (issue 14).
    /// - Returns: the bytes, or `.file` ("no such file: PATH", "not a regular file: PATH",
    ///   "cannot read PATH") or `.responseTooLarge(limit:)`.
    static func readFile(_ url: URL, limit: Int) -> Result<Data, ImagePipeline.Error> {
        readFile(path: url.path, limit: limit)
    }

    /// As ``readFile(_:limit:)`` for a file system path (absolute, or relative to the working
    /// directory), which the messages name as given.
    static func readFile(path: String, limit: Int) -> Result<Data, ImagePipeline.Error> {
        // Only regular files: a FIFO or a device would block (even in open) or never end.
        var info = stat()
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            return .failure(.file("not a regular file: \(path)"))
        }
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            let missing = errno == ENOENT || errno == ENOTDIR
            return .failure(.file(missing ? "no such file: \(path)" : "cannot read \(path)"))
        }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else { return .failure(.file("cannot read \(path)")) }
        if (info.st_mode & S_IFMT) != S_IFREG { return .failure(.file("not a regular file: \(path)")) }
        if Int(info.st_size) > limit { return .failure(.responseTooLarge(limit: limit)) }
        // One byte over the size seen, to notice a file that grew since fstat; more room is
        // made (up to one byte over the limit) only if it did.
        var capacity = Int(info.st_size) + 1
        guard var buffer = malloc(capacity) else { return .failure(.file("cannot read \(path)")) }
        var count = 0
        while true {
            if count == capacity {
                if capacity > limit { break }
                let grown = min(limit + 1, capacity * 2)
                guard let larger = realloc(buffer, grown) else {
                    free(buffer)
                    return .failure(.file("cannot read \(path)"))
                }
                buffer = larger
                capacity = grown
            }
            let n = read(fd, buffer + count, capacity - count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                free(buffer)
                return .failure(.file("cannot read \(path)"))
            }
            if n == 0 { break }
            count += n
        }
        if count > limit {
            free(buffer)
            return .failure(.responseTooLarge(limit: limit))
        }
        return .success(Data(bytesNoCopy: buffer, count: count, deallocator: .free))
    }

    /// `data:[<mediatype>][;base64],<data>`.
    static func decodeDataURL(_ url: URL, limit: Int) -> Result<Data, ImagePipeline.Error> {
        let text = url.absoluteString
        guard text.lowercased().hasPrefix("data:"), let comma = text.firstIndex(of: ",") else {
            return .failure(.unsupportedURL("malformed data: URL"))
        }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let payload = String(text[text.index(after: comma)...])
        let data: Data?
        if header.lowercased().hasSuffix(";base64") {
            data = Data(base64Encoded: payload.removingPercentEncoding ?? payload, options: .ignoreUnknownCharacters)
        } else {
            data = (payload.removingPercentEncoding ?? payload).data(using: .utf8)
        }
        guard let data else { return .failure(.unsupportedURL("malformed data: URL")) }
        if data.count > limit { return .failure(.responseTooLarge(limit: limit)) }
        return .success(data)
    }
}
