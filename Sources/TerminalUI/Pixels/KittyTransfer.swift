#if canImport(Glibc)
import Glibc
#endif
import Locking

/// How kitty graphics pixels reach the terminal: the protocol's transmission medium (kitty's
/// docs, "Terminal graphics protocol", "The transmission medium", key `t`).
///
/// - `direct` (`t=d`): base64 in the escape sequences, through the pty; works everywhere,
///   including over ssh (4/3 of the pixels' bytes, and the terminal decodes them).
/// - `sharedMemory` (`t=s`): a POSIX shared memory object holds the raw pixels; the escape
///   carries its name (a few dozen bytes) and the terminal maps it, reads it and unlinks it.
///   Only when the terminal runs on the same host and can open it (``TerminalProbe`` asks).
/// - `tempFile` (`t=t`): the same with a file in the temporary directory whose name contains
///   `tty-graphics-protocol`, which the terminal deletes after reading.
///
/// `t=f` (a plain file the terminal reads and leaves) is not used: Vitrine cannot know when
/// the terminal has read it, so it would stay behind or be deleted too early.
public enum KittyMedium: String, Sendable, CaseIterable, CustomStringConvertible {
    case direct, sharedMemory = "shared-memory", tempFile = "temp-file"

    /// The `t=` key's value.
    public var key: String {
        switch self {
        case .direct: "d"
        case .sharedMemory: "s"
        case .tempFile: "t"
        }
    }

    public var description: String { rawValue }

    /// `VITRINE_KITTY_MEDIUM`'s value: `direct` (or `d`), `shared-memory` (`shm`, `s`),
    /// `temp-file` (`file`, `t`); nil for unset, empty or `auto` (the probe decides).
    public init?(environmentValue: String?) {
        switch environmentValue?.lowercased() ?? "" {
        case "direct", "d": self = .direct
        case "shared-memory", "shm", "s": self = .sharedMemory
        case "temp-file", "file", "t": self = .tempFile
        default: return nil
        }
    }
}

/// RFC 4648 base64 with `=` padding, for short payloads (kitty's medium names).
public enum Base64 {
    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i]), b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let v = b0 << 16 | b1 << 8 | b2
            out.append(table[Int(v >> 18)])
            out.append(table[Int(v >> 12 & 63)])
            out.append(i + 1 < bytes.count ? table[Int(v >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? table[Int(v & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return out
    }
}

/// One object (shared memory or temporary file) holding raw pixels for the terminal to read:
/// created mode 0600 with `O_EXCL` under an unpredictable name (`tty-graphics-protocol-` and
/// 32 random hex digits: nothing of the user's files), filled through a mapping, then named
/// in one escape sequence (``handOver()``).
///
/// Never left behind: an object that is dropped before it is handed over is unlinked by
/// `deinit` (a stale or superseded pan region, a failed write); one handed over is the
/// terminal's to unlink, and is listed in ``KittySharedObject/outstanding`` until then, so
/// ``KittySharedObject/unlinkOutstanding()`` (on leaving the view) removes those the
/// terminal did not take. On exit ``KittySharedObject/unlinkAllAtExit()`` also removes the ones
/// still held unsent (a region a worker was encoding when the user quit: no `deinit` runs at
/// `exit`) and makes any created later unlink itself at once. After a crash (a fatal signal)
/// the handler unlinks every one that exists (``CrashUnlinkList``); only SIGKILL leaves them.
public final class KittySharedObject: Sendable {
    /// The medium: `.sharedMemory` or `.tempFile`.
    public let medium: KittyMedium
    /// The object's name: `/tty-graphics-protocol-…` for shared memory (as `shm_open` takes
    /// it), the file's absolute path for a temporary file.
    public let name: String
    /// Bytes of pixels it holds.
    public let byteCount: Int
    private let handed = Mutex(false)

    /// The prefix of every object's name; kitty requires it for `t=t`.
    public static let namePrefix = "tty-graphics-protocol-"

    /// Creates an object of `byteCount` bytes and lets `fill` write them (the buffer is the
    /// mapping; `fill` runs on the calling thread). Nil, with nothing left behind, when the
    /// object cannot be created, sized or mapped (the caller then sends the pixels directly).
    /// `directory`: where temporary files go (`TMPDIR`, else `/tmp`).
    public convenience init?(
        medium: KittyMedium, byteCount: Int, directory: String? = nil, fill: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        self.init(medium: medium, byteCount: byteCount, directory: directory, fill: fill, copying: nil)
    }

    /// An object holding a copy of `bytes`, written with `write(2)` (no mapping: tmpfs then
    /// allocates each page without zeroing it first, about half the time of a mapping filled
    /// by `memcpy`). Nil, with nothing left behind, when it cannot be created or written.
    public convenience init?(medium: KittyMedium, copying bytes: UnsafeRawBufferPointer, directory: String? = nil) {
        self.init(medium: medium, byteCount: bytes.count, directory: directory, fill: { _ in }, copying: bytes)
    }

    private init?(
        medium: KittyMedium, byteCount: Int, directory: String?, fill: (UnsafeMutableRawBufferPointer) -> Void,
        copying source: UnsafeRawBufferPointer?
    ) {
        guard medium != .direct, byteCount > 0 else { return nil }
        var rng = SystemRandomNumberGenerator()
        let random = (0..<2).map { _ in
            let v = rng.next() as UInt64
            let hex = String(v, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        let base = Self.namePrefix + random
        let name: String
        let fd: Int32
        switch medium {
        case .sharedMemory:
            name = "/" + base
            fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        default:
            let dir = directory ?? Self.temporaryDirectory
            name = (dir.hasSuffix("/") ? dir : dir + "/") + base
            fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        }
        guard fd >= 0 else { return nil }
        // Listed while unsent, so the exit path finds it; after that path, not kept at all.
        let admitted = Self.unsent.withLock { state -> Bool in
            if state.closed { return false }
            state.names[name] = medium
            return true
        }
        guard admitted else {
            close(fd)
            Self.unlink(medium, name)
            return nil
        }
        // Kept for the fatal signal handler too, until it is unlinked here or gone.
        CrashUnlinkList.add(Self.path(medium, name))
        self.medium = medium
        self.name = name
        self.byteCount = byteCount
        defer { close(fd) }
        if let source {
            var offset = 0
            while offset < byteCount {
                let n = write(fd, source.baseAddress! + offset, byteCount - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    Self.forget(medium, name)
                    handed.withLock { $0 = true }
                    return nil
                }
                offset += n
            }
            return
        }
        guard ftruncate(fd, off_t(byteCount)) == 0,
            let map = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0), map != MAP_FAILED
        else {
            Self.forget(medium, name)
            handed.withLock { $0 = true }  // nothing for deinit to do
            return nil
        }
        fill(UnsafeMutableRawBufferPointer(start: map, count: byteCount))
        munmap(map, byteCount)
    }

    deinit {
        if !handed.withLock({ $0 }) { Self.forget(medium, name) }
    }

    /// Marks the object as given to the terminal (its name goes out now): from here the
    /// terminal unlinks it; it is listed in ``outstanding`` until ``unlinkOutstanding()``.
    /// - Returns: the name's bytes for the escape's payload (before base64).
    public func handOver() -> [UInt8] {
        let first = handed.withLock { h -> Bool in
            defer { h = true }
            return !h
        }
        if first {
            _ = Self.unsent.withLock { $0.names.removeValue(forKey: name) }
            Self.registry.withLock { list in
                // Drop the ones the terminal has taken (they are gone), keep the rest.
                list.removeAll { taken in
                    guard !Self.exists(taken.medium, taken.name) else { return false }
                    CrashUnlinkList.remove(Self.path(taken.medium, taken.name))
                    return true
                }
                list.append((medium, name))
            }
        }
        return Array(name.utf8)
    }

    /// The name's bytes for a query (`a=q`): the object stays the caller's, unlinked when it is
    /// released whether or not the terminal read it (not listed in ``outstanding``).
    public func handOverForQuery() -> [UInt8] { Array(name.utf8) }

    /// Objects handed to the terminal and perhaps not read by it yet.
    private static let registry = Mutex<[(medium: KittyMedium, name: String)]>([])

    /// The names handed over that still exist (the terminal has not taken them yet).
    public static var outstanding: [String] {
        registry.withLock { list in list.filter { exists($0.medium, $0.name) }.map(\.name) }
    }

    /// Unlinks every object handed over that the terminal has not taken: on leaving the view
    /// (its images are deleted with it) and on exit. Thread-safe; not async-signal-safe.
    public static func unlinkOutstanding() {
        let list = registry.withLock { list -> [(medium: KittyMedium, name: String)] in
            defer { list = [] }
            return list
        }
        for (medium, name) in list { unlink(medium, name) }
    }

    /// Objects created and not handed over yet (name to medium), and whether
    /// ``unlinkAllAtExit()`` has run (then no object is kept: each unlinks itself at once).
    private static let unsent = Mutex<(closed: Bool, names: [String: KittyMedium])>((false, [:]))

    /// Unlinks `name` and drops it from the unsent list.
    private static func forget(_ medium: KittyMedium, _ name: String) {
        unlink(medium, name)
        _ = unsent.withLock { $0.names.removeValue(forKey: name) }
    }

    /// On exit: unlinks every object still held unsent (an encode on another thread may hold
    /// one when the main loop ends, and no `deinit` runs at `exit`) and every one handed over
    /// that the terminal has not taken (``unlinkOutstanding()``); objects created from here on
    /// are unlinked at once and their initialiser returns nil (the caller goes direct).
    /// Thread-safe; not async-signal-safe.
    public static func unlinkAllAtExit() {
        let names = unsent.withLock { state -> [String: KittyMedium] in
            state.closed = true
            defer { state.names = [:] }
            return state.names
        }
        for (name, medium) in names { unlink(medium, name) }
        unlinkOutstanding()
    }

    /// Undoes ``unlinkAllAtExit()``'s closing, for tests that go on making objects after it.
    static func reopenAfterExitForTesting() {
        unsent.withLock { $0.closed = false }
    }

    /// `TMPDIR` when set to an absolute path, else `/tmp`.
    public static var temporaryDirectory: String {
        if let t = getenv("TMPDIR"), let s = Optional(String(cString: t)), s.hasPrefix("/") { return s }
        return "/tmp"
    }

    static func unlink(_ medium: KittyMedium, _ name: String) {
        if medium == .sharedMemory { _ = shm_unlink(name) } else { _ = Glibc.unlink(name) }
        CrashUnlinkList.remove(path(medium, name))
    }

    /// The object's path in the file system: `/dev/shm` and the name for shared memory (where
    /// glibc's `shm_open` puts it), the name itself for a temporary file.
    static func path(_ medium: KittyMedium, _ name: String) -> String {
        medium == .sharedMemory ? "/dev/shm" + name : name
    }

    /// True when the object `name` still exists.
    public static func exists(_ medium: KittyMedium, _ name: String) -> Bool {
        var st = stat()
        let path = Self.path(medium, name)
        return lstat(path, &st) == 0
    }
}
