import Foundation
import HalfBlock
import Locking

/// Loads images for rows and views: memory cache, disk cache, request coalescing, a per-host
/// load queue ordered by priority, cancellation, validation and shrink-on-load decoding.
///
/// Call it from any thread; nothing here blocks on I/O. A load's result reaches its caller in
/// one of two ways:
/// - `load(_:priority:)` answers from the memory cache at once, or returns a `Ticket` and later
///   posts `ImagePipeline.didFinishLoading` (see `NotificationKey`) on a background thread.
/// - `load(_:priority:completion:)` and `image(for:)` are the same pipeline for library users.
///
/// Cancellation (`cancel(_:)`): once it returns, a completion handler given to
/// `load(_:priority:completion:)` is never called for that ticket. An answer still waiting its
/// turn is dropped, and a handler running on another thread at that moment is waited for.
/// (Called from inside a completion handler, `cancel` does not wait, so that handlers cancelling
/// each other cannot deadlock; do not hold a lock your handler takes while calling `cancel`.)
///
/// - Important: for notifications the promise is weaker: a ticket cancelled before its answer's
///   turn gets none, but one being posted on another thread at that moment is not waited for and
///   may still arrive. Receivers keep the tickets they hold and drop others, which is what the
///   table view's per-row generation token does.
public final class ImagePipeline: Sendable {
    /// Options fixed at creation.
    public struct Configuration: Sendable {
        /// Memory cache limit for decoded bitmaps, in bytes (default: 1/16 of RAM, at most 256 MiB).
        public var memoryCacheBytes: Int
        /// Most loads running at once against one host (default 6). It holds for connections on
        /// the wire: a fetch keeps its slot until its completion comes back, and `HTTPClient`
        /// closes a cut-short transfer's connection before it sends that completion.
        public var maxConcurrentLoadsPerHost: Int = 6
        /// Largest response body accepted, in bytes.
        public var maxResponseBytes: Int = Configuration.defaultMaxResponseBytes
        /// Largest image accepted, in pixels, checked from the header before decoding.
        public var maxPixels: Int = Configuration.defaultMaxPixels
        /// The default ``maxResponseBytes``: 64 MiB.
        public static let defaultMaxResponseBytes = 64 << 20
        /// The default ``maxPixels``: 100 megapixels.
        public static let defaultMaxPixels = 100_000_000
        /// Most bytes of frames kept for one animation (`ImageRequest.animated`), default 64 MiB:
        /// an animated GIF or WebP whose frames at the requested size need more keeps every
        /// k-th frame (see `Animation`). 64 MiB holds 128 frames of 512x256, or 16 of a
        /// 1200x780 screen in kitty.
        public var maxAnimationBytes: Int = 64 << 20
        /// Retries of a transient failure (5xx, 429, timeout) before the row fails with the last
        /// reason; the pause is `Retry-After` when given, else 0.5 s doubling.
        public var maxRetries: Int = 2
        /// First backoff pause, in seconds (doubles for each further retry).
        public var retryBaseDelay: Double = 0.5
        /// Seconds without a byte before a download times out (starts when the request is sent).
        public var idleTimeout: TimeInterval = 15
        /// Seconds for a whole download.
        public var totalTimeout: TimeInterval = 60
        /// Extra request headers per lower-cased host name, sent to that host only (a redirect
        /// to another scheme, host or port goes without them).
        public var headers: [String: [String: String]] = [:]
        /// Sent as `User-Agent` (the browser sets `vitrine/VERSION`).
        public var userAgent = "vitrine"
        /// The loading seam: nil (the default) loads http(s) with libcurl (`HTTPClient`) and
        /// files and `data:` URLs in-process; anything else replaces all of that (tests, other
        /// clients). `maxResponseBytes`, timeouts and `headers` are the default loader's.
        public var dataLoader: (any DataLoading)?
        /// Decodes running at once (default: the number of cores).
        public var decodeConcurrency: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// Bytes of fetched bodies waiting for or in decode at which no further fetch starts
        /// (nil, the default: 4 MiB per decode running at once, `decodeConcurrency`; 0: no
        /// limit). When bodies arrive faster than they decode (a fast network or the disk
        /// cache), fetches wait for decodes instead of piling up bodies: without it a page of
        /// 4000x3000 JPEGs over loopback held 19 bodies of 1.4 MB at once. Bodies of fetches
        /// already running when the limit is reached still come in, so the backlog stays under
        /// this plus `maxConcurrentLoadsPerHost` bodies per host.
        public var decodeBacklogBytes: Int?
        /// Where `didFinishLoading` is posted.
        public var notificationCenter: NotificationCenter = .default
        /// Folder of the disk cache of downloaded image bytes (http and https only); nil, the
        /// default, keeps nothing on disk. `DiskCache.defaultDirectory(environment:)` gives
        /// `$XDG_CACHE_HOME/vitrine`.
        public var diskCacheDirectory: URL?
        /// Disk cache size limit, in bytes (default 512 MiB); least recently used entries go first.
        public var diskCacheBytes: Int = 512 << 20
        /// Read the disk cache (`--reload` turns it off for the session: every image is
        /// downloaded again, and the new bytes are stored).
        public var readsDiskCache = true
        /// Use only the disk cache for http(s): stored bytes are used however old, and anything
        /// not stored fails with `.notCached` without a request (`--offline`).
        public var offline = false
        /// Freed memory is handed back to the system (glibc's `malloc_trim`, see `HeapTrimmer`)
        /// whenever the pipeline runs out of loads, and also after this many bytes of downloaded
        /// bodies while loads go on (default 32 MiB); 0 turns that off. Without it, resident
        /// memory grows with the bodies downloaded, whatever `memoryCacheBytes` says.
        public var heapTrimBytes: Int = 32 << 20

        public init(memoryCacheBytes: Int? = nil) {
            let ram = Int(clamping: ProcessInfo.processInfo.physicalMemory)
            self.memoryCacheBytes = memoryCacheBytes ?? min(256 << 20, max(16 << 20, ram / 16))
        }
    }

    /// Identifies one caller's interest in one load.
    public struct Ticket: Hashable, Sendable {
        public let id: Int

        /// Tickets come from `load`; this initializer is for test doubles of the pipeline.
        public init(id: Int) { self.id = id }
    }

    /// What `load(_:priority:)` did.
    public enum LoadStart: Sendable {
        /// The memory cache had it: nothing was started and no notification will follow.
        case cached(DecodedImage)
        /// A load was started or joined; `didFinishLoading` will carry this ticket.
        case started(Ticket)
    }

    /// Posted on a background thread when a load finishes for a ticket, once per ticket (an
    /// animation may also be posted before, with `NotificationKey.partial`, as its frames decode).
    /// `object` is the pipeline; `userInfo` holds `NotificationKey.ticket` (`Ticket`) and
    /// `NotificationKey.result` (`Result<DecodedImage, ImagePipeline.Error>`).
    public static let didFinishLoading = Notification.Name("VitrineImagePipelineDidFinishLoading")

    /// Keys of `didFinishLoading`'s `userInfo`.
    public enum NotificationKey {
        public static let ticket = "ticket"
        public static let result = "result"
        /// `true` when the image came from a stale disk-cache entry that is being revalidated:
        /// a second `didFinishLoading` for the same ticket, with `replacement`, may follow.
        public static let revalidating = "revalidating"
        /// `true` on that second notification: the server had a newer image, which replaces
        /// the one delivered before (only ever a success).
        public static let replacement = "replacement"
        /// `true` while an animation (`ImageRequest.animated`) is still decoding: the result
        /// holds the frames decoded so far (`Animation.isComplete` false), more notifications
        /// for the same ticket follow, and the last one, without this key, is the load's
        /// answer as usual (all frames, or a failure). Only notified tickets get these.
        public static let partial = "partial"
    }

    /// Counters since creation, for the status line and tests.
    public struct Statistics: Sendable, Equatable {
        /// Fetches started (HTTP requests sent, files read); disk-cache hits are not fetches.
        public var fetchesStarted = 0
        /// Loads answered by a fresh disk-cache entry, with no request.
        public var diskCacheHits = 0
        /// Stale disk-cache entries the server confirmed with a 304 (their bytes were used).
        public var diskCacheRevalidations = 0
        /// Loads answered at once by a stale entry while it is revalidated in the background.
        public var diskCacheStaleHits = 0
        /// Background revalidations whose server had a changed image, which replaced the stale one.
        public var staleImagesReplaced = 0
        /// Disk-cache entries whose body failed to decode: deleted and fetched once more.
        public var diskCacheHeals = 0
        /// Fetches cancelled before they finished.
        public var fetchesCancelled = 0
        /// Loads running now.
        public var running = 0
        /// Loads waiting for a slot.
        public var queued = 0
        /// Bytes held by the memory cache.
        public var memoryCacheBytes = 0
        /// Largest number of fetches in flight at once.
        public var peakInFlight = 0
        /// Transient failures that were tried again.
        public var retries = 0
        /// Times freed memory was handed back to the system (`Configuration.heapTrimBytes`).
        public var heapTrims = 0
        /// Most bytes of fetched bodies waiting for or in decode at once
        /// (`Configuration.decodeBacklogBytes`).
        public var peakDecodeBacklogBytes = 0
        /// Animations decoded on to the end after their last ticket left, for the memory cache
        /// (their first frames had been delivered: someone watched them).
        public var animationsDecodedUnwatched = 0
    }

    let configuration: Configuration
    let dataLoader: any DataLoading
    let state: Mutex<State>
    /// Signalled after each delivery, for a `cancel` waiting for a completion handler to return.
    let deliveryDone = NSCondition()
    let decodeQueue: OperationQueue
    /// Downloaded bytes on disk; nil when `diskCacheDirectory` is nil.
    let diskCache: (any DiskCaching)?
    /// Where disk-cache reads and writes run (never the caller's thread, never under the lock).
    let diskQueue = DispatchQueue(label: "vitrine.disk", qos: .utility, attributes: .concurrent)
    /// Gives freed body memory back to the system after bursts of loads.
    let heapTrimmer: HeapTrimmer
    private let http: HTTPDataLoader?

    /// A pipeline that loads with `configuration.dataLoader`, or by default over libcurl and
    /// from local files.
    public convenience init(configuration: Configuration = Configuration()) {
        if let custom = configuration.dataLoader {
            self.init(configuration: configuration, dataLoader: custom)
            return
        }
        let http = HTTPDataLoader(
            maxResponseBytes: configuration.maxResponseBytes, idleTimeout: configuration.idleTimeout,
            totalTimeout: configuration.totalTimeout, headers: configuration.headers,
            userAgent: configuration.userAgent,
            maxConnectionsPerHost: max(6, configuration.maxConcurrentLoadsPerHost))
        self.init(
            configuration: configuration,
            dataLoader: DataLoader(http: http, maxResponseBytes: configuration.maxResponseBytes), http: http)
    }

    /// - Parameter heapTrimmer: nil: one for `configuration.heapTrimBytes` (tests pass their own,
    ///   with a scheduler they run by hand).
    init(
        configuration: Configuration, dataLoader: any DataLoading, http: HTTPDataLoader? = nil,
        heapTrimmer: HeapTrimmer? = nil
    ) {
        // libvips is not started here: the CVips shim opens it (dlopen) on the first image that
        // needs it, so JPEG and PNG galleries never load its libraries.
        self.configuration = configuration
        self.dataLoader = dataLoader
        self.http = http
        self.state = Mutex(
            State(
                cache: MemoryCache(costLimit: configuration.memoryCacheBytes),
                decodeBacklogLimit: max(0, configuration.decodeBacklogBytes ?? configuration.decodeConcurrency * (4 << 20))))
        self.heapTrimmer = heapTrimmer ?? HeapTrimmer(burstBytes: configuration.heapTrimBytes)
        let queue = OperationQueue()
        queue.name = "vitrine.decode"
        queue.maxConcurrentOperationCount = configuration.decodeConcurrency
        self.decodeQueue = queue
        let disk = configuration.diskCacheDirectory.map { DiskCache(directory: $0, byteLimit: configuration.diskCacheBytes) }
        self.diskCache = disk
        // The start-up sweep: trims what earlier runs left over the limit, without blocking.
        if let disk { diskQueue.async { disk.sweep() } }
    }

    deinit { http?.invalidate() }

    /// Counters for the status line and tests.
    public var statistics: Statistics {
        state.withLock { state in
            var stats = state.statistics
            stats.running = state.tasks.values.filter { $0.phase != .queued }.count
            stats.queued = state.tasks.values.filter { $0.phase == .queued }.count
            stats.memoryCacheBytes = state.cache.totalCost
            stats.heapTrims = heapTrimmer.trims
            return stats
        }
    }

    /// The cached bitmap for `request`, if the memory cache holds it (marks it recently used).
    public func cachedImage(for request: ImageRequest) -> DecodedImage? {
        state.withLock { $0.cache.value(for: request.key) }
    }

    /// Starts or joins the load of `request`.
    ///
    /// - Parameter priority: lower starts sooner (the table passes the row's distance from the
    ///   top of the viewport; look-ahead rows get larger numbers).
    /// - Returns: the cached image, or a ticket that `didFinishLoading` will name.
    public func load(_ request: ImageRequest, priority: Int) -> LoadStart {
        subscribe(request, priority: priority, delivery: .notification)
    }

    /// Starts or joins the load of `request`; `completion` runs once on a background thread
    /// (immediately, on the caller's thread, for a memory-cache hit, returning nil).
    ///
    /// After `cancel` of the returned ticket returns, `completion` is not called: not with the
    /// image, not with `.cancelled` (a handler already running elsewhere is waited for first).
    @discardableResult
    public func load(
        _ request: ImageRequest, priority: Int,
        completion: @escaping @Sendable (Result<DecodedImage, ImagePipeline.Error>) -> Void
    ) -> Ticket? {
        switch subscribe(request, priority: priority, delivery: .callback(completion)) {
        case .cached(let image):
            completion(.success(image))
            return nil
        case .started(let ticket):
            return ticket
        }
    }

    /// Loads `request` and returns the decoded image.
    /// - Throws: `ImagePipeline.Error`; `.cancelled` when the calling task is cancelled.
    public func image(for request: ImageRequest, priority: Int = 0) async throws(ImagePipeline.Error)
        -> DecodedImage
    {
        // The ticket, or the news that the task was cancelled before there was one: `onCancel`
        // runs at once for a task cancelled already, and may run between `load` and storing
        // its ticket; either way the load must still be cancelled.
        enum Slot {
            case waiting
            case ticket(Ticket)
            case cancelled
        }
        let slot = Mutex(Slot.waiting)
        let result: Result<DecodedImage, ImagePipeline.Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ticket = load(request, priority: priority) { continuation.resume(returning: $0) }
                let cancelled = slot.withLock { slot -> Bool in
                    if case .cancelled = slot { return true }
                    if let ticket { slot = .ticket(ticket) }
                    return false
                }
                if cancelled, let ticket { cancel(ticket, deliver: true) }
            }
        } onCancel: {
            let ticket = slot.withLock { slot -> Ticket? in
                if case .ticket(let ticket) = slot { return ticket }
                slot = .cancelled
                return nil
            }
            if let ticket { self.cancel(ticket, deliver: true) }
        }
        return try result.get()
    }

    /// Changes the priority of a ticket's interest (lower starts sooner).
    public func setPriority(_ ticket: Ticket, _ priority: Int) {
        state.withLock { state in
            guard let key = state.ticketKeys[ticket.id] else { return }
            state.tasks[key]?.subscribers[ticket.id]?.priority = priority
        }
    }

    /// Withdraws a ticket's interest. The load itself is cancelled when no ticket wants it.
    ///
    /// After this returns the ticket's completion handler is never called (one running on
    /// another thread is waited for, unless this is called from a completion handler). A
    /// notification for it is posted only if it was being posted at that moment.
    public func cancel(_ ticket: Ticket) { cancel(ticket, deliver: false) }
}
