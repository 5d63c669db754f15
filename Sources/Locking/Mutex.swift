#if canImport(Glibc)
import Glibc
#endif

/// A value that one thread at a time reads or changes, behind a `pthread_mutex_t`.
///
/// The same shape as the standard library's `Synchronization.Mutex` (`init(_:)`,
/// `withLock(_:)`), which Vitrine used before: on Linux that one locks with raw futex system
/// calls inside the standard library, which ThreadSanitizer does not see, so every critical
/// section it guarded was reported as a data race (144 reports in one run of the unit tests,
/// all inside `withLock`). `pthread_mutex_lock` is intercepted by the sanitizers, so a real race
/// still shows. Not recursive: calling `withLock` from inside its own body deadlocks.
public final class Mutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched between pthread_mutex_lock and pthread_mutex_unlock.
    // @usableFromInline, and `withLock` @inlinable: callers in other modules specialize it for
    // their value type instead of calling an unspecialized generic through metadata.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    /// A mutex guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock; returns what `body` returns.
    /// - Throws: what `body` throws (the lock is released first).
    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
