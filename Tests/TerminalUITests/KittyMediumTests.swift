import Foundation
import Testing

@testable import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// kitty's transmission medium: the probe's queries, the answers recorded from terminals, the
/// decision, and the lifecycle of the shared memory objects and temporary files.
@Suite("Kitty transmission medium", .serialized)
struct KittyMediumTests {
    /// kitty 0.26.5 on the same host: graphics OK, the shared memory and temp-file queries OK.
    static let local = Array(
        "\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;OK\u{1B}\\\u{1B}_Gi=33;OK\u{1B}\\\u{1B}[?62;c".utf8)
    /// kitty over ssh: the objects are on another host (the error texts kitty 0.26 sends).
    static let remote = Array(
        ("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;EBADF:Failed to open shared memory object: No such file or directory\u{1B}\\"
            + "\u{1B}_Gi=33;ENOENT:Failed to open file for graphics transmission: No such file or directory\u{1B}\\\u{1B}[?62;c").utf8)

    func facts(_ answers: [UInt8]?, env: [String: String] = ["TERM": "xterm-kitty"], complete: Bool = true) -> TerminalCapabilities.Facts {
        .init(
            environment: env, isTerminal: true, windowSize: .init(columns: 80, rows: 24),
            answers: answers.map(TerminalAnswers.parse), answersComplete: complete)
    }

    @Test("the replies are told apart by image id: 31 graphics, 32 shared memory, 33 temporary file")
    func parseReplies() {
        let a = TerminalAnswers.parse(Self.local)
        #expect(a.kittyGraphics == true && a.kittySharedMemory == "OK" && a.kittyTempFile == "OK")
        #expect(a.unrecognizedBytes == 0)
        let r = TerminalAnswers.parse(Self.remote)
        #expect(r.kittyGraphics == true)
        #expect(r.kittySharedMemory?.hasPrefix("EBADF:") == true)
        #expect(r.kittyTempFile?.hasPrefix("ENOENT:") == true)
    }

    @Test("OK to t=s: shared memory; only t=t OK: temporary file; errors: direct, with the errors named")
    func decide() {
        let local = TerminalCapabilities.detect(facts(Self.local))
        #expect(local.pixels == .kitty && local.kittyMedium == .sharedMemory)
        #expect(local.report.contains("kitty medium: shared-memory"))
        let fileOnly = Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;ENOENT:no\u{1B}\\\u{1B}_Gi=33;OK\u{1B}\\\u{1B}[?62;c".utf8)
        let file = TerminalCapabilities.detect(facts(fileOnly))
        #expect(file.kittyMedium == .tempFile)
        #expect(file.kittyMediumReason.contains("ENOENT:no"))
        let remote = TerminalCapabilities.detect(facts(Self.remote))
        #expect(remote.pixels == .kitty && remote.kittyMedium == .direct)
        #expect(remote.kittyMediumReason.contains("EBADF:") && remote.kittyMediumReason.contains("t=d"))
    }

    @Test("no answer to the medium queries (an older kitty, a terminal that drops them): direct")
    func noAnswer() {
        let quiet = TerminalCapabilities.detect(facts(Recorded.kitty))
        #expect(quiet.pixels == .kitty && quiet.kittyMedium == .direct)
        #expect(quiet.kittyMediumReason.contains("no answer"))
        // Nothing at all before the deadline: kitty from the environment, still direct.
        let silent = TerminalCapabilities.detect(facts([], complete: false))
        #expect(silent.pixels == .kitty && silent.kittyMedium == .direct)
        // Not kitty: the medium is not used.
        let xterm = TerminalCapabilities.detect(facts(Recorded.xtermVT340, env: ["TERM": "xterm"]))
        #expect(xterm.pixels == .sixel && xterm.kittyMedium == .direct && !xterm.report.contains("kitty medium"))
    }

    @Test("garbage and a cut-off reply never count as OK")
    func garbage() {
        let junk = Array("\u{1B}_Gi=32;\u{1B}\\\u{1B}_Gi=3x2;OK\u{1B}\\zz\u{1B}_Gi=33,p=OK;EINVAL\u{1B}\\\u{1B}[?62;c\u{1B}_Gi=32;OK".utf8)
        let a = TerminalAnswers.parse(junk)
        #expect(a.kittySharedMemory == "")
        #expect(a.kittyTempFile == "EINVAL")
        let c = TerminalCapabilities.detect(facts(junk))
        #expect(c.kittyMedium == .direct)
        // Control bytes in an error text are dropped (the reason is printed by doctor).
        let control = TerminalAnswers.parse(Array("\u{1B}_Gi=32;E\u{07}\u{9B}BAD\u{1B}\\".utf8))
        #expect(control.kittySharedMemory == "EBAD")
    }

    @Test("VITRINE_KITTY_MEDIUM forces a medium, and direct makes the probe ask nothing of it")
    func forced() {
        let env = ["TERM": "xterm-kitty", "VITRINE_KITTY_MEDIUM": "direct"]
        let c = TerminalCapabilities.detect(facts(Self.local, env: env))
        #expect(c.kittyMedium == .direct && c.kittyMediumReason == "VITRINE_KITTY_MEDIUM=direct")
        #expect(TerminalProbe.mediumProbes(environment: env).isEmpty)
        #expect(KittyMedium(environmentValue: "shm") == .sharedMemory)
        #expect(KittyMedium(environmentValue: "auto") == nil)
        // An unknown value is said (without its control bytes) and the probe's answer used.
        let bogus = TerminalCapabilities.detect(
            facts(Self.local, env: ["TERM": "xterm-kitty", "VITRINE_KITTY_MEDIUM": "bogus\u{1B}[2J"]))
        #expect(bogus.kittyMedium == TerminalCapabilities.detect(facts(Self.local, env: ["TERM": "xterm-kitty"])).kittyMedium)
        #expect(bogus.kittyMediumReason.hasPrefix("VITRINE_KITTY_MEDIUM=bogus[2J is not direct, shared-memory, temp-file or auto: ignored; "))
        #expect(!bogus.kittyMediumReason.unicodeScalars.contains { $0.value < 0x20 })
        let auto = TerminalCapabilities.detect(facts(Self.local, env: ["TERM": "xterm-kitty", "VITRINE_KITTY_MEDIUM": "auto"]))
        #expect(!auto.kittyMediumReason.contains("ignored"))
    }

    @Test("the queries carry each object's name in base64 with t=s and t=t, before DA1; the objects go when released")
    func queries() throws {
        var names: [String] = []
        do {
            let media = TerminalProbe.mediumProbes(environment: [:])
            #expect(media.map(\.medium) == [.sharedMemory, .tempFile])
            names = media.map(\.name)
            let text = String(decoding: TerminalProbe.queries(tmuxPassthrough: false, media: media).bytes, as: UTF8.self)
            for object in media {
                let b64 = String(decoding: Base64.encode(Array(object.name.utf8)), as: UTF8.self)
                let id = object.medium == .sharedMemory ? 32 : 33
                #expect(text.contains("\u{1B}_Gi=\(id),s=1,v=1,a=q,t=\(object.medium.key),f=24;\(b64)\u{1B}\\"))
                #expect(KittySharedObject.exists(object.medium, object.name))
            }
            #expect(text.hasSuffix("\u{1B}[c"))
            let wrapped = TerminalProbe.queries(tmuxPassthrough: true, media: media)
            #expect(String(decoding: wrapped.bytes, as: UTF8.self).contains("\u{1B}\u{1B}_Gi=32,"))
        }
        #expect(names.count == 2)
        #expect(!KittySharedObject.exists(.sharedMemory, names[0]))
        #expect(!KittySharedObject.exists(.tempFile, names[1]))
    }

    @Test("an object is mode 0600 under a random tty-graphics-protocol name, holds what was written, and is unlinked if never handed over")
    func objectLifecycle() throws {
        for medium in [KittyMedium.sharedMemory, .tempFile] {
            var name = ""
            do {
                let object = try #require(
                    KittySharedObject(medium: medium, byteCount: 5) { buffer in
                        for i in 0..<5 { buffer[i] = UInt8(10 + i) }
                    })
                name = object.name
                let other = try #require(KittySharedObject(medium: medium, byteCount: 1) { _ in })
                #expect(other.name != object.name)
                let path = medium == .sharedMemory ? "/dev/shm" + name : name
                let base = (path as NSString).lastPathComponent
                #expect(base.hasPrefix("tty-graphics-protocol-") && base.count == 22 + 32)
                var st = stat()
                #expect(lstat(path, &st) == 0)
                #expect(st.st_mode & 0o777 == 0o600)
                #expect(st.st_mode & S_IFMT == S_IFREG)
                #expect(st.st_size == 5)
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data([10, 11, 12, 13, 14]))
            }
            #expect(!KittySharedObject.exists(medium, name), "\(medium) object left behind")
        }
    }

    @Test("an object made by copying (write(2), no mapping) is the same: mode 0600, the bytes, unlinked if not handed over")
    func copyingObject() throws {
        let bytes: [UInt8] = (0..<100_000).map { UInt8($0 % 251) }
        for medium in [KittyMedium.sharedMemory, .tempFile] {
            var name = ""
            do {
                let object = try #require(bytes.withUnsafeBytes { KittySharedObject(medium: medium, copying: $0) })
                name = object.name
                let path = medium == .sharedMemory ? "/dev/shm" + name : name
                var st = stat()
                #expect(lstat(path, &st) == 0 && st.st_mode & 0o777 == 0o600 && st.st_size == 100_000)
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
            }
            #expect(!KittySharedObject.exists(medium, name))
        }
        let dir = NSTemporaryDirectory() + "vitrine-no-such-dir-\(getpid())"
        #expect(bytes.withUnsafeBytes { KittySharedObject(medium: .tempFile, copying: $0, directory: dir) } == nil)
    }

    @Test("handed over, an object is the terminal's; those not taken are unlinked by unlinkOutstanding")
    func outstanding() throws {
        KittySharedObject.unlinkOutstanding()
        var taken = "", left = ""
        do {
            let a = try #require(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in })
            let b = try #require(KittySharedObject(medium: .tempFile, byteCount: 3) { _ in })
            #expect(a.handOver() == Array(a.name.utf8))
            _ = b.handOver()
            (taken, left) = (a.name, b.name)
        }
        // Released after the hand-over: still there (the terminal unlinks it after reading).
        #expect(KittySharedObject.exists(.sharedMemory, taken) && KittySharedObject.exists(.tempFile, left))
        // The terminal takes the first.
        shm_unlink(taken)
        #expect(KittySharedObject.outstanding == [left])
        KittySharedObject.unlinkOutstanding()
        #expect(!KittySharedObject.exists(.tempFile, left))
        #expect(KittySharedObject.outstanding.isEmpty)
    }

    @Test("on exit every object goes, unsent ones still held too (a worker's region), and later ones unlink at once")
    func unlinkAllAtExit() throws {
        KittySharedObject.unlinkOutstanding()
        defer { KittySharedObject.reopenAfterExitForTesting() }
        let held = try #require(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in })
        let file = try #require(KittySharedObject(medium: .tempFile, byteCount: 3) { _ in })
        let sent = try #require(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in })
        _ = sent.handOver()
        #expect(KittySharedObject.exists(.sharedMemory, held.name) && KittySharedObject.exists(.tempFile, file.name))
        KittySharedObject.unlinkAllAtExit()
        // Still referenced (the process is about to exit, no deinit would run), yet gone.
        #expect(!KittySharedObject.exists(.sharedMemory, held.name), "an unsent object held at exit was left behind")
        #expect(!KittySharedObject.exists(.tempFile, file.name), "an unsent temporary file held at exit was left behind")
        #expect(!KittySharedObject.exists(.sharedMemory, sent.name))
        // A worker finishing its encode after the exit path: nothing is made, nothing is left.
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? [])
        #expect(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in } == nil)
        #expect([UInt8](repeating: 1, count: 8).withUnsafeBytes { KittySharedObject(medium: .sharedMemory, copying: $0) } == nil)
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm")) ?? [])
        #expect(after.subtracting(before).filter { $0.hasPrefix("tty-graphics-protocol-") }.isEmpty)
        // Their deinit later unlinks nothing of anyone else's.
        withExtendedLifetime((held, file, sent)) {}
    }

    @Test("for a crash: every object that exists is kept for the fatal handler, unsent or handed over, until it is unlinked or taken")
    func crashList() throws {
        KittySharedObject.unlinkOutstanding()
        let unsent = try #require(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in })
        let sent = try #require(KittySharedObject(medium: .tempFile, byteCount: 3) { _ in })
        let taken = try #require(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in })
        _ = sent.handOver()
        _ = taken.handOver()
        let paths = ["/dev/shm" + unsent.name, sent.name, "/dev/shm" + taken.name]
        #expect(Set(paths).isSubset(of: Set(CrashUnlinkList.kept)))
        // The terminal takes one: the next hand-over prunes it from both lists.
        shm_unlink(taken.name)
        let next = try #require(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in })
        _ = next.handOver()
        #expect(!CrashUnlinkList.kept.contains(paths[2]))
        // The fatal handler's call unlinks the rest (here called directly) and forgets them.
        CrashUnlinkList.unlinkAllForTesting()
        #expect(!KittySharedObject.exists(.sharedMemory, unsent.name), "an unsent object was left")
        #expect(!KittySharedObject.exists(.tempFile, sent.name), "a handed-over file was left")
        #expect(!KittySharedObject.exists(.sharedMemory, next.name))
        #expect(CrashUnlinkList.kept.isEmpty)
        withExtendedLifetime((unsent, sent, taken, next)) {}
        KittySharedObject.unlinkOutstanding()
    }

    @Test("the crash list: unlinked objects are forgotten; a path too long or with a NUL is not kept; full slots keep no more")
    func crashListBounds() throws {
        KittySharedObject.unlinkOutstanding()
        var released = ""
        do {
            let object = try #require(KittySharedObject(medium: .sharedMemory, byteCount: 3) { _ in })
            released = "/dev/shm" + object.name
            #expect(CrashUnlinkList.kept.contains(released))
        }
        // Released unsent: deinit unlinked it, and the list forgot it.
        #expect(!CrashUnlinkList.kept.contains(released))
        #expect(!CrashUnlinkList.add("/tmp/" + String(repeating: "x", count: CrashUnlinkList.slotBytes)))
        #expect(!CrashUnlinkList.add("/tmp/a\u{0}b") && !CrashUnlinkList.add(""))
        let dir = NSTemporaryDirectory() + "vitrine-crash-list-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // (Slots another test's live objects hold are not free.)
        let free = CrashUnlinkList.slots - CrashUnlinkList.kept.count
        let files = (0...free).map { "\(dir)/\($0)" }
        for f in files { #expect(FileManager.default.createFile(atPath: f, contents: Data([1]))) }
        let added = files.map { CrashUnlinkList.add($0) }
        #expect(added.filter { $0 }.count == free && added.last == false)
        CrashUnlinkList.remove(files[0])
        #expect(!CrashUnlinkList.kept.contains(files[0]) && CrashUnlinkList.kept.count == CrashUnlinkList.slots - 1)
        CrashUnlinkList.unlinkAllForTesting()
        #expect(FileManager.default.fileExists(atPath: files[0]), "a forgotten path was unlinked")
        #expect(files.dropFirst().dropLast().allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(FileManager.default.fileExists(atPath: files.last!), "a path not kept was unlinked")
        #expect(CrashUnlinkList.kept.isEmpty)
    }

    @Test("an object that cannot be made leaves nothing and gives nil (the caller goes direct)")
    func failure() {
        let dir = NSTemporaryDirectory() + "vitrine-no-such-dir-\(getpid())"
        #expect(KittySharedObject(medium: .tempFile, byteCount: 4, directory: dir) { _ in } == nil)
        #expect(KittySharedObject(medium: .direct, byteCount: 4) { _ in } == nil)
        #expect(KittySharedObject(medium: .sharedMemory, byteCount: 0) { _ in } == nil)
        // Too large to size: ftruncate fails, the object is unlinked.
        let before = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm"))?.filter { $0.hasPrefix("tty-graphics-protocol-") }
        #expect(KittySharedObject(medium: .sharedMemory, byteCount: Int.max) { _ in } == nil)
        let after = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm"))?.filter { $0.hasPrefix("tty-graphics-protocol-") }
        #expect(Set(after ?? []).isSubset(of: Set(before ?? [])))
    }

    @Test("base64 of short names: RFC 4648 with padding")
    func base64() {
        for text in ["", "f", "fo", "foo", "foob", "/tty-graphics-protocol-0123"] {
            #expect(String(decoding: Base64.encode(Array(text.utf8)), as: UTF8.self) == Data(text.utf8).base64EncodedString())
        }
    }
}
