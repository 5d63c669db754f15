import CCurl
import CLibcurl
import Foundation

/// The one owner of libcurl's process-wide state, and small typed helpers over the shim.
///
/// `curl_global_init` is not thread-safe: `start()` runs it once behind `pthread_once`
/// (`ccurl_global_init`) before any handle is made. Every other libcurl call in this target
/// goes through an easy or multi handle owned by one `HTTPClient`'s network thread.
enum Curl {
    /// Runs `curl_global_init` once per process. - Returns: false when libcurl failed to start.
    @discardableResult
    static func start() -> Bool { ccurl_global_init() == 0 }

    /// Sets a long option.
    static func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) {
        _ = ccurl_easy_setopt_long(easy, option, value)
    }

    /// Sets a string option (libcurl copies it).
    static func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) {
        _ = value.withCString { ccurl_easy_setopt_pointer(easy, option, $0) }
    }

    /// Reads a long from `curl_easy_getinfo` (0 when libcurl has none).
    static func info(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value = 0
        _ = ccurl_easy_getinfo_long(easy, info, &value)
        return value
    }

    /// Reads a string from `curl_easy_getinfo`.
    static func string(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard ccurl_easy_getinfo_string(easy, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The short phrase for a failed transfer's libcurl result.
    ///
    /// - Parameters:
    ///   - code: the transfer's `CURLcode`.
    ///   - easy: its handle, for `CURLINFO_OS_ERRNO` and `CURLINFO_SSL_VERIFYRESULT`.
    ///   - detail: libcurl's error buffer text (a hint; matched only for the TLS record-layer
    ///     errors that have no code of their own).
    ///   - gotHeaders: the final response's headers had arrived.
    static func error(_ code: CURLcode, easy: UnsafeMutableRawPointer, detail: String, gotHeaders: Bool)
        -> HTTPClientError
    {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_COULDNT_CONNECT:
            switch Int32(info(easy, CURLINFO_OS_ERRNO)) {
            case ECONNREFUSED: return .network("connection refused")
            case ENETUNREACH, EHOSTUNREACH: return .network("host unreachable")
            default: return .network("cannot connect")
            }
        case CURLE_COULDNT_RESOLVE_HOST: return .network("host not found")
        case CURLE_COULDNT_RESOLVE_PROXY: return .network("proxy not found")
        case CURLE_PEER_FAILED_VERIFICATION:
            // libcurl checks the host name itself once OpenSSL accepted the chain, and then
            // leaves no code of its own (CURLINFO_SSL_VERIFYRESULT reads 1 here): its message
            // says "no alternative certificate subject name matches target host name".
            // Otherwise OpenSSL's X509 verify result: 62 hostname / 64 IP address mismatch,
            // 9/10 not yet valid / expired.
            let lowered = detail.lowercased()
            if lowered.contains("subject name") || lowered.contains("target host") { return .network("certificate is for another host") }
            switch info(easy, CURLINFO_SSL_VERIFYRESULT) {
            case 62, 64: return .network("certificate is for another host")
            case 9, 10: return .network("certificate expired or not yet valid")
            default: return .network("certificate not trusted")
            }
        case CURLE_SSL_CONNECT_ERROR:
            let lowered = detail.lowercased()
            if lowered.contains("wrong version number") || lowered.contains("packet length too long")
                || lowered.contains("record layer failure") || lowered.contains("http request")
            {
                return .network("the server did not answer TLS")
            }
            return .network("TLS handshake failed")
        case CURLE_SSL_CACERT_BADFILE: return .network("cannot read the CA certificates")
        case CURLE_PARTIAL_FILE: return .network("connection cut mid-body")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return .network(gotHeaders ? "connection cut mid-body" : "connection reset")
        case CURLE_GOT_NOTHING: return .network(gotHeaders ? "connection cut mid-body" : "empty reply from server")
        case CURLE_WEIRD_SERVER_REPLY: return .network("not an HTTP answer")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM: return .network(gotHeaders ? "connection cut mid-body" : "HTTP/2 error")
        case CURLE_BAD_CONTENT_ENCODING: return .network("bad content encoding")
        case CURLE_OUT_OF_MEMORY where detail.lowercased().contains("header"): return .network("header too large")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .badURL(detail)
        default:
            return .network(String(cString: ccurl_easy_strerror(code)).lowercased())
        }
    }
}
