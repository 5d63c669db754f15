import Foundation
import Testing

@testable import vitrine

@Suite("ReadingProgress: the note on stderr while a big gallery is read")
struct ReadingProgressTests {
    let url = URL(fileURLWithPath: "/tmp/g.json")

    @Test("small galleries, unknown sizes and non-terminal stderr show nothing")
    func quietCases() {
        #expect(ReadingProgress(url: url, bytes: ReadingProgress.threshold, stage: "reading", isTerminal: true) == nil)
        #expect(ReadingProgress(url: url, bytes: nil, stage: "reading", isTerminal: true) == nil)
        #expect(ReadingProgress(url: url, bytes: 60 << 20, stage: "reading", isTerminal: false) == nil)
    }

    @Test("the size of a regular file is known before reading; a directory's is not")
    func fileSize() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-progress-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("g.json")
        try Data(count: 1234).write(to: file)
        #expect(ReadingProgress.fileSize(file) == 1234)
        #expect(ReadingProgress.fileSize(dir) == nil)
        #expect(ReadingProgress.fileSize(URL(string: "http://127.0.0.1:9/g.json")!) == nil)
    }
}
