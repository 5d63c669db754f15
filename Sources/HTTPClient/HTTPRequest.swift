import Foundation

/// One GET request for `HTTPClient`: the URL, its headers and its limits.
///
/// Times are in milliseconds and start when the client sends the request (hands it to
/// libcurl), never while it waits in a caller's own queue.
public struct HTTPRequest: Sendable {
    /// An absolute http or https URL. IPv6 literals go in brackets (`http://[::1]:8080/a.png`).
    public var url: String
    /// Headers sent to the request's own origin only (scheme, host and port of `url`): a
    /// redirect to another origin goes without them (credentials stay with their host). Names
    /// and values must hold no CR or LF.
    public var originHeaders: [HTTPHeader]
    /// Milliseconds to set up a connection (TCP and TLS), per hop.
    public var connectTimeoutMs: Int
    /// Milliseconds without a byte arriving (from the send, then from the last byte) before
    /// the transfer ends with `HTTPClientError.timedOut`.
    public var idleTimeoutMs: Int
    /// Milliseconds for the whole transfer, redirects included, before it ends with
    /// `HTTPClientError.tooSlow`.
    public var totalTimeoutMs: Int
    /// Largest body kept, in decoded bytes (after gzip, br or zstd): a larger announced length
    /// ends the transfer at its headers, and bytes past it end it as they arrive
    /// (`HTTPClientError.tooLarge`).
    public var maxBodyBytes: Int
    /// Redirects followed (301, 302, 303, 307, 308 with a `Location`), each hop by the client
    /// itself, to http and https only.
    public var maxRedirects: Int

    /// - Parameters: see the properties; defaults: 10 s connect, 15 s idle, 60 s total,
    ///   64 MiB body, 10 redirects.
    public init(
        url: String, originHeaders: [HTTPHeader] = [], connectTimeoutMs: Int = 10_000, idleTimeoutMs: Int = 15_000,
        totalTimeoutMs: Int = 60_000, maxBodyBytes: Int = 64 << 20, maxRedirects: Int = 10
    ) {
        self.url = url
        self.originHeaders = originHeaders
        self.connectTimeoutMs = connectTimeoutMs
        self.idleTimeoutMs = idleTimeoutMs
        self.totalTimeoutMs = totalTimeoutMs
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
    }
}

/// A request header field.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// The final answer to a request, after redirects.
public struct HTTPResponse: Sendable {
    /// The final status code (never 1xx; a 3xx only when it had no usable `Location`).
    public var status: Int
    /// Response header fields of the final answer, names lower-cased; a repeated field's
    /// values are joined with ", " (RFC 9110 section 5.3).
    public var headers: [String: String]
    /// The body, decoded (gzip, deflate, br, zstd): read only for a 2xx status. For any other
    /// status the transfer is stopped at the headers and `body` is empty.
    public var body: Data
    /// The URL that answered (the last hop).
    public var url: String
}

/// Identifies a submitted request, for `HTTPClient.cancel`.
public struct HTTPTransferID: Hashable, Sendable {
    public let value: Int
}
