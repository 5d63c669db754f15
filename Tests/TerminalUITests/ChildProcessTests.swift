import Foundation
import Testing

@testable import TerminalUI

/// `POSIX.run`: a short child program's status and output, bounded in time, nothing left
/// behind (the tmux questions run it several times a second while a picture is up).
@Suite("POSIX.run: a child's output and status, in time, nothing left open")
struct ChildProcessTests {
    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    @Test("output and exit status; PATH lookup; stdin is /dev/null and stderr is not captured")
    func outputAndStatus() throws {
        let echo = try #require(POSIX.run(["printf", "a|b\\n"], timeoutMilliseconds: 5000))
        #expect(echo == .init(status: 0, output: Array("a|b\n".utf8)))
        let failed = try #require(POSIX.run(["sh", "-c", "echo out; echo err >&2; exit 3"], timeoutMilliseconds: 5000))
        #expect(failed == .init(status: 3, output: Array("out\n".utf8)))
        let stdin = try #require(POSIX.run(["sh", "-c", "cat; echo end"], timeoutMilliseconds: 5000))
        #expect(stdin.output == Array("end\n".utf8))
        let killed = try #require(POSIX.run(["sh", "-c", "kill -TERM $$"], timeoutMilliseconds: 5000))
        #expect(killed.status == 128 + SIGTERM)
        #expect(POSIX.run(["vitrine-no-such-program-\(getpid())"], timeoutMilliseconds: 5000) == nil)
    }

    @Test("a child over its time is killed and reaped: nil, in about the time given")
    func timeout() {
        let start = Date()
        #expect(POSIX.run(["sleep", "5"], timeoutMilliseconds: 150) == nil)
        #expect(Date().timeIntervalSince(start) < 2)
        // A child that exits but leaves a daemon holding its output open is not in time either.
        let daemon = Date()
        #expect(POSIX.run(["sh", "-c", "sleep 5 & echo started"], timeoutMilliseconds: 150) == nil)
        #expect(Date().timeIntervalSince(daemon) < 2)
    }

    @Test("no descriptor is left open and the child sees none of ours beyond 0-2")
    func descriptors() throws {
        let before = openDescriptors()
        for _ in 0..<50 { _ = POSIX.run(["true"], timeoutMilliseconds: 5000) }
        _ = POSIX.run(["sleep", "5"], timeoutMilliseconds: 20)
        #expect(openDescriptors() == before)
        // A descriptor of ours without O_CLOEXEC is still closed in the child.
        let fd = open("/dev/null", O_RDONLY)
        defer { close(fd) }
        let listing = try #require(POSIX.run(["ls", "/proc/self/fd"], timeoutMilliseconds: 5000))
        let fds = String(decoding: listing.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(!fds.contains(Int(fd)))
        #expect(fds.filter { $0 > 3 }.isEmpty)  // 0-2, and ls's own directory descriptor (3)
    }
}
