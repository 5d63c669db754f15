import Foundation
import ImagePipeline
import TerminalUI

/// One finished load for one ticket, as the main loop receives it.
struct Delivery: Sendable {
    var ticket: ImagePipeline.Ticket
    var result: Result<DecodedImage, ImagePipeline.Error>

    /// The ticket and result that an `ImagePipeline.didFinishLoading` notification carries.
    static func from(_ note: Notification) -> Delivery? {
        guard let info = note.userInfo,
            let ticket = info[ImagePipeline.NotificationKey.ticket] as? ImagePipeline.Ticket,
            let result = info[ImagePipeline.NotificationKey.result] as? Result<DecodedImage, ImagePipeline.Error>
        else { return nil }
        return Delivery(ticket: ticket, result: result)
    }
}

/// The browser's inbox of pipeline completions.
typealias Inbox = NotificationInbox<Delivery>

extension NotificationInbox where Item == Delivery {
    /// Observes `pipeline`'s `didFinishLoading` on `center`.
    convenience init(pipeline: ImagePipeline, center: NotificationCenter, wakePipe: WakePipe) {
        self.init(
            center: center, name: ImagePipeline.didFinishLoading, object: pipeline, wakePipe: wakePipe,
            transform: Delivery.from)
    }
}
