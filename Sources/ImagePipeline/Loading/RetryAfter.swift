import Foundation

/// Parses the `Retry-After` header (RFC 9110 section 10.2.3): delay-seconds or an HTTP-date.
enum RetryAfter {
    /// Seconds to wait, at least 0, or nil when the header is absent or unreadable.
    static func seconds(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// When to try a transient failure again: `Retry-After` when the server gave it (capped), else
/// exponential backoff from `base` seconds (0.5 s, 1 s, 2 s, ...).
struct RetryPolicy: Sendable {
    /// Tries after the first; 0 turns retrying off.
    var maxRetries: Int
    /// First backoff delay, in seconds.
    var base: Double = 0.5
    /// Longest delay honoured from `Retry-After`, in seconds; a longer one fails at once.
    var maxDelay: Double = 30

    /// The delay before retry number `attempt` (1-based) after `error`, or nil for no retry.
    func delay(after error: ImagePipeline.Error, attempt: Int) -> Double? {
        guard error.isTransient, attempt <= maxRetries else { return nil }
        if case .serverBusy(_, let retryAfter?) = error {
            return retryAfter <= maxDelay ? retryAfter : nil
        }
        return base * pow(2, Double(attempt - 1))
    }
}
