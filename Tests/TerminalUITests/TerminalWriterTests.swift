import Testing

@testable import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// A terminal for `TerminalWriter`: everything written, in order, with the descriptor it came
/// through; the non-blocking descriptor takes `room` bytes, then fails with EAGAIN.
@MainActor
final class FakeTerminal {
    static let blockingFD: Int32 = 100
    static let nonBlockingFD: Int32 = 101
    var stream: [UInt8] = []
    var room = 0
    /// Writes through the blocking descriptor, in order.
    var blockingWrites: [[UInt8]] = []

    var write: (Int32, UnsafeRawPointer, Int) -> Int {
        { [unowned self] fd, pointer, count in
            var n = count
            if fd == Self.nonBlockingFD {
                if room == 0 {
                    errno = EAGAIN
                    return -1
                }
                n = min(count, room)
                room -= n
            }
            let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: n))
            stream += bytes
            if fd == Self.blockingFD { blockingWrites.append(bytes) }
            return n
        }
    }

    func writer() -> TerminalWriter {
        TerminalWriter(fd: Self.blockingFD, nonBlockingFD: Self.nonBlockingFD, write: write)
    }
}

@Suite("TerminalWriter: a transmission in slices, never split by other output")
@MainActor
struct TerminalWriterTests {
    /// `count` kitty chunks of `size` payload bytes each (`a=t` first, `m=0` last).
    static func chunks(_ count: Int, size: Int = 4096, tmux: Bool = false) -> [UInt8] {
        commands(count, size: size, tmux: tmux).flatMap { $0 }
    }

    /// Where each command of ``chunks(_:size:tmux:)`` ends (the index past it).
    static func ends(_ count: Int, size: Int = 4096, tmux: Bool = false) -> [Int] {
        var total = 0
        return commands(count, size: size, tmux: tmux).map { total += $0.count; return total }
    }

    /// True when `a` equals `b` (no thousand-byte listing on failure).
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool { a == b }

    static func commands(_ count: Int, size: Int, tmux: Bool) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for c in 0..<count {
            let keys = c == 0 ? "a=t,f=24,s=64,v=64,i=7,q=2,m=1" : "q=2,m=\(c == count - 1 ? 0 : 1)"
            var command = Array("\u{1B}_G\(keys);".utf8) + [UInt8](repeating: UInt8(ascii: "A"), count: size)
            command += [0x1B, UInt8(ascii: "\\")]
            if tmux {
                var wrapped = Array("\u{1B}Ptmux;".utf8)
                for b in command {
                    if b == 0x1B { wrapped.append(0x1B) }
                    wrapped.append(b)
                }
                command = wrapped + [0x1B, UInt8(ascii: "\\")]
            }
            out.append(command)
        }
        return out
    }

    @Test("pump writes what the terminal takes; other bytes wait for the end of the command in flight")
    func slices() {
        let terminal = FakeTerminal()
        let writer = terminal.writer()
        let bytes = Self.chunks(5)
        var done = 0
        writer.start(bytes, cleanup: [], done: { done += 1 })
        #expect(writer.transmitting && writer.pollFD == FakeTerminal.nonBlockingFD)
        terminal.room = 10_000
        #expect(!writer.pump())
        #expect(terminal.stream.count == 10_000 && writer.bytesLeft == bytes.count - 10_000)
        // A placement now comes after the rest of the third chunk, never inside it.
        let placement = Array("\u{1B}_Ga=p,i=6,p=1,x=10,C=1,q=2\u{1B}\\".utf8)
        writer.write(placement)
        let third = Self.ends(5)[2]
        #expect(terminal.stream.count == third + placement.count)
        #expect(Self.same(Array(terminal.stream[..<third]), Array(bytes[..<third])))
        #expect(Self.same(Array(terminal.stream[third...]), placement))
        // The rest goes out over more turns; done runs once, after the last byte.
        terminal.room = 4000
        #expect(!writer.pump())
        terminal.room = 1 << 20
        #expect(writer.pump())
        #expect(done == 1 && !writer.transmitting && writer.pollFD == nil)
        #expect(Self.same(terminal.stream, Array(bytes[..<third]) + placement + Array(bytes[third...])))
        #expect(writer.counts.finished == 1 && writer.counts.aborted == 0)
    }

    @Test("a kitty delete aborts the transmission: the command in flight is finished, the rest dropped, the cleanup written")
    func deleteAborts() {
        let terminal = FakeTerminal()
        let writer = terminal.writer()
        let bytes = Self.chunks(5)
        let cleanup = Array("\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\\".utf8)
        var (done, aborted) = (0, 0)
        writer.start(bytes, cleanup: cleanup, done: { done += 1 }, aborted: { aborted += 1 })
        terminal.room = 5000
        writer.pump()
        let delete = Array("\u{1B}_Ga=d,d=I,i=6,q=2\u{1B}\\".utf8)
        writer.write(delete)
        let two = Self.ends(5)[1]
        #expect(Self.same(terminal.stream, Array(bytes[..<two]) + cleanup + delete))
        #expect(done == 0 && aborted == 1 && !writer.transmitting)
        #expect(writer.counts.aborted == 1)
        // Nothing more goes out.
        terminal.room = 1 << 20
        #expect(!writer.pump())
        #expect(terminal.stream.count == two + cleanup.count + delete.count)
    }

    @Test("abort (q while a region goes out) ends after the command in flight; a transmission not begun needs no cleanup")
    func abortEnds() {
        let terminal = FakeTerminal()
        let writer = terminal.writer()
        let bytes = Self.chunks(3)
        let cleanup = Array("\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\\".utf8)
        writer.start(bytes, cleanup: cleanup, done: {})
        terminal.room = 1
        writer.pump()
        writer.abort()
        #expect(Self.same(terminal.stream, Array(bytes[..<Self.ends(3)[0]]) + cleanup))
        // Not begun: dropped whole, nothing written.
        let before = terminal.stream.count
        var aborted = false
        writer.start(bytes, cleanup: cleanup, done: {}, aborted: { aborted = true })
        writer.abort()
        #expect(aborted && terminal.stream.count == before)
    }

    @Test("inside tmux's passthrough the inner ESC ESC \\ is not the end of a command")
    func tmuxEnds() {
        let bytes = Self.chunks(2, size: 100, tmux: true)
        let first = Self.ends(2, size: 100, tmux: true)[0]
        for offset in [1, 10, first - 3, first - 2, first - 1] {
            #expect(TerminalWriter.commandEnd(in: bytes, from: offset) == first, "from \(offset)")
        }
        #expect(TerminalWriter.commandEnd(in: bytes, from: first) == first)
        #expect(TerminalWriter.commandEnd(in: bytes, from: first + 1) == bytes.count)
        #expect(TerminalWriter.holdsKittyDelete(Array("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=A\u{1B}\u{1B}\\\u{1B}\\".utf8)))
        #expect(!TerminalWriter.holdsKittyDelete(Array("\u{1B}_Ga=p,i=1\u{1B}\\".utf8)))
    }

    @Test("without a non-blocking descriptor a transmission goes out whole at once")
    func blocking() {
        let terminal = FakeTerminal()
        let writer = TerminalWriter(fd: FakeTerminal.blockingFD, nonBlockingFD: -1, write: terminal.write)
        let bytes = Self.chunks(3)
        var done = false
        writer.start(bytes, cleanup: [], done: { done = true })
        #expect(done && !writer.transmitting && Self.same(terminal.stream, bytes) && writer.pollFD == nil)
    }
}
