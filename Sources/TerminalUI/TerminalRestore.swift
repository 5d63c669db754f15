import CNcursesw

#if canImport(Glibc)
import Glibc
#endif

/// Gives the terminal back on every way out: quit, every signal whose default action ends the
/// process, crashes and `exit()`.
///
/// - **Termination signals** (``terminationSignals``: SIGHUP, SIGINT, SIGQUIT, SIGTERM,
///   SIGUSR1/2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU, SIGXFSZ and the
///   real-time signals) set a flag and wake the main loop (through the `WakePipe` given to
///   ``watchTerminationSignals(_:)``), which closes the screen normally; `main` then re-raises
///   the signal with its default action, so the process dies of it. A second one before the
///   loop has reacted restores the terminal at once and dies (a wedged loop cannot keep the
///   terminal raw).
/// - **Fatal signals** (``fatalSignals``: SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP,
///   SIGSYS; Swift's runtime traps raise SIGILL or SIGTRAP) restore the terminal with one
///   async-signal-safe `write` and `tcsetattr`, unlink the kitty medium objects that still
///   exist (``CrashUnlinkList``), then re-raise with the default action (core
///   dumps where enabled). They run on an alternate signal stack, so a stack overflow on the
///   main thread still restores.
/// - SIGPIPE is ignored: a write to a closed pipe fails with EPIPE instead.
/// - `atexit` covers `exit()` from anywhere.
///
/// The restore writes bytes prepared while curses was up, from the terminal's own terminfo
/// entry: the pixel-protocol clean-up (``setPixelCleanup(_:)``), `sgr0`, `cnorm` (cursor
/// visible), `rmkx` (keypad-transmit off), mouse reporting off (DECSET 1000/1002/1003/1006),
/// focus reporting off (DECSET 1004),
/// `rmcup` (leave the alternate screen), then the termios saved before curses started.
public enum TerminalRestore {
    nonisolated(unsafe) private static var savedTermios = termios()
    nonisolated(unsafe) private static var haveSaved = false
    nonisolated(unsafe) private static var screenActive: sig_atomic_t = 0
    nonisolated(unsafe) private static var wakeFD: Int32 = -1
    nonisolated(unsafe) private static var terminationSignal: sig_atomic_t = 0
    nonisolated(unsafe) private static var atexitInstalled = false
    nonisolated(unsafe) private static var altStackInstalled = false

    /// Bytes written by the emergency restore (fixed buffers: a signal handler may not allocate).
    private static let restoreCapacity = 1024
    nonisolated(unsafe) private static let restoreBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: restoreCapacity)
    nonisolated(unsafe) private static var restoreCount: sig_atomic_t = 0
    /// Pixel-protocol clean-up, written first (kitty `ESC _ G a=d ESC \`, ...).
    private static let pixelCapacity = 256
    nonisolated(unsafe) private static let pixelBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: pixelCapacity)
    nonisolated(unsafe) private static var pixelCount: sig_atomic_t = 0

    /// Mouse reporting off: X10/normal (1000), button-event (1002), any-event (1003) tracking
    /// and SGR coordinates (1006). Harmless on terminals that never turned them on.
    static let mouseOff = "\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1003l\u{1B}[?1006l"

    /// Focus reporting (DECSET 1004) on and off. Off is in every restore (harmless where it was
    /// never on): a shell left with it on would read `ESC [ I` / `ESC [ O` as typing.
    static let focusOn = "\u{1B}[?1004h"
    static let focusOff = "\u{1B}[?1004l"

    /// Writes `text` to the terminal (fd 1) now, outside curses's buffer: a mode switch.
    static func writeNow(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { writeAll($0.baseAddress!, $0.count) }
    }

    /// Keeps the terminal's settings from before curses, for the crash path.
    static func saveTerminalState() {
        if tcgetattr(0, &savedTermios) == 0 { haveSaved = true }
    }

    /// Signals whose default action ends the process and that come from outside (a user, a
    /// resource limit, a timer): the main loop quits cleanly on each, then `main` re-raises it.
    public static let terminationSignals: [Int32] = {
        var signals = [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
                       SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU, SIGXFSZ]
        let low = __libc_current_sigrtmin(), high = __libc_current_sigrtmax()
        if low > 0 && high >= low { signals += Array(low...high) }
        return signals
    }()

    /// Signals raised by a fault or a trap in this process: the terminal is restored in the
    /// handler itself, then the process dies of the signal.
    public static let fatalSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS]

    /// Arms the fatal-signal and `atexit` paths for a curses screen that has just started;
    /// reads the restore sequence from the current terminfo entry (curses must be set up).
    @MainActor
    static func install(screen: Screen) {
        prepareRestoreBytes()
        screenActive = 1
        installAlternateStack()
        for sig in fatalSignals {
            handle(sig, with: fatalHandler, flags: SA_ONSTACK | Int32(bitPattern: SA_RESETHAND))
        }
        if !atexitInstalled {
            atexitInstalled = true
            atexit(atexitHandler)
        }
    }

    static func uninstall() {
        screenActive = 0
    }

    /// Sets the bytes that delete pixel-protocol images (kitty graphics, sixel placements)
    /// when the terminal is restored on a signal or crash; at most 256 bytes (more are cut).
    /// The pixel presenter calls it when it first draws an image; empty clears it.
    public static func setPixelCleanup(_ bytes: [UInt8]) {
        pixelCount = 0
        let n = min(bytes.count, pixelCapacity)
        for i in 0..<n { pixelBytes[i] = bytes[i] }
        pixelCount = sig_atomic_t(n)
    }

    /// Routes the termination signals to a flag plus a wake-up of `pipe`; the main loop checks
    /// ``pendingTerminationSignal`` and quits cleanly. SIGPIPE is ignored.
    public static func watchTerminationSignals(_ pipe: WakePipe) {
        wakeFD = pipe.writeFD
        for sig in terminationSignals {
            handle(sig, with: terminationHandler, flags: 0)
        }
        signal(SIGPIPE, SIG_IGN)
    }

    /// The termination signal received, or 0.
    public static var pendingTerminationSignal: Int32 { Int32(terminationSignal) }

    /// Ends the process with `sig`'s default action (dies of the signal, as the shell sees it),
    /// after the screen was closed.
    public static func dieOf(_ sig: Int32) -> Never {
        signal(sig, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, sig)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        raise(sig)
        _exit(128 + sig)
    }

    private static func handle(_ sig: Int32, with handler: @convention(c) (Int32) -> Void, flags: Int32) {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = handler
        action.sa_flags = flags
        sigemptyset(&action.sa_mask)
        sigaction(sig, &action, nil)
    }

    /// A 64 KiB stack for the fatal handlers of the main thread (a stack overflow leaves no room
    /// on the thread's own stack to run one).
    private static func installAlternateStack() {
        guard !altStackInstalled else { return }
        let size = 64 << 10
        guard let memory = malloc(size) else { return }
        var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: size)
        if sigaltstack(&stack, nil) == 0 { altStackInstalled = true } else { free(memory) }
    }

    /// The restore sequence from terminfo (after `pixelBytes`, which is written first).
    private static func prepareRestoreBytes() {
        var bytes: [UInt8] = []
        func cap(_ name: String) {
            if let s = vt_tigetstr(name) { bytes += Array(String(cString: s).utf8) }
        }
        cap("sgr0")
        cap("cnorm")
        cap("rmkx")
        bytes += Array(mouseOff.utf8)
        bytes += Array(focusOff.utf8)
        cap("rmcup")
        bytes += Array("\r\n".utf8)
        restoreCount = 0
        let n = min(bytes.count, restoreCapacity)
        for i in 0..<n { restoreBytes[i] = bytes[i] }
        restoreCount = sig_atomic_t(n)
    }

    private static let terminationHandler: @convention(c) (Int32) -> Void = { sig in
        if TerminalRestore.terminationSignal != 0 {
            // A second signal before the loop reacted: restore now and die of this one.
            TerminalRestore.emergencyRestore()
            CrashUnlinkList.unlinkAll()
            signal(sig, SIG_DFL)
            raise(sig)
            return
        }
        TerminalRestore.terminationSignal = sig_atomic_t(sig)
        var byte: UInt8 = 1
        if TerminalRestore.wakeFD >= 0 { _ = write(TerminalRestore.wakeFD, &byte, 1) }
    }

    private static let fatalHandler: @convention(c) (Int32) -> Void = { sig in
        TerminalRestore.emergencyRestore()
        // kitty medium objects the terminal has not read (megabytes of pixels each).
        CrashUnlinkList.unlinkAll()
        signal(sig, SIG_DFL)
        raise(sig)
    }

    private static let atexitHandler: @convention(c) () -> Void = {
        TerminalRestore.emergencyRestore()
    }

    /// Async-signal-safe: writes the pixel clean-up and the restore sequence, and puts back the
    /// saved termios. Does nothing unless a screen is up.
    static func emergencyRestore() {
        guard screenActive != 0 else { return }
        screenActive = 0
        writeAll(UnsafeRawPointer(pixelBytes), Int(pixelCount))
        writeAll(UnsafeRawPointer(restoreBytes), Int(restoreCount))
        if haveSaved { _ = tcsetattr(0, TCSANOW, &savedTermios) }
    }

    /// `write(1, …)` until done; EINTR retried, other errors give up (async-signal-safe).
    private static func writeAll(_ start: UnsafeRawPointer, _ count: Int) {
        var offset = 0
        while offset < count {
            let n = write(1, start + offset, count - offset)
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
