import Foundation
import HalfBlock
import Locking

extension ImagePipeline {
    enum Delivery {
        case notification
        case callback(@Sendable (Result<DecodedImage, ImagePipeline.Error>) -> Void)
    }

    struct Subscriber {
        var priority: Int
        var delivery: Delivery
    }

    enum Phase: Equatable {
        case queued, fetching, decoding
    }

    /// One load: one fetch and one decode, shared by every ticket that wants the same URL at the
    /// same pixel box (request coalescing).
    struct LoadTask {
        let generation: Int
        var request: ImageRequest
        let host: String
        var subscribers: [Int: Subscriber] = [:]
        var phase: Phase = .queued
        var handle: (any Cancellable)?
        /// The fetch running for this load (set while `phase == .fetching`).
        var fetchID: Int?
        /// Retries made so far after transient failures.
        var retries = 0
        /// A retry waits until then before it may start again.
        var notBefore: ContinuousClock.Instant?
        /// An animation's frames so far reached a subscriber (a partial delivery): someone
        /// watched it play, so its decode goes on to the end when every ticket leaves.
        var framesShown = false
        /// An animation's whole cost in bytes as its last partial delivery foresaw it (the
        /// frames so far, all of one size, times the frames kept, `Animation.delays.count`).
        var expectedBytes = 0

        var priority: Int { subscribers.values.map(\.priority).min() ?? .max }
    }

    /// A finished load's answer for one ticket, between `finish` taking it off its load and the
    /// subscriber being told.
    struct PendingDelivery {
        let delivery: Delivery
        /// The thread delivering it now; nil while it waits its turn (and may still be dropped).
        var thread: pthread_t?
    }

    /// Everything the pipeline's lock protects.
    struct State {
        var cache: MemoryCache<ImageRequest.Key, DecodedImage>
        var tasks: [ImageRequest.Key: LoadTask] = [:]
        var ticketKeys: [Int: ImageRequest.Key] = [:]
        /// Tickets whose load finished and whose answer is not delivered yet. A ticket is in
        /// `ticketKeys` (its load runs), here (its answer is on the way), or in neither (done).
        var deliveries: [Int: PendingDelivery] = [:]
        /// Fetch slots taken per host: fetches of running loads, and fetches of cancelled loads
        /// whose completion has not come back yet (their connection may still be open).
        var fetchingPerHost: [String: Int] = [:]
        /// The host of every fetch holding a slot, by fetch ID. A slot is given back only when
        /// the fetch's completion runs (`fetched`), never when the fetch is cancelled:
        /// `HTTPClient` completes a cancelled transfer after its connection is closed, so the
        /// per-host limit holds for connections on the wire, not just for our own loads.
        var slotHosts: [Int: String] = [:]
        var nextID = 1
        var nextFetchID = 1
        var statistics = Statistics()
        /// Bytes of fetched bodies handed to the decode queue and not yet decoded (or dropped).
        var decodeBacklogBytes = 0
        /// Stale disk-cache entries a load is being answered with, by request key, to be
        /// revalidated in the background once the load is delivered.
        var staleServed: [ImageRequest.Key: DiskCacheEntry] = [:]
        /// `Configuration.decodeBacklogBytes`: no fetch starts while the backlog is at least
        /// this (0: no limit).
        let decodeBacklogLimit: Int
        /// The animation decoding on with no ticket left (see `cancel`): at most one; a newer
        /// one stops it.
        var unwatchedAnimation: (key: ImageRequest.Key, generation: Int)?

        init(cache: MemoryCache<ImageRequest.Key, DecodedImage>, decodeBacklogLimit: Int) {
            self.cache = cache
            self.decodeBacklogLimit = decodeBacklogLimit
        }

        /// Loads to start now: per host, while a slot is free, the queued load with the lowest
        /// priority number (nearest the viewport). Marks them fetching. Nothing starts while
        /// the decode backlog is at its limit (a decode ending starts them).
        mutating func takeStartable(limit: Int) -> [FetchStart] {
            var started: [FetchStart] = []
            if decodeBacklogLimit > 0 && decodeBacklogBytes >= decodeBacklogLimit { return started }
            var queuedByHost: [String: [ImageRequest.Key]] = [:]
            let now = ContinuousClock.now
            for (key, task) in tasks where task.phase == .queued && (task.notBefore.map { $0 <= now } ?? true) {
                queuedByHost[task.host, default: []].append(key)
            }
            for (host, keys) in queuedByHost {
                var free = limit - fetchingPerHost[host, default: 0]
                guard free > 0 else { continue }
                let ordered = keys.sorted {
                    (tasks[$0]!.priority, tasks[$0]!.generation) < (tasks[$1]!.priority, tasks[$1]!.generation)
                }
                for key in ordered where free > 0 {
                    let fetchID = nextFetchID
                    nextFetchID += 1
                    tasks[key]!.phase = .fetching
                    tasks[key]!.fetchID = fetchID
                    fetchingPerHost[host, default: 0] += 1
                    slotHosts[fetchID] = host
                    free -= 1
                    started.append(
                        FetchStart(key: key, generation: tasks[key]!.generation, fetchID: fetchID, request: tasks[key]!.request))
                }
            }
            let inFlight = fetchingPerHost.values.reduce(0, +)
            statistics.peakInFlight = max(statistics.peakInFlight, inFlight)
            return started
        }

        /// Gives back the slot of fetch `fetchID` (its completion ran); nothing if it holds none.
        mutating func releaseFetchSlot(_ fetchID: Int) {
            guard let host = slotHosts.removeValue(forKey: fetchID) else { return }
            fetchingPerHost[host, default: 1] -= 1
            if fetchingPerHost[host] == 0 { fetchingPerHost[host] = nil }
        }
    }

    /// A fetch to start, as `takeStartable` hands it out.
    struct FetchStart {
        let key: ImageRequest.Key
        let generation: Int
        let fetchID: Int
        let request: ImageRequest
    }

    func subscribe(_ request: ImageRequest, priority: Int, delivery: Delivery) -> LoadStart {
        let (start, toStart) = state.withLock { state -> (LoadStart, [FetchStart]) in
            let key = request.key
            if !request.reload, let image = state.cache.value(for: key) {
                return (.cached(image), [])
            }
            let id = state.nextID
            state.nextID += 1
            if request.reload, let existing = state.tasks[key], !existing.request.reload {
                // A forced reload must not join a load that may be answered from stale data:
                // hand the old subscribers over to a fresh load. (The old fetch keeps its slot
                // until its completion comes back.)
                if existing.phase != .queued { existing.handle?.cancel() }
                state.tasks[key] = nil
                var fresh = LoadTask(generation: id, request: request, host: Self.hostKey(request.url))
                fresh.subscribers = existing.subscribers
                state.tasks[key] = fresh
            }
            if state.tasks[key] == nil {
                state.tasks[key] = LoadTask(generation: id, request: request, host: Self.hostKey(request.url))
            }
            state.tasks[key]!.subscribers[id] = Subscriber(priority: priority, delivery: delivery)
            state.ticketKeys[id] = key
            return (.started(Ticket(id: id)), state.takeStartable(limit: configuration.maxConcurrentLoadsPerHost))
        }
        startFetches(toStart)
        return start
    }

    /// Withdraws a ticket. After this returns, the ticket's subscriber is never called (or
    /// notified) again, except with `.cancelled` when `deliver` is true:
    /// - a ticket whose load runs leaves it (the load is cancelled when nobody else wants it);
    /// - a ticket whose answer waits its turn in `finish` loses that answer;
    /// - a ticket whose completion handler runs on another thread right now: this waits for it
    ///   to return. Not when called from a completion handler (its own or another's), which
    ///   could deadlock: there an answer already being delivered may still arrive.
    func cancel(_ ticket: Ticket, deliver: Bool) {
        enum Found {
            case nothing
            /// Taken out before anything was delivered: the caller may deliver `.cancelled`.
            case withdrawn(Delivery)
            /// Being delivered on another thread now: wait for it.
            case delivering
        }
        let me = pthread_self()
        // Nothing starts here: a cancelled fetch keeps its slot until its completion comes back
        // (see `State.slotHosts`), and the next load starts from there, off the caller's thread.
        let (found, orphaned) = state.withLock { state -> (Found, (any Cancellable)?) in
            if let key = state.ticketKeys.removeValue(forKey: ticket.id),
                let subscriber = state.tasks[key]?.subscribers.removeValue(forKey: ticket.id)
            {
                var handle: (any Cancellable)?
                if let task = state.tasks[key], task.subscribers.isEmpty, task.phase == .decoding, task.request.animated,
                    task.framesShown, task.expectedBytes <= state.cache.costLimit
                {
                    // An animation that was playing decodes on to the end and goes to the memory
                    // cache, so the next Enter plays it at once instead of decoding again from
                    // frame 1 (or joins this load while it runs). Its cost is bounded: the
                    // frames fit `maxAnimationBytes`, decided from the header. One at a time:
                    // the one left before it stops at its next frame. Not when the cache could
                    // not keep it (`--memory-cache 0`, or smaller than the whole animation):
                    // that decode would be thrown away (1.1 s of CPU for 300 640x480 frames).
                    if let older = state.unwatchedAnimation, older.key != key,
                        state.tasks[older.key]?.generation == older.generation, state.tasks[older.key]?.subscribers.isEmpty == true
                    {
                        state.tasks[older.key] = nil
                    }
                    state.unwatchedAnimation = (key, task.generation)
                    state.statistics.animationsDecodedUnwatched += 1
                } else if let task = state.tasks[key], task.subscribers.isEmpty {
                    state.tasks[key] = nil
                    if task.phase == .fetching {
                        state.statistics.fetchesCancelled += 1
                        handle = task.handle
                    }
                }
                return (.withdrawn(subscriber.delivery), handle)
            }
            guard let pending = state.deliveries[ticket.id] else { return (.nothing, nil) }
            guard let thread = pending.thread else {
                state.deliveries[ticket.id] = nil
                return (.withdrawn(pending.delivery), nil)
            }
            guard case .callback = pending.delivery, pthread_equal(thread, me) == 0,
                !state.deliveries.values.contains(where: { $0.thread.map { pthread_equal($0, me) != 0 } ?? false })
            else { return (.nothing, nil) }
            return (.delivering, nil)
        }
        orphaned?.cancel()
        switch found {
        case .withdrawn(.callback(let completion)) where deliver:
            completion(.failure(.cancelled))
        case .delivering:
            deliveryDone.lock()
            while state.withLock({ $0.deliveries[ticket.id] != nil }) { deliveryDone.wait() }
            deliveryDone.unlock()
        default:
            break
        }
    }

    /// Starts fetches that `takeStartable` handed out. Every fetch's completion runs exactly
    /// once (with `.cancelled` after a cancel), and that is where its slot is given back.
    func startFetches(_ loads: [FetchStart]) {
        for load in loads {
            let (key, generation, fetchID) = (load.key, load.generation, load.fetchID)
            let handle = fetch(load.request) { [self] result, source in
                fetched(key: key, generation: generation, fetchID: fetchID, result: result, source: source)
            }
            let stale = state.withLock { state -> Bool in
                guard state.tasks[key]?.fetchID == fetchID, state.tasks[key]?.phase == .fetching else { return true }
                state.tasks[key]!.handle = handle
                return false
            }
            if stale { handle.cancel() }
        }
    }

    private func fetched(
        key: ImageRequest.Key, generation: Int, fetchID: Int, result: Result<Data, ImagePipeline.Error>,
        source: BodySource = .network
    ) {
        let policy = RetryPolicy(maxRetries: configuration.maxRetries, base: configuration.retryBaseDelay)
        if case .success(let data) = result { heapTrimmer.fetched(bytes: data.count) }
        // A body that will be decoded (it has an image's magic bytes) joins the decode backlog.
        let backlogBytes = if case .success(let data) = result, ImageFormat.sniff(data) != nil { data.count } else { 0 }
        let (alive, retryDelay, toStart) = state.withLock { state -> (Bool, Double?, [FetchStart]) in
            // The client closed a cut-short transfer's connection before this completion.
            state.releaseFetchSlot(fetchID)
            guard let task = state.tasks[key], task.generation == generation, task.fetchID == fetchID,
                task.phase == .fetching
            else {
                // Cancelled (or superseded by a reload): only its slot mattered.
                return (false, nil, state.takeStartable(limit: configuration.maxConcurrentLoadsPerHost))
            }
            state.tasks[key]!.handle = nil
            state.tasks[key]!.fetchID = nil
            if case .failure(let error) = result, let delay = policy.delay(after: error, attempt: task.retries + 1) {
                // Back in the queue, not before the pause is over; its slot goes to others now.
                state.tasks[key]!.retries += 1
                state.tasks[key]!.phase = .queued
                state.tasks[key]!.notBefore = .now + .milliseconds(Int(delay * 1000))
                state.statistics.retries += 1
                return (false, delay, state.takeStartable(limit: configuration.maxConcurrentLoadsPerHost))
            }
            state.tasks[key]!.phase = .decoding
            // Counted before anything else may start, so the freed slot does not go to a fetch
            // the backlog limit would hold back.
            state.decodeBacklogBytes += backlogBytes
            state.statistics.peakDecodeBacklogBytes = max(
                state.statistics.peakDecodeBacklogBytes, state.decodeBacklogBytes)
            return (true, nil, state.takeStartable(limit: configuration.maxConcurrentLoadsPerHost))
        }
        // Here, on the loader's completion thread (never the UI thread): starting a fetch is a
        // locked append to the network thread's inbox.
        startFetches(toStart)
        if !alive && retryDelay == nil { heapTrimmer.loadEnded(idle: state.withLock { $0.tasks.isEmpty }) }
        if let retryDelay {
            DispatchQueue.global().asyncAfter(deadline: .now() + retryDelay) { [weak self] in self?.startWaiting() }
        }
        guard alive else { return }
        switch result {
        case .failure(let error):
            finish(key: key, generation: generation, result: .failure(error))
        case .success(let data):
            guard backlogBytes > 0 else {
                return finish(
                    key: key, generation: generation, result: .failure(.notAnImage(ImageFormat.describe(data))))
            }
            decodeQueue.addOperation { [self] in
                // The body leaves the backlog when this operation ends; fetches held back by
                // the backlog limit may start then.
                defer { leaveDecodeBacklog(bytes: backlogBytes) }
                guard let request = state.withLock({ $0.tasks[key]?.generation == generation ? $0.tasks[key]!.request : nil })
                else { return }
                let decoded: Result<DecodedImage, ImagePipeline.Error>
                // An animation's frames so far go to its notified tickets while the rest decode.
                var lastPartial: ContinuousClock.Instant?
                let progress: ((DecodedImage) -> Bool)? =
                    request.animated
                    ? { [self] partial in
                        deliverPartial(key: key, generation: generation, image: partial, last: &lastPartial)
                    } : nil
                do throws(ImagePipeline.Error) {
                    decoded = .success(
                        try ImageDecoder.decode(data, for: request, configuration: configuration, progress: progress))
                } catch {
                    // Every ticket left while the frames decoded: nobody to tell.
                    if error == .cancelled {
                        heapTrimmer.loadEnded(idle: state.withLock { $0.tasks.isEmpty })
                        return
                    }
                    if healDiskEntry(key: key, generation: generation, source: source) { return }
                    decoded = .failure(error)
                }
                finish(key: key, generation: generation, result: decoded)
            }
        }
    }

    /// A body failed to decode: its disk-cache entry, if any, goes (a body stored before it
    /// was decoded, or one damaged since). When the body came from the disk cache, the load is
    /// queued again as a reload (which reads no entry, so this happens once per load) and true
    /// is returned; otherwise (from the network, offline, the load gone) the failure stands.
    private func healDiskEntry(key: ImageRequest.Key, generation: Int, source: BodySource) -> Bool {
        guard let disk = diskCache else { return false }
        let retry = source == .diskCache && !configuration.offline
        let url = state.withLock { state -> URL? in
            guard let task = state.tasks[key], task.generation == generation, DiskCache.isCacheable(task.request.url)
            else { return nil }
            if retry && !task.request.reload {
                state.tasks[key]!.request.reload = true
                state.tasks[key]!.phase = .queued
                state.tasks[key]!.notBefore = nil
                state.statistics.diskCacheHeals += 1
            }
            return task.request.url
        }
        guard let url else { return false }
        let requeued = retry && state.withLock { $0.tasks[key]?.phase == .queued }
        diskQueue.async { [self] in
            disk.remove(for: url)
            if requeued { startWaiting() }
        }
        return requeued
    }

    /// Takes a decoded (or dropped) body of `bytes` bytes off the decode backlog, and starts
    /// the fetches that the backlog limit held back, if any may start now.
    private func leaveDecodeBacklog(bytes: Int) {
        let toStart = state.withLock { state -> [FetchStart] in
            let wasFull = state.decodeBacklogLimit > 0 && state.decodeBacklogBytes >= state.decodeBacklogLimit
            state.decodeBacklogBytes -= bytes
            return wasFull ? state.takeStartable(limit: configuration.maxConcurrentLoadsPerHost) : []
        }
        startFetches(toStart)
    }

    /// Ends a load and tells its subscribers, one at a time in ticket order.
    ///
    /// Each answer is claimed under the lock just before it is delivered, so a ticket cancelled
    /// meanwhile (while an earlier subscriber's handler ran) is skipped; `cancel` waits for a
    /// completion handler that has been claimed and is running. See `cancel(_:deliver:)`.
    private func finish(key: ImageRequest.Key, generation: Int, result: Result<DecodedImage, ImagePipeline.Error>) {
        let (ids, revalidation) = state.withLock { state -> ([Int], (ImageRequest, DiskCacheEntry, [Int])?) in
            guard let task = state.tasks[key], task.generation == generation else { return ([], nil) }
            state.tasks[key] = nil
            if let unwatched = state.unwatchedAnimation, unwatched.key == key, unwatched.generation == generation {
                state.unwatchedAnimation = nil
            }
            // Answered from a stale entry: revalidate it, and tell the notified tickets again if
            // the image changed.
            var revalidation: (ImageRequest, DiskCacheEntry, [Int])?
            if let stale = state.staleServed.removeValue(forKey: key), case .success = result {
                let notified = task.subscribers.filter { if case .notification = $0.value.delivery { true } else { false } }
                revalidation = (task.request, stale, notified.keys.sorted())
            }
            for (id, subscriber) in task.subscribers {
                state.ticketKeys[id] = nil
                state.deliveries[id] = PendingDelivery(delivery: subscriber.delivery)
            }
            if case .success(let image) = result {
                state.cache.insert(image, for: key, cost: image.byteCount)
            }
            return (task.subscribers.keys.sorted(), revalidation)
        }
        let me = pthread_self()
        for id in ids {
            let claimed = state.withLock { state -> Delivery? in
                guard state.deliveries[id]?.thread == nil, let pending = state.deliveries[id] else { return nil }
                state.deliveries[id]!.thread = me
                return pending.delivery
            }
            guard let claimed else { continue }
            switch claimed {
            case .callback(let completion):
                completion(result)
            case .notification:
                var info: [AnyHashable: Any] = [
                    NotificationKey.ticket: Ticket(id: id), NotificationKey.result: result,
                ]
                if revalidation != nil { info[NotificationKey.revalidating] = true }
                configuration.notificationCenter.post(name: Self.didFinishLoading, object: self, userInfo: info)
            }
            // Under the condition's lock, so a `cancel` waiting on it cannot miss the wake-up.
            deliveryDone.lock()
            state.withLock { _ = $0.deliveries.removeValue(forKey: id) }
            deliveryDone.broadcast()
            deliveryDone.unlock()
        }
        heapTrimmer.loadEnded(idle: state.withLock { $0.tasks.isEmpty })
        if let (request, stale, tickets) = revalidation { revalidate(request, stale: stale, tickets: tickets) }
    }

    /// Least time between two partial deliveries of one animation, in ms: frames decoded
    /// faster than this go out together, so a fast decode does not wake the main loop for
    /// every frame, and a frame waits at most this plus one frame's decode to be delivered.
    static let partialInterval = 15

    /// An animation's frames so far (`image.animation` not complete), posted to the load's
    /// notified tickets with `NotificationKey.partial` (callback and async subscribers get
    /// the final answer only); nothing is cached. The first frame goes at once, later ones
    /// when ``partialInterval`` ms have passed since `last`. On the decode thread.
    /// - Returns: false when the load is gone (every ticket cancelled): the decode stops.
    func deliverPartial(
        key: ImageRequest.Key, generation: Int, image: DecodedImage, last: inout ContinuousClock.Instant?
    ) -> Bool {
        let now = ContinuousClock.now
        let due = last.map { now - $0 >= .milliseconds(Self.partialInterval) } ?? true
        let ids = state.withLock { state -> [Int]? in
            guard let task = state.tasks[key], task.generation == generation else { return nil }
            guard due else { return [] }
            let ids = task.subscribers.filter { if case .notification = $0.value.delivery { true } else { false } }
                .keys.sorted()
            if !ids.isEmpty { state.tasks[key]!.framesShown = true }
            if let animation = image.animation, !animation.frames.isEmpty {
                let each = animation.byteCount / animation.frames.count
                let (total, over) = each.multipliedReportingOverflow(by: max(animation.delays.count, animation.frames.count))
                state.tasks[key]!.expectedBytes = over ? .max : total
            }
            return ids
        }
        guard let ids else { return false }
        guard due else { return true }
        last = now
        let result: Result<DecodedImage, ImagePipeline.Error> = .success(image)
        for id in ids {
            configuration.notificationCenter.post(
                name: Self.didFinishLoading, object: self,
                userInfo: [NotificationKey.ticket: Ticket(id: id), NotificationKey.result: result, NotificationKey.partial: true])
        }
        return true
    }

    /// Starts whatever may start now (a retry's pause ended).
    func startWaiting() {
        startFetches(state.withLock { $0.takeStartable(limit: configuration.maxConcurrentLoadsPerHost) })
    }

    /// The pseudo-host of file and `data:` URLs.
    static let localHost = "local:"

    /// Loads are limited per host; file and data URLs share one pseudo-host.
    static func hostKey(_ url: URL) -> String {
        switch url.scheme?.lowercased() {
        case "http", "https": return "\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
        default: return localHost
        }
    }
}
