#if canImport(Glibc)
import Glibc
#endif

/// Gives the terminal back on every way out: quit, SIGINT / SIGTERM / SIGHUP, and crashes.
///
/// Termination signals only set a flag and wake the main loop (through the `WakePipe` given to
/// `watchTerminationSignals`), which then closes the screen normally. Fatal signals (SIGSEGV,
/// SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, which Swift's runtime traps raise) restore the saved
/// termios and leave the alternate screen with async-signal-safe calls only, then re-raise so
/// the process still dies of its signal (and dumps core where enabled). `atexit` covers `exit()`
/// from anywhere.
public enum TerminalRestore {
    nonisolated(unsafe) private static var savedTermios = termios()
    nonisolated(unsafe) private static var haveSaved = false
    nonisolated(unsafe) private static var screenActive = false
    nonisolated(unsafe) private static var wakeFD: Int32 = -1
    nonisolated(unsafe) private static var terminationSignal: sig_atomic_t = 0
    nonisolated(unsafe) private static var atexitInstalled = false

    /// Keeps the terminal's settings from before curses, for the crash path.
    static func saveTerminalState() {
        if tcgetattr(0, &savedTermios) == 0 { haveSaved = true }
    }

    @MainActor
    static func install(screen: Screen) {
        screenActive = true
        for sig in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] {
            signal(sig, fatalHandler)
        }
        if !atexitInstalled {
            atexitInstalled = true
            atexit(atexitHandler)
        }
    }

    static func uninstall() {
        screenActive = false
    }

    /// Signals whose default action ends the process: each quits cleanly instead. SIGQUIT
    /// (Ctrl-\\ in cbreak mode) would otherwise print a crash report over the screen.
    static let terminationSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM]

    /// Routes the termination signals to a flag plus a wake-up of `pipe`; the main loop checks
    /// `pendingTerminationSignal` and quits cleanly. SIGPIPE is ignored.
    public static func watchTerminationSignals(_ pipe: WakePipe) {
        wakeFD = pipe.writeFD
        for sig in terminationSignals {
            signal(sig, terminationHandler)
        }
        signal(SIGPIPE, SIG_IGN)
    }

    /// The termination signal received, or 0.
    public static var pendingTerminationSignal: Int32 { Int32(terminationSignal) }

    private static let terminationHandler: @convention(c) (Int32) -> Void = { sig in
        TerminalRestore.terminationSignal = sig_atomic_t(sig)
        var byte: UInt8 = 1
        if TerminalRestore.wakeFD >= 0 { _ = write(TerminalRestore.wakeFD, &byte, 1) }
    }

    private static let fatalHandler: @convention(c) (Int32) -> Void = { sig in
        TerminalRestore.emergencyRestore()
        signal(sig, SIG_DFL)
        raise(sig)
    }

    private static let atexitHandler: @convention(c) () -> Void = {
        TerminalRestore.emergencyRestore()
    }

    /// Async-signal-safe: leave the alternate screen, show the cursor, reset attributes, and put
    /// back the saved termios.
    static func emergencyRestore() {
        guard screenActive else { return }
        screenActive = false
        let reset = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l\r\n"
        reset.utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(1, buffer.baseAddress, buffer.count - 1)
        }
        if haveSaved { tcsetattr(0, TCSANOW, &savedTermios) }
    }
}
