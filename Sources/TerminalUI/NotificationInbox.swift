import Foundation
import Locking

/// Moves notifications posted on background threads into the main loop: the one place where
/// work crosses threads.
///
/// An observer registered with `queue: nil` runs on the posting thread; it turns the
/// notification into an `Item` (a `Sendable` value), appends it to a locked list and writes the
/// `WakePipe`, which `EventLoop` watches in `poll()`. The main loop calls `drain()` on its own
/// thread. (`queue: .main` would block the poster until the main queue drains, which never
/// happens while the loop sits in `poll()`: see FACTS.md.)
public final class NotificationInbox<Item: Sendable>: Sendable {
    /// The pipe that `EventLoop` must watch.
    public let wakePipe: WakePipe
    private let pending = Pending()
    private let center: NotificationCenter
    // Written once in init, read once in deinit.
    nonisolated(unsafe) private var observerToken: (any NSObjectProtocol)?

    /// Observes `name` from `object` on `center`; `transform` (run on the posting thread) picks
    /// the item out of each notification, or returns nil to ignore it.
    public init(
        center: NotificationCenter, name: Notification.Name, object: AnyObject?, wakePipe: WakePipe,
        transform: @escaping @Sendable (Notification) -> Item?
    ) {
        self.wakePipe = wakePipe
        self.center = center
        let pending = self.pending
        observerToken = center.addObserver(forName: name, object: object, queue: nil) { note in
            guard let item = transform(note) else { return }
            pending.append(item)
            wakePipe.signal()
        }
    }

    deinit {
        if let observerToken { center.removeObserver(observerToken) }
    }

    /// Everything received since the last call, oldest first.
    public func drain() -> [Item] { pending.drain() }

    /// Delivers `item` without a notification (a completion handler's answer), from any thread.
    public func send(_ item: Item) {
        pending.append(item)
        wakePipe.signal()
    }

    private final class Pending: Sendable {
        private let list = Mutex<[Item]>([])
        func append(_ item: Item) { list.withLock { $0.append(item) } }
        func drain() -> [Item] {
            list.withLock { list in
                defer { list.removeAll(keepingCapacity: true) }
                return list
            }
        }
    }
}
