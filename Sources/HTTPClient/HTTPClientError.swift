/// Why a request got no response. `description` is a short phrase for a table row.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `HTTPClient.cancel` was called before the transfer ended.
    case cancelled
    /// The client shut down (deinit or `shutdown`) before the transfer ended.
    case shutDown
    /// No byte arrived for the idle timeout, or the connection was not set up in time.
    case timedOut
    /// Bytes kept coming, but the whole transfer took longer than the total timeout.
    case tooSlow
    /// The body is larger than `HTTPRequest.maxBodyBytes`, in decoded bytes.
    case tooLarge(limit: Int)
    /// More than `HTTPRequest.maxRedirects` redirects.
    case tooManyRedirects
    /// A redirect to a URL whose scheme is not http or https (the `Location`, as sent).
    case unsupportedRedirect(String)
    /// The URL is not an absolute http or https URL libcurl accepts.
    case badURL(String)
    /// Any other failure, as a short phrase: "connection refused", "certificate not trusted",
    /// "certificate is for another host", "the server did not answer TLS", "connection cut
    /// mid-body", "too many headers", "header too large", "host not found", ...
    case network(String)

    public var description: String {
        switch self {
        case .cancelled: return "cancelled"
        case .shutDown: return "client shut down"
        case .timedOut: return "timed out"
        case .tooSlow: return "too slow"
        case .tooLarge(let limit): return "body larger than \(limit) bytes"
        case .tooManyRedirects: return "too many redirects"
        case .unsupportedRedirect(let location): return "redirect to \(location)"
        case .badURL(let url): return "bad URL: \(url)"
        case .network(let reason): return reason
        }
    }
}
