/// When each frame of an animation is shown: pure, with the time passed in (tests give their
/// own instants; nothing here reads a clock or sleeps).
///
/// The frame shown is ``frame``; it changes when ``advance(to:)`` is called at or after
/// ``due``. The main loop sleeps in `poll` until ``due`` (its wake-up timeout), so playing costs
/// one wake-up per frame and no thread. A late wake-up (a slow frame, a busy machine) skips the
/// frames whose time has passed instead of playing them fast, so the animation keeps its pace;
/// after a stall longer than a whole loop it carries on from the next frame. Pausing keeps the
/// frame and the time left of its delay, which resuming gives back.
///
/// Frames may still be decoding while it plays (``available``, ``framesAvailable(_:at:)``): a
/// frame due before it is decoded is never skipped to nor waited for on a thread; the schedule
/// holds on the last decoded frame (``waiting``) and shows the next one as soon as it is
/// there, its delay counted from then.
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
    /// Frames decoded so far (0..<available may be shown), at least 1, at most `delays.count`.
    public private(set) var available: Int
    /// True while the next frame is due but not decoded yet: the schedule holds on ``frame``
    /// (``due`` is nil) until ``framesAvailable(_:at:)`` brings it.
    public private(set) var waiting = false
    /// Times a frame was due before it was decoded (each hold counts once).
    public private(set) var holds = 0

    /// A schedule starting on frame 0 at `start`, with the first `available` frames decoded
    /// (nil: all of them).
    public init(delays: [Int], loopCount: Int = 0, start: ContinuousClock.Instant, available: Int? = nil) {
        self.delays = delays.isEmpty ? [100] : delays.map { max(1, $0) }
        self.loopCount = max(0, loopCount)
        self.available = min(self.delays.count, max(1, available ?? self.delays.count))
        due = self.delays.count > 1 ? start + .milliseconds(self.delays[0]) : nil
    }

    /// True when more frames will come without a key (playing or holding for a frame being
    /// decoded, not finished).
    public var isPlaying: Bool { due != nil || (waiting && !paused) }

    /// More frames were decoded: frames `0..<count` may be shown. A schedule holding for the
    /// next one (``waiting``) is due at `now` again (unless paused: resuming does it).
    public mutating func framesAvailable(_ count: Int, at now: ContinuousClock.Instant) {
        available = min(delays.count, max(available, count))
        guard waiting, canStep, !paused else { return }
        waiting = false
        due = now
    }

    /// True when the frame after ``frame`` is decoded (the first frame, after the last, always is).
    private var canStep: Bool { frame + 1 >= delays.count || frame + 1 < available }

    /// Holds on ``frame`` until the next is decoded.
    private mutating func hold() {
        waiting = true
        holds += 1
        due = nil
    }

    /// Moves to the frame due at `now`; true when the frame changed (redraw the image).
    public mutating func advance(to now: ContinuousClock.Instant) -> Bool {
        guard var next = due, now >= next else { return false }
        let start = frame
        let loop = Duration.milliseconds(delays.reduce(0, +))
        // Far behind (the process was stopped, the machine stalled): no catching up.
        if now - next > loop {
            guard canStep else {
                hold()
                return countChange(from: start)
            }
            step()
            due = due.map { _ in now + .milliseconds(delays[frame]) }
            return countChange(from: start)
        }
        while now >= next {
            // Never ahead of the decode: hold on the last decoded frame.
            guard canStep else {
                hold()
                return countChange(from: start)
            }
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
            if waiting {
                // Held for a frame being decoded: it shows at once if it came meanwhile.
                if canStep {
                    waiting = false
                    due = now
                }
            } else if remaining > .zero {
                due = now + remaining
            }
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
