import Foundation
import ImagePipeline
import TerminalUI

/// One finished load for one ticket, as the main loop receives it.
struct Delivery: Sendable {
    var ticket: ImagePipeline.Ticket
    var result: Result<DecodedImage, ImagePipeline.Error>
    /// From a stale disk-cache entry being revalidated: a `replacement` may follow.
    var revalidating = false
    /// A newer image for a ticket delivered before with `revalidating`.
    var replacement = false
    /// An animation's frames so far: more deliveries for the ticket follow.
    var partial = false

    /// The ticket and result that an `ImagePipeline.didFinishLoading` notification carries.
    static func from(_ note: Notification) -> Delivery? {
        guard let info = note.userInfo,
            let ticket = info[ImagePipeline.NotificationKey.ticket] as? ImagePipeline.Ticket,
            let result = info[ImagePipeline.NotificationKey.result] as? Result<DecodedImage, ImagePipeline.Error>
        else { return nil }
        return Delivery(
            ticket: ticket, result: result,
            revalidating: info[ImagePipeline.NotificationKey.revalidating] as? Bool ?? false,
            replacement: info[ImagePipeline.NotificationKey.replacement] as? Bool ?? false,
            partial: info[ImagePipeline.NotificationKey.partial] as? Bool ?? false)
    }
}

/// What reaches the main loop from other threads.
enum LoopEvent: Sendable {
    /// An image load finished (from `ImagePipeline.didFinishLoading`).
    case image(Delivery)
    /// A further gallery page arrived or failed (from `PageLoader`).
    case page(PageLoader.Outcome)
    /// Work for the main thread (an item action's progress: a save finished, a file to open is
    /// ready).
    case main(MainWork)
}

/// A closure the main loop runs on the main thread.
struct MainWork: Sendable {
    let run: @MainActor @Sendable () -> Void
}

/// The browser's inbox of background completions.
typealias Inbox = NotificationInbox<LoopEvent>

extension NotificationInbox where Item == LoopEvent {
    /// Observes `pipeline`'s `didFinishLoading` on `center`.
    convenience init(pipeline: ImagePipeline, center: NotificationCenter, wakePipe: WakePipe) {
        self.init(
            center: center, name: ImagePipeline.didFinishLoading, object: pipeline, wakePipe: wakePipe,
            transform: { Delivery.from($0).map(LoopEvent.image) })
    }
}
