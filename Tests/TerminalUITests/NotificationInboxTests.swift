import Foundation
import Testing

@testable import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

@Suite("NotificationInbox")
struct NotificationInboxTests {
    /// True when `fd` becomes readable within `milliseconds`.
    func readable(_ fd: Int32, within milliseconds: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, milliseconds) == 1
    }

    @Test("a post on a background thread wakes poll() and arrives in order on drain")
    func crossesThreads() async {
        // Given an inbox observing a private center
        let center = NotificationCenter()
        let name = Notification.Name("test.rowDidLoad")
        let pipe = WakePipe()
        let inbox = NotificationInbox<Int>(center: center, name: name, object: nil, wakePipe: pipe) { note in
            note.userInfo?["row"] as? Int
        }
        // The pipe is quiet before anything is posted
        #expect(!readable(pipe.readFD, within: 0))
        // When three rows finish on a background thread
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                for row in [7, 3, 9] { center.post(name: name, object: nil, userInfo: ["row": row]) }
                done.resume()
            }
        }
        // Then poll() on the wake pipe returns at once, and drain gives the rows in order
        #expect(readable(pipe.readFD, within: 1000))
        pipe.drain()
        #expect(inbox.drain() == [7, 3, 9])
        #expect(inbox.drain() == [])
        #expect(!readable(pipe.readFD, within: 0))
    }

    @Test("notifications the transform rejects are ignored and do not wake the loop")
    func ignoresOthers() {
        let center = NotificationCenter()
        let name = Notification.Name("test.other")
        let pipe = WakePipe()
        let inbox = NotificationInbox<Int>(center: center, name: name, object: nil, wakePipe: pipe) { _ in nil }
        center.post(name: name, object: nil)
        #expect(!readable(pipe.readFD, within: 0))
        #expect(inbox.drain().isEmpty)
    }
}
