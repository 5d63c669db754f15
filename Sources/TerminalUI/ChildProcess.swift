#if canImport(Glibc)
import Glibc
#endif

extension POSIX {
    /// The exit status and standard output of a short child program, from ``run(_:timeoutMilliseconds:)``.
    public struct ChildOutput: Sendable, Equatable {
        /// The exit status (`WEXITSTATUS`), or 128 + the signal that ended it.
        public var status: Int32
        /// Everything it wrote to standard output, in bytes.
        public var output: [UInt8]
    }

    /// Runs `argv` (`argv[0]` looked up on `PATH`, as `posix_spawnp` does) with standard input
    /// and standard error on `/dev/null`, standard output into a pipe, every other descriptor
    /// closed in the child, default signal handlers and an empty signal mask, and waits for
    /// it: blocks the calling thread for at most `timeoutMilliseconds` (ms) plus the wait for
    /// a killed child to go. Returns nil when it cannot be started, or does not both close its
    /// output and exit in time (it is then sent SIGKILL and reaped; a daemon it forked that
    /// keeps the pipe open counts as not in time).
    ///
    /// For the tmux questions (`TerminalProbe.askTmux`, ``TmuxPane/ask(pane:server:timeoutMilliseconds:answer:)``),
    /// several a second while a picture is up inside tmux: Foundation's `Process` on Linux
    /// leaked its `Process`, `Pipe` and `FileHandle` objects on every run (LeakSanitizer,
    /// swift-corelibs-foundation 6.3.1), and its output descriptors with them.
    public static func run(_ argv: [String], timeoutMilliseconds: Int) -> ChildOutput? {
        precondition(!argv.isEmpty, "argv names the program")
        var fds: [Int32] = [-1, -1]
        if let pipe2 = GNU.pipe2 {
            guard pipe2(&fds, O_CLOEXEC) == 0 else { return nil }
        } else {
            guard pipe(&fds) == 0 else { return nil }
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        }
        var readEnd = fds[0]
        defer { if readEnd >= 0 { close(readEnd) } }
        let pid = spawn(argv, searchPath: true) { actions in
            posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(actions, fds[1], 1)
            posix_spawn_file_actions_addopen(actions, 2, "/dev/null", O_WRONLY, 0)
            if let closeFrom = GNU.closeFrom { _ = closeFrom(actions, 3) }
        }
        close(fds[1])
        guard let pid else { return nil }

        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        func elapsedMilliseconds() -> Int {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1_000_000
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var finished = false
        while !finished {
            let left = timeoutMilliseconds - elapsedMilliseconds()
            if left <= 0 { break }
            var pfd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { break }
            let n = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { finished = true } else { output += chunk[0..<n] }
        }
        close(readEnd)
        readEnd = -1
        var status: Int32 = 0
        if finished {
            // Output closed: the child exits now or soon; give it the rest of the time.
            while true {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid { return ChildOutput(status: exitStatus(status), output: output) }
                if r < 0 && errno != EINTR { return nil }
                if elapsedMilliseconds() >= timeoutMilliseconds { break }
                usleep(1000)
            }
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return nil
    }

    /// Starts `argv` with this environment, default signal handlers and an empty signal mask
    /// (the child must not inherit the terminal program's ignored SIGINT or blocked signals),
    /// after `fileActions` has added its redirections; `searchPath`: `argv[0]` is looked up on
    /// `PATH` (`posix_spawnp`), else it is a path. Returns the pid, or nil when it cannot start.
    public static func spawn(
        _ argv: [String], searchPath: Bool, fileActions: (UnsafeMutablePointer<posix_spawn_file_actions_t>) -> Void = { _ in }
    ) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        fileActions(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        var pid: pid_t = 0
        let rc =
            searchPath
            ? posix_spawnp(&pid, argv[0], &actions, &attributes, &cArgs, environ)
            : posix_spawn(&pid, argv[0], &actions, &attributes, &cArgs, environ)
        return rc == 0 ? pid : nil
    }

    /// glibc calls that Swift's Glibc module does not declare (they need `_GNU_SOURCE`), looked
    /// up once: `pipe2` (2.9) and `posix_spawn_file_actions_addclosefrom_np` (2.34). Without
    /// them the pipe is made CLOEXEC by `fcntl` and the child keeps our other descriptors
    /// that are not CLOEXEC.
    private enum GNU {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        static let pipe2: Pipe2? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }
        static let closeFrom: CloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            .map { unsafeBitCast($0, to: CloseFrom.self) }
    }

    /// `WEXITSTATUS`, or 128 + `WTERMSIG` for a child ended by a signal (the shell's convention).
    private static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
