#if canImport(Glibc)
import Glibc
#endif
import Locking

/// The paths of the kitty medium objects that exist now (``KittySharedObject``: unsent, or
/// handed over and perhaps not read yet), kept where a fatal signal handler can reach them:
/// fixed slots of preallocated memory, NUL-terminated, so ``unlinkAll()`` only reads memory and
/// calls `unlink(2)`, both async-signal-safe. The normal paths (`deinit`, leaving the view,
/// exit, a termination signal) unlink objects with their own lists; this one covers a crash
/// (SIGSEGV, SIGBUS, a Swift trap...), after which megabytes of pixels the terminal had not
/// read would otherwise stay in `/dev/shm` or the temporary directory. SIGKILL cannot be
/// caught: nothing covers it.
///
/// At most ``slots`` paths of ``slotBytes`` bytes (with the NUL) are kept; a path that finds
/// no slot, or is longer, is not covered (a best effort: one view has one or two objects at a
/// time). A slot's length is written after its bytes and cleared before they change, so the
/// handler sees a whole path or none.
enum CrashUnlinkList {
    /// Paths kept at once.
    static let slots = 32
    /// Bytes a path may take, its NUL included (`/dev/shm/tty-graphics-protocol-` and 32 hex
    /// digits is 63; a temporary file's path depends on `TMPDIR`).
    static let slotBytes = 512

    nonisolated(unsafe) private static let paths = UnsafeMutablePointer<CChar>.allocate(capacity: slots * slotBytes)
    nonisolated(unsafe) private static let lengths: UnsafeMutablePointer<sig_atomic_t> = {
        let p = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: slots)
        p.initialize(repeating: 0, count: slots)
        return p
    }()
    /// Serializes ``add(_:)`` and ``remove(_:)`` (the handler takes no lock).
    private static let lock = Mutex(())

    /// Keeps `path` for ``unlinkAll()``. False when it is not kept (no free slot, too long).
    @discardableResult
    static func add(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < slotBytes, !bytes.contains(0) else { return false }
        return lock.withLock { _ -> Bool in
            guard let slot = (0..<slots).first(where: { lengths[$0] == 0 }) else { return false }
            let base = paths + slot * slotBytes
            for (i, b) in bytes.enumerated() { base[i] = CChar(bitPattern: b) }
            base[bytes.count] = 0
            lengths[slot] = sig_atomic_t(bytes.count)
            return true
        }
    }

    /// Forgets `path` (unlinked, or read by the terminal and unlinked there).
    static func remove(_ path: String) {
        let bytes = Array(path.utf8)
        lock.withLock { _ in
            for slot in 0..<slots where Int(lengths[slot]) == bytes.count {
                let base = paths + slot * slotBytes
                if (0..<bytes.count).allSatisfy({ base[$0] == CChar(bitPattern: bytes[$0]) }) { lengths[slot] = 0 }
            }
        }
    }

    /// The paths kept now (tests).
    static var kept: [String] {
        lock.withLock { _ in
            (0..<slots).compactMap { slot in lengths[slot] == 0 ? nil : String(cString: paths + slot * slotBytes) }
        }
    }

    /// ``unlinkAll()`` under the lock the writers take (tests: so ThreadSanitizer sees the
    /// slots' writes from other threads ordered before it).
    static func unlinkAllForTesting() {
        lock.withLock { _ in unlinkAll() }
    }

    /// Unlinks every path kept and forgets them. Async-signal-safe (reads the slots and calls
    /// `unlink`; no lock, no allocation): for the fatal signal handler.
    static func unlinkAll() {
        for slot in 0..<slots where lengths[slot] != 0 {
            _ = unlink(paths + slot * slotBytes)
            lengths[slot] = 0
        }
    }
}
