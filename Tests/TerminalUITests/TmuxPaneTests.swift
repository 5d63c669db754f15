import Foundation
import Testing

@testable import TerminalUI

/// Whether the pane shows, from tmux's own answer: parsed from recorded output, and asked of a
/// real tmux server on a private socket (a window switch, a zoom, copy mode, a detached session).
@Suite("TmuxPane: is the pane on screen")
struct TmuxPaneTests {
    @Test("the window active with a client attached shows; another window, no client, a zoom to another pane or copy mode do not")
    func parse() {
        #expect(TmuxPane.visible("1 1 0 1 0\n") == true)
        #expect(TmuxPane.visible("1 2 0 0 0") == true)  // a split window's other pane has the focus
        #expect(TmuxPane.visible("0 1 0 1 0") == false)  // another window is selected
        #expect(TmuxPane.visible("1 0 0 1 0") == false)  // detached
        #expect(TmuxPane.visible("1 1 1 0 0") == false)  // zoomed to another pane
        #expect(TmuxPane.visible("1 1 1 1 0") == true)  // zoomed to this one
        #expect(TmuxPane.visible("1 1 0 1 1") == false)  // copy mode
        for garbage in ["", "1 1 0 1", "1 1 0 1 0 1", "a b c d e", "no server running"] {
            #expect(TmuxPane.visible(garbage) == nil)
            #expect(TmuxPane.parse(garbage + "|1|/dev/pts/1|0 0") == nil)
        }
        // The whole answer: the state, the option, the client's tty (only a path under /dev/).
        #expect(TmuxPane.parse("0 1 0 1 0|1|/dev/pts/7|0 0\n") == .init(visible: false, clientTTY: "/dev/pts/7"))
        #expect(TmuxPane.parse("1 1 0 1 0|all||41 0") == .init(visible: true, passthroughWhenHidden: true, paneColumn: 41))
        #expect(TmuxPane.parse("1 1 0 1 0|1||0 12")?.paneRow == 12)
        for tty in ["/tmp/x", "/dev/../tmp/x", "/dev/pts/1\u{1B}", "relative"] {
            #expect(TmuxPane.parse("1 1 0 1 0|1|\(tty)|0 0")?.clientTTY == nil)
        }
        for bad in ["1 1 0 1 0|1", "1 1 0 1 0|1|/dev/pts/1", "1 1 0 1 0|1||x 0", "1 1 0 1 0|1||-1 0", "1 1 0 1 0|1||0"] {
            #expect(TmuxPane.parse(bad) == nil)
        }
    }

    /// Runs tmux on the test's own socket through the shell (a server tmux forks keeps a
    /// Foundation `Process`'s descriptors, and waiting for it would last as long as the
    /// server), its output through a file.
    private func tmux(_ socket: String, _ command: String) -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-tmuxpane-\(getpid()).out")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = system("tmux -L \(socket) -f /dev/null \(command) </dev/null >\(file.path) 2>/dev/null")
        // Read with open(2)/read(2): Foundation 6.3.1's String(contentsOf:) leaks its 4 KiB
        // buffer on an empty file (LeakSanitizer, `make asan-test`).
        var bytes: [UInt8] = []
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                bytes += chunk[0..<n]
            }
            close(fd)
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func ask(_ socket: String, _ pane: String) async -> TmuxPane.State? {
        await withCheckedContinuation { done in
            TmuxPane.ask(pane: pane, server: ["-L", socket]) { done.resume(returning: $0) }
        }
    }

    @Test("a real tmux: a detached session's pane does not show; a pane that is not there gives nil")
    func realTmux() async throws {
        let socket = "vitrine-tmuxpane-\(getpid())"
        defer { _ = tmux(socket, "kill-server") }
        // Both windows in one command: the server is up before either is made.
        _ = tmux(socket, "new-session -d -s s -x 40 -y 10 'sleep 30' \\; new-window -d -t s: 'sleep 30'")
        let panes = tmux(socket, "list-panes -s -t s -F '#{pane_id}'").split(separator: "\n").map(String.init)
        try #require(panes.count == 2)
        // No client is attached: neither window's pane is on a screen, though window 0 is active.
        #expect(await ask(socket, panes[0]) == .init(visible: false))
        #expect(await ask(socket, panes[1]) == .init(visible: false))
        #expect(await ask(socket, "%999") == nil)
        #expect(await ask("vitrine-no-such-server-\(getpid())", panes[0]) == nil)
    }

    @Test("writing around tmux goes to a terminal only")
    func writeOnlyToATerminal() {
        #expect(!TmuxPane.write([0x41], toClientTTY: "/dev/null"))  // not a terminal
        #expect(!TmuxPane.write([0x41], toClientTTY: "/dev/pts/no-such"))
    }
}
