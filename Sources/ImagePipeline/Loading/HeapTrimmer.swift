import Foundation
import Locking

/// Hands memory that downloads freed back to the system, so that resident memory follows what
/// is live (the memory cache, the rows on screen) rather than what was ever downloaded.
///
/// Why: every image body (1.4 MB for a 4000x3000 JPEG) is allocated and freed on whichever
/// thread handles it: the network thread, the decode queue, the disk queue. glibc
/// gives each such thread a malloc arena, and after the first large block is freed it raises its
/// mmap threshold (up to 32 MiB), so later bodies come from those arenas, and freed ones stay
/// there as free chunks that `free` does not return. Measured here (1,000 rows of a 4000x3000
/// JPEG over http, `--memory-cache 4M`): 107 MiB resident, 63 MiB after one `malloc_trim(0)`;
/// 13 arenas held 55 MiB of free chunks. The same rows from files ended at 59 MiB.
///
/// What: after a load finishes and the pipeline has nothing left to load, or after
/// `burstBytes` of bodies since the last trim, `malloc_trim(0)` runs once on a utility queue
/// (glibc 2.8+: returns free pages of every arena, not just the top of the main heap). Calls
/// are coalesced: at most one is pending at a time, `delay` after the trigger, so a burst of
/// finishing loads costs one trim. `malloc_trim` is looked up with `dlsym` (no C shim needed for
/// one symbol); where it does not exist (not glibc) nothing is done.
final class HeapTrimmer: Sendable {
    private struct State {
        /// Bytes of bodies fetched since the last trim started.
        var bytesSinceTrim = 0
        /// A trim is scheduled or running.
        var pending = false
        /// The pipeline went idle while a trim was pending: trim again after it.
        var idleAgain = false
        var trims = 0
    }

    private typealias TrimFunction = @convention(c) (Int) -> Int32

    /// glibc's `int malloc_trim(size_t pad)`, or nil when the C library has none.
    private static let trimFunction: TrimFunction? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: TrimFunction.self)
    }()

    /// Runs a trim `delay` seconds from now: by default on a utility queue. Tests pass one that
    /// holds the trims until they run them (no wall clock, no sleeps).
    typealias Scheduler = @Sendable (_ delay: Double, _ trim: @escaping @Sendable () -> Void) -> Void

    private let state = Mutex(State())
    private let scheduler: Scheduler
    /// Bytes of bodies after which a trim runs even while loads go on, in bytes (0: never trim).
    let burstBytes: Int
    /// Seconds between the trigger and the trim (lets the decode operation that held the body
    /// release it first).
    let delay: Double

    /// - Parameters:
    ///   - burstBytes: bytes of downloaded bodies that trigger a trim while loads go on; 0 (or
    ///     less) turns trimming off.
    ///   - delay: seconds from the trigger to the trim.
    ///   - scheduler: runs each trim after `delay` (nil: a utility queue's `asyncAfter`).
    init(burstBytes: Int, delay: Double = 0.05, scheduler: Scheduler? = nil) {
        self.burstBytes = max(0, burstBytes)
        self.delay = delay
        self.scheduler =
            scheduler ?? { [queue = DispatchQueue(label: "vitrine.heap-trim", qos: .utility)] delay, trim in
                queue.asyncAfter(deadline: .now() + delay, execute: trim)
            }
    }

    /// Trims run so far (for `ImagePipeline.Statistics`).
    var trims: Int { state.withLock { $0.trims } }

    /// Notes that a body of `bytes` bytes was fetched (it is freed once decoded).
    func fetched(bytes: Int) {
        guard burstBytes > 0 else { return }
        let due = state.withLock { state -> Bool in
            state.bytesSinceTrim += bytes
            guard state.bytesSinceTrim >= burstBytes, !state.pending else { return false }
            state.pending = true
            return true
        }
        if due { schedule() }
    }

    /// Notes that a load ended; `idle` when the pipeline has no load queued or running.
    func loadEnded(idle: Bool) {
        guard burstBytes > 0, idle else { return }
        let due = state.withLock { state -> Bool in
            guard state.bytesSinceTrim > 0 else { return false }
            if state.pending {
                state.idleAgain = true
                return false
            }
            state.pending = true
            return true
        }
        if due { schedule() }
    }

    private func schedule() {
        scheduler(delay) { [self] in
            state.withLock { state in
                state.bytesSinceTrim = 0
                state.idleAgain = false
            }
            _ = Self.trimFunction?(0)
            let again = state.withLock { state -> Bool in
                state.trims += 1
                let again =
                    (state.idleAgain && state.bytesSinceTrim > 0)
                    || state.bytesSinceTrim >= burstBytes
                state.pending = again
                return again
            }
            if again { schedule() }
        }
    }
}

extension ImagePipeline {
    /// Caps glibc's malloc arenas at `count` (`mallopt(M_ARENA_MAX, count)`), unless the
    /// `MALLOC_ARENA_MAX` environment variable already sets it. Call it first thing in `main`,
    /// before any thread starts; elsewhere than glibc it does nothing.
    ///
    /// glibc gives each thread that allocates an arena of its own (up to 8 per core), and the
    /// pipeline's network, decode and disk threads left freed image bodies (about 1.4 MB for a
    /// 4000x3000 JPEG) spread over a dozen arenas. Measured with `scripts/bench_pipeline.py
    /// memory`, 1,500 rows over http at `--memory-cache 4M`, two runs each: with 2 arenas, peak
    /// VmRSS 63-67 MiB against 75-83, and 57-60 MiB at the end against 66-71.
    /// - Returns: true when the cap was set.
    @discardableResult
    public static func limitMallocArenas(to count: Int32, environment: [String: String]) -> Bool {
        guard environment["MALLOC_ARENA_MAX"] == nil, let symbol = dlsym(nil, "mallopt") else { return false }
        typealias MalloptFunction = @convention(c) (Int32, Int32) -> Int32
        let mArenaMax: Int32 = -8  // M_ARENA_MAX in glibc's <malloc.h>
        return unsafeBitCast(symbol, to: MalloptFunction.self)(mArenaMax, count) == 1
    }
}

