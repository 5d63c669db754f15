import Foundation
import ImagePipeline
import Synchronization
import TerminalUI

/// Moves pipeline completions into the main loop: the one place where work crosses threads.
///
/// A `NotificationCenter` observer registered with `queue: nil` runs on the posting (background)
/// thread; it appends the result to a locked list and writes the wake pipe, which `poll()` in
/// the main loop watches. The loop drains the list on its own thread. (`queue: .main` would block
/// the poster until the main queue drains, which never happens while the loop sits in `poll()`.)
final class Inbox: Sendable {
    /// One finished load for one ticket.
    struct Delivery: Sendable {
        var ticket: ImagePipeline.Ticket
        var result: Result<DecodedImage, ImagePipeline.Error>
    }

    let wakePipe: WakePipe
    private let pending = DeliveryList()
    // Written once in init, read once in deinit.
    nonisolated(unsafe) private var observerToken: (any NSObjectProtocol)?
    private let center: NotificationCenter

    init(pipeline: ImagePipeline, center: NotificationCenter, wakePipe: WakePipe) {
        self.wakePipe = wakePipe
        self.center = center
        let token = center.addObserver(
            forName: ImagePipeline.didFinishLoading, object: pipeline, queue: nil
        ) { [pending, wakePipe] note in
            guard let delivery = Inbox.delivery(from: note) else { return }
            pending.append(delivery)
            wakePipe.signal()
        }
        observerToken = token
    }

    deinit {
        if let observerToken { center.removeObserver(observerToken) }
    }

    /// Everything delivered since the last call, oldest first.
    func drain() -> [Delivery] { pending.drain() }

    /// The ticket and result a `didFinishLoading` notification carries.
    static func delivery(from note: Notification) -> Delivery? {
        guard let info = note.userInfo,
            let ticket = info[ImagePipeline.NotificationKey.ticket] as? ImagePipeline.Ticket,
            let result = info[ImagePipeline.NotificationKey.result] as? Result<DecodedImage, ImagePipeline.Error>
        else { return nil }
        return Delivery(ticket: ticket, result: result)
    }

    /// The locked list between the posting threads and the main loop.
    final class DeliveryList: Sendable {
        private let list = Mutex<[Delivery]>([])
        func append(_ delivery: Delivery) { list.withLock { $0.append(delivery) } }
        func drain() -> [Delivery] {
            list.withLock { list in
                defer { list.removeAll(keepingCapacity: true) }
                return list
            }
        }
    }
}
