import Testing

@testable import TerminalGraphics

/// The animation clock, on instants the test makes (no sleeps, no wall clock).
@Suite("FrameSchedule: which frame, and when the next is due")
struct FrameScheduleTests {
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }
    /// `s.advance(to:)` outside `#expect` (which cannot call a mutating method).
    func advance(_ s: inout FrameSchedule, _ now: ContinuousClock.Instant) -> Bool { s.advance(to: now) }

    @Test("frames change at their own delays, in order, and loop forever")
    func ownDelays() {
        var s = FrameSchedule(delays: [100, 200, 300], start: at(0))
        #expect(s.frame == 0 && s.due == at(100) && s.isPlaying)
        #expect(!advance(&s, at(99)))
        #expect(s.frame == 0)
        #expect(advance(&s, at(100)))
        #expect(s.frame == 1 && s.due == at(300))
        #expect(!advance(&s, at(299)))
        #expect(advance(&s, at(300)))
        #expect(s.frame == 2 && s.due == at(600))
        // The end of a play goes back to frame 0, and on.
        #expect(advance(&s, at(600)))
        #expect(s.frame == 0 && s.due == at(700) && s.loopsDone == 1)
        #expect(s.framesShown == 3)
    }

    @Test("a late wake-up skips the frames whose time passed and keeps the pace")
    func lateWakeSkips() {
        var s = FrameSchedule(delays: [100, 100, 100, 100], start: at(0))
        // Woken at 250 ms instead of 100: frame 2 (due 200-300), next due at 300, not 350.
        #expect(advance(&s, at(250)))
        #expect(s.frame == 2 && s.due == at(300))
        #expect(s.framesShown == 1)
    }

    @Test("after a stall longer than a whole loop, the next frame comes, timed from now")
    func longStall() {
        var s = FrameSchedule(delays: [100, 100, 100], start: at(0))
        #expect(advance(&s, at(5000)))
        #expect(s.frame == 1 && s.due == at(5100))
    }

    @Test("pause keeps the frame and the time left of its delay; resume gives it back")
    func pauseResume() {
        var s = FrameSchedule(delays: [100, 400], start: at(0))
        #expect(advance(&s, at(100)))
        #expect(s.frame == 1 && s.due == at(500))
        s.togglePause(at: at(200))
        #expect(s.paused && s.due == nil && !s.isPlaying)
        // Paused: time passing changes nothing.
        #expect(!advance(&s, at(10_000)))
        #expect(s.frame == 1)
        // Resumed at 1000 ms with 300 ms of frame 1 left.
        s.togglePause(at: at(1000))
        #expect(!s.paused && s.due == at(1300))
        #expect(!advance(&s, at(1299)))
        #expect(advance(&s, at(1300)))
        #expect(s.frame == 0)
    }

    @Test("a loop count plays that many times and stops on the last frame")
    func loopCount() {
        var s = FrameSchedule(delays: [50, 50], loopCount: 2, start: at(0))
        #expect(advance(&s, at(50)))  // frame 1
        #expect(advance(&s, at(100)))  // frame 0, second play
        #expect(advance(&s, at(150)))  // frame 1
        #expect(s.frame == 1 && s.due == at(200))
        // The end of the second play: it stays on frame 1, nothing more is due.
        #expect(!advance(&s, at(200)))
        #expect(s.frame == 1 && s.due == nil && !s.isPlaying && s.loopsDone == 2)
    }

    @Test("a single frame is never due; delays below 1 ms count as 1")
    func singleFrame() {
        var s = FrameSchedule(delays: [100], start: at(0))
        #expect(s.due == nil && !advance(&s, at(1000)))
        let z = FrameSchedule(delays: [0, -5], start: at(0))
        #expect(z.delays == [1, 1] && z.due == at(1))
    }

    @Test("frames still decoding: a frame due before it is decoded holds the last one, never skips ahead, and shows as it comes")
    func holdsForUndecodedFrames() {
        var s = FrameSchedule(delays: [100, 100, 100, 100], start: at(0), available: 2)
        #expect(s.available == 2 && s.isPlaying && !s.waiting)
        #expect(advance(&s, at(100)))
        #expect(s.frame == 1 && s.due == at(200))
        // Frame 2 is due at 200 ms but not decoded: hold on frame 1, no wake-up due.
        #expect(!advance(&s, at(250)))
        #expect(s.frame == 1 && s.waiting && s.due == nil && s.isPlaying && s.holds == 1)
        // A late wake-up far past the due time does not skip to an undecoded frame either.
        #expect(!advance(&s, at(5000)))
        #expect(s.frame == 1)
        // Frame 2 arrives at 300 ms: due at once, then its own delay from then.
        s.framesAvailable(3, at: at(300))
        #expect(!s.waiting && s.due == at(300))
        #expect(advance(&s, at(300)))
        #expect(s.frame == 2 && s.due == at(400))
        // A late wake-up skips only up to the last decoded frame: frame 3 is not there yet.
        #expect(!advance(&s, at(650)))
        #expect(s.frame == 2 && s.waiting)
        s.framesAvailable(4, at: at(700))
        #expect(advance(&s, at(700)))
        #expect(s.frame == 3 && s.due == at(800))
        // All decoded: the loop goes back to frame 0 and on, as any schedule.
        #expect(advance(&s, at(800)))
        #expect(s.frame == 0 && s.loopsDone == 1 && s.due == at(900) && s.holds == 2)
    }

    @Test("paused while holding: frames arriving meanwhile wait for the resume, which shows the next at once")
    func pausedWhileHolding() {
        var s = FrameSchedule(delays: [100, 100, 100], start: at(0), available: 1)
        #expect(!advance(&s, at(100)))
        #expect(s.waiting && s.frame == 0)
        s.togglePause(at: at(120))
        s.framesAvailable(3, at: at(150))
        #expect(s.paused && s.due == nil && !s.isPlaying)
        s.togglePause(at: at(400))
        #expect(!s.paused && !s.waiting && s.due == at(400))
        #expect(advance(&s, at(400)))
        #expect(s.frame == 1 && s.due == at(500))
        // Resumed while still holding (nothing new): still holding, shown when it comes.
        var t = FrameSchedule(delays: [100, 100], start: at(0), available: 1)
        _ = advance(&t, at(100))
        t.togglePause(at: at(110))
        t.togglePause(at: at(120))
        #expect(t.waiting && t.due == nil && t.isPlaying)
        t.framesAvailable(2, at: at(130))
        #expect(t.due == at(130))
    }
}
