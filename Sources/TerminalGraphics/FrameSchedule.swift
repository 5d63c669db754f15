/// When each frame of an animation is shown: pure, with the time passed in (tests give their
/// own instants; nothing here reads a clock or sleeps).
///
/// The frame shown is ``frame``; it changes when ``advance(to:)`` is called at or after
/// ``due``. The main loop sleeps in `poll` until ``due`` (its wake-up timeout), so playing costs
/// one wake-up per frame and no thread. A late wake-up (a slow frame, a busy machine) skips the
/// frames whose time has passed instead of playing them fast, so the animation keeps its pace;
/// after a stall longer than a whole loop it carries on from the next frame. Pausing keeps the
/// frame and the time left of its delay, which resuming gives back.
public struct FrameSchedule: Sendable, Equatable {
    /// How long each frame stays, in ms (at least 1), one per frame.
    public let delays: [Int]
    /// Times the animation plays, 0: forever; after the last play it stays on its last frame.
    public let loopCount: Int
    /// The frame shown, 0-based.
    public private(set) var frame = 0
    /// Complete plays so far.
    public private(set) var loopsDone = 0
    /// When the next frame is due; nil when paused, finished, or a single frame.
    public private(set) var due: ContinuousClock.Instant?
    /// Paused by the user (``togglePause(at:)``).
    public private(set) var paused = false
    /// Time left of the current frame's delay when paused.
    private var remaining: Duration = .zero
    /// Frame changes made (each ``advance(to:)`` that changed the frame counts once).
    public private(set) var framesShown = 0

    /// A schedule starting on frame 0 at `start`.
    public init(delays: [Int], loopCount: Int = 0, start: ContinuousClock.Instant) {
        self.delays = delays.isEmpty ? [100] : delays.map { max(1, $0) }
        self.loopCount = max(0, loopCount)
        due = self.delays.count > 1 ? start + .milliseconds(self.delays[0]) : nil
    }

    /// True when more frames will come without a key (playing, not finished).
    public var isPlaying: Bool { due != nil }

    /// Moves to the frame due at `now`; true when the frame changed (redraw the image).
    public mutating func advance(to now: ContinuousClock.Instant) -> Bool {
        guard var next = due, now >= next else { return false }
        let start = frame
        let loop = Duration.milliseconds(delays.reduce(0, +))
        // Far behind (the process was stopped, the machine stalled): no catching up.
        if now - next > loop {
            step()
            due = due.map { _ in now + .milliseconds(delays[frame]) }
            return countChange(from: start)
        }
        while now >= next {
            step()
            guard due != nil else { return countChange(from: start) }
            next = next + .milliseconds(delays[frame])
        }
        due = next
        return countChange(from: start)
    }

    /// Pauses (keeping the frame and the time left of its delay) or resumes at `now`.
    public mutating func togglePause(at now: ContinuousClock.Instant) {
        if paused {
            paused = false
            if remaining > .zero { due = now + remaining }
            remaining = .zero
        } else {
            paused = true
            if let due { remaining = max(.milliseconds(1), due - now) }
            due = nil
        }
    }

    /// One frame on; at the end of a play, back to frame 0 or (plays all done) stop.
    private mutating func step() {
        if frame + 1 < delays.count {
            frame += 1
            return
        }
        loopsDone += 1
        if loopCount > 0 && loopsDone >= loopCount {
            due = nil
            return
        }
        frame = 0
    }

    private mutating func countChange(from start: Int) -> Bool {
        if frame != start { framesShown += 1 }
        return frame != start
    }
}
