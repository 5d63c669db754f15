import TerminalUI

/// The browser's main loop: one turn hands the viewport to the thumbnail loader, draws one
/// frame of everything that changed (finished loads of the turn coalesced: each marks its item,
/// the frame draws them together), sleeps until a key, a background completion or the
/// spinner's next tick, then applies what woke it. While the app has idle work (the search
/// index, built in slices after the gallery opens) the wait does not sleep, and a turn that
/// nothing woke does a slice.
///
/// The executable wires it (`Browser.swift`): `wait` is `EventLoop.wait` (poll on the terminal
/// and the wake pipe), `deliver` drains the inbox into the app, `write` puts pixel-protocol
/// bytes on the terminal outside curses, and `afterFrame` sends what must follow curses's
/// frame (OSC 52). Everything runs on the main thread. Tests drive it with a scripted `wait`
/// and a `LoopScreen` over a `TestCanvas`.
@MainActor
public final class MainLoop {
    public let app: App
    let screen: any LoopScreen
    private let wait: (_ timeoutMilliseconds: Int?) -> EventLoop.Wake
    private let deliver: () -> Void
    private let write: ([UInt8]) -> Void
    private let afterFrame: () -> Void
    private let stopRequested: () -> Bool
    private let cellPixels: () -> (width: Int, height: Int)?
    /// The writer of kitty's pan regions in slices (nil: none, every byte goes through `write`).
    private let output: TerminalWriter?
    private var nextTick = ContinuousClock.now
    /// Frames sent to the terminal (refreshes), for tests and benchmarks.
    public private(set) var frames = 0

    /// - Parameters:
    ///   - wait: sleeps until input, a wake-up or the timeout in ms (nil: none).
    ///   - deliver: applies the background completions that arrived (called when `wait`
    ///     reports `posted`).
    ///   - write: writes bytes to the terminal outside curses.
    ///   - afterFrame: runs after each turn's frame.
    ///   - stopRequested: true when the loop must end now (a termination signal arrived).
    ///   - cellPixels: the cell's size in pixels now, read again on every resize (a font
    ///     change resizes in cells and pixels); nil when the terminal does not say.
    ///   - output: the writer whose transmission (a kitty pan region) goes out in slices: each
    ///     turn writes what the terminal takes before it waits (`wait` must then also wake on
    ///     ``TerminalWriter/pollFD``) and finishes the escape sequence in flight after it, so
    ///     keys, curses's frame and other bytes come between whole sequences.
    public init(
        app: App, screen: any LoopScreen, wait: @escaping (_ timeoutMilliseconds: Int?) -> EventLoop.Wake,
        deliver: @escaping () -> Void, write: @escaping ([UInt8]) -> Void, afterFrame: @escaping () -> Void = {},
        stopRequested: @escaping () -> Bool = { TerminalRestore.pendingTerminationSignal != 0 },
        cellPixels: @escaping () -> (width: Int, height: Int)? = { nil }, output: TerminalWriter? = nil
    ) {
        self.output = output
        self.app = app
        self.screen = screen
        self.wait = wait
        self.deliver = deliver
        self.write = write
        self.afterFrame = afterFrame
        self.stopRequested = stopRequested
        self.cellPixels = cellPixels
    }

    /// Runs until the user quits or `stopRequested`; then withdraws every load and writes the
    /// bytes that take pictures off the screen.
    public func run() {
        app.layout(lines: screen.lines, columns: screen.columns)
        while app.running {
            turn()
            if stopRequested() { break }
        }
        app.cancelAll()
        // A region still going out ends after its escape sequence in flight (its image is
        // deleted): quitting does not wait for the rest.
        output?.abort()
        write(app.pixelOutputAtExit())
        // kitty's shared memory objects or temporary files it did not read are not left behind
        // (the process's exit also takes those still held unsent: Browser.run).
        KittySharedObject.unlinkOutstanding()
    }

    /// One turn: interest, a frame, a wait, then the keys and completions that woke it.
    func turn() {
        app.updateInterest()
        if app.animating && millisecondsUntilTick > Spinner.interval {
            nextTick = ContinuousClock.now + .milliseconds(Spinner.interval)
        }
        // Pictures of a pixel protocol come off before curses draws over their cells and go on
        // after it has drawn (never inside its refresh); one in the cells (sixel, iTerm2) that
        // comes off asks for the repaint below.
        write(app.pixelOutputBeforeRefresh())
        if app.repaintRequested {
            app.repaintRequested = false
            screen.repaintAll()
        }
        if app.draw(on: screen) {
            screen.refresh()
            frames += 1
        }
        afterFrame()
        write(app.pixelOutputAfterRefresh())
        // Idle work (the search index, in slices) keeps the loop from sleeping until it is done;
        // a key or a completion comes first.
        // The spinner's next tick or the animation's next frame, whichever comes first.
        var timeout = app.animating ? max(0, millisecondsUntilTick) : nil
        if let due = app.frameDue {
            let frame = max(0, Self.milliseconds(until: due))
            timeout = min(timeout ?? frame, frame)
        }
        // Inside tmux with a picture: when tmux is next asked whether the pane shows.
        if let due = app.paneCheckDue {
            let check = max(0, Self.milliseconds(until: due))
            timeout = min(timeout ?? check, check)
        }
        // A transmission that finished now is placed by the next turn, at once.
        let sent = output?.pump() ?? false
        let wake = wait(app.hasIdleWork || sent ? 0 : timeout)
        // Whatever comes next (a key's action, curses's frame) follows a whole sequence.
        output?.finishCommand()
        if stopRequested() { return }
        let keys = screen.pendingKeys()
        for key in keys {
            if key == .resize {
                screen.updateSize()
                if let cell = cellPixels() { app.updateCellPixels(width: cell.width, height: cell.height) }
                app.layout(lines: screen.lines, columns: screen.columns)
            } else {
                app.handle(key)
            }
        }
        if wake.posted { deliver() }
        if keys.isEmpty && !wake.posted && app.hasIdleWork { app.idleWork() }
        if app.animating && millisecondsUntilTick <= 0 {
            app.tick()
            nextTick = ContinuousClock.now + .milliseconds(Spinner.interval)
        }
        app.advanceFrames()
        app.checkPane()
    }

    /// Whole milliseconds from now until `instant`, rounded up (so a wake-up is never early);
    /// negative when it has passed.
    static func milliseconds(until instant: ContinuousClock.Instant) -> Int {
        let remaining = instant - ContinuousClock.now
        let (seconds, atto) = remaining.components
        return Int(seconds * 1000) + Int((atto + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    private var millisecondsUntilTick: Int {
        let remaining = nextTick - ContinuousClock.now
        return Int(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
    }
}
