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
    func crossesThreads() async throws {
        // Given an inbox observing a private center
        let center = NotificationCenter()
        let name = Notification.Name("test.rowDidLoad")
        let pipe = try WakePipe()
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
    func ignoresOthers() throws {
        let center = NotificationCenter()
        let name = Notification.Name("test.other")
        let pipe = try WakePipe()
        let inbox = NotificationInbox<Int>(center: center, name: name, object: nil, wakePipe: pipe) { _ in nil }
        center.post(name: name, object: nil)
        #expect(!readable(pipe.readFD, within: 0))
        #expect(inbox.drain().isEmpty)
    }
}

@Suite("POSIX.call")
struct POSIXCallTests {
    @Test("returns the result, retries EINTR, throws other errors with the call's name")
    func retriesAndThrows() throws {
        // Given a call that is interrupted twice and then succeeds
        var attempts = 0
        let result = try POSIX.call("fake") { () -> Int32 in
            attempts += 1
            if attempts < 3 { errno = EINTR; return -1 }
            return 7
        }
        #expect(result == 7 && attempts == 3)
        // When a call fails for good (dup2 of a closed descriptor)
        #expect(throws: POSIXCallError(call: "dup2", code: EBADF)) { try POSIX.call("dup2") { dup2(-1, 99) } }
        #expect(POSIXCallError(call: "dup2", code: EBADF).description == "dup2: Bad file descriptor")
    }
}
