#if canImport(Glibc)
import Glibc
#endif

/// The process environment, NAME to value, read straight from `environ` (the first entry of a
/// repeated name wins, as for `getenv`; bytes that are not UTF-8 become U+FFFD).
///
/// What `ProcessInfo.processInfo.environment` returns, for about a fifth of its instructions:
/// its first use set up `ProcessInfo` and decoded every entry through the slow, generic
/// transcoding path, about 8 % of the instructions of a whole `vitrine render` of a small PNG
/// (callgrind, issue 14).
func processEnvironment() -> [String: String] {
    // `environ` may be NULL (after clearenv); Glibc's overlay types it as never NULL.
    let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
    guard var entry = table else { return [:] }
    // Sized once: growing from empty rehashed every entry five or six times, a measurable part
    // of a one-shot `render` (issue 14).
    var count = 0
    while entry[count] != nil { count += 1 }
    var result = [String: String](minimumCapacity: count)
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
            let name = String(text[..<equals])
            if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
        }
        entry += 1
    }
    return result
}
