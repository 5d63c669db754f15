import Foundation

extension ImagePipeline {
    /// Why a load failed. `Sendable`, and short enough to show in a table row.
    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// The server answered with a non-2xx status code.
        case httpStatus(Int)
        /// The server said "not now": 429 Too Many Requests or 503 Service Unavailable, with the
        /// `Retry-After` delay in seconds when it gave one (RFC 9110 section 10.2.3).
        case serverBusy(status: Int, retryAfter: Double?)
        /// The bytes are not a supported image format (checked from the magic bytes), e.g. an
        /// HTML page served as `image/jpeg`. The payload names what was seen.
        case notAnImage(String)
        /// No byte arrived within the idle timeout (or no answer came at all).
        case timedOut
        /// Bytes kept arriving, but the whole transfer took longer than the total timeout, in
        /// seconds: a server trickling its body. Not retried (another try would be as slow and
        /// hold a connection as long again).
        case tooSlow(seconds: Double)
        /// The body is larger than the response-size cap, in bytes.
        case responseTooLarge(limit: Int)
        /// The header announces more pixels than the pixel-count cap allows.
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// The decoder rejected the bytes (truncated or corrupt file). The text is libvips's hint.
        case corrupt(String)
        /// The bytes are an image in a format Vitrine does not decode (BMP; or bytes that libvips
        /// would hand to a loader outside its allow-list, such as SVG or ImageMagick). The
        /// payload names the format: "BMP", "SVG".
        case unsupportedFormat(String)
        /// The format needs libvips (GIF, WebP, TIFF, HEIF/AVIF, PNGs over 4 megapixels), which
        /// could not be opened. `format` names the image's format, `reason` the dynamic
        /// loader's message.
        case decoderMissing(format: String, reason: String)
        /// A local file could not be read. The payload is the path and the system's reason.
        case file(String)
        /// A network failure other than a timeout (connection refused, redirect loop, ...).
        case network(String)
        /// The URL's scheme is not http, https, file or data, or it is malformed.
        case unsupportedURL(String)
        /// Offline, and the disk cache does not hold this URL.
        case notCached
        /// The load was cancelled because nobody wanted it any more.
        case cancelled

        /// A few words for a table row: "HTTP 404", "not an image", "timed out", ...
        public var shortReason: String {
            switch self {
            case .httpStatus(let code): return "HTTP \(code)"
            case .serverBusy(let status, _): return "HTTP \(status)"
            case .notAnImage: return "not an image"
            case .timedOut: return "timed out"
            case .tooSlow: return "too slow"
            case .responseTooLarge: return "file too large"
            case .tooManyPixels: return "too many pixels"
            case .corrupt: return "corrupt image"
            case .unsupportedFormat: return "unsupported format"
            case .decoderMissing: return "no decoder"
            case .file: return "cannot read file"
            case .network(let reason): return reason.count <= 32 ? reason : "network error"
            case .unsupportedURL: return "unsupported URL"
            case .notCached: return "not cached (offline)"
            case .cancelled: return "cancelled"
            }
        }

        /// True for failures worth trying again after a pause: 5xx answers, 429, and idle
        /// timeouts (not ``tooSlow``).
        /// Other 4xx answers and bad data fail at once.
        public var isTransient: Bool {
            switch self {
            case .httpStatus(let code): return (500...599).contains(code) && code != 501 && code != 505
            case .serverBusy, .timedOut: return true
            default: return false
            }
        }

        public var description: String {
            switch self {
            case .httpStatus(let code):
                return "HTTP \(code) \(HTTPURLResponseStatusText.text(for: code))"
            case .serverBusy(let status, let retryAfter):
                let text = "HTTP \(status) \(HTTPURLResponseStatusText.text(for: status))"
                return retryAfter.map { text + " (retry after \(Int($0.rounded())) s)" } ?? text
            case .notAnImage(let seen): return "not an image (\(seen))"
            case .timedOut: return "timed out"
            case .tooSlow(let seconds): return "still downloading after \(Int(seconds.rounded())) s, the limit for one transfer"
            case .responseTooLarge(let limit): return "response larger than \(limit) bytes"
            case .tooManyPixels(let w, let h, let limit):
                return "\(w) x \(h) pixels is over the limit of \(limit)"
            case .corrupt(let hint): return "corrupt image: \(hint)"
            case .unsupportedFormat(let format): return "unsupported image format (\(format))"
            case .decoderMissing(let format, let reason):
                return "cannot decode \(format): libvips is not available (\(reason))"
            case .file(let reason): return reason
            case .network(let reason): return "network error: \(reason)"
            case .unsupportedURL(let url): return "unsupported URL: \(url)"
            case .notCached: return "not in the disk cache (offline)"
            case .cancelled: return "cancelled"
            }
        }
    }
}

/// Reason phrases for the status codes a gallery server commonly returns (RFC 9110).
enum HTTPURLResponseStatusText {
    static func text(for code: Int) -> String {
        switch code {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 410: return "Gone"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
