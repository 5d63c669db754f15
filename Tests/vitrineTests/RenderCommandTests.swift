import Foundation
import HalfBlock
import Testing

@testable import vitrine

@Suite("vitrine render: default colour mode and messages")
struct RenderCommandTests {
    @Test("from the environment, as the browser: NO_COLOR, COLORTERM, TERM")
    func defaultColors() {
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm-256color", "NO_COLOR": "1"]) == .none)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"]) == .truecolor)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm-direct"]) == .truecolor)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "tmux-256color"]) == .palette256)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "xterm"]) == .palette16)
        #expect(RenderCommand.defaultColorMode(environment: ["TERM": "dumb"]) == .none)
        #expect(RenderCommand.defaultColorMode(environment: [:]) == .none)
    }

    @Test("a plain path argument is opened as a path, made absolute as URL(fileURLWithPath:) does; URL arguments are not")
    func plainPaths() throws {
        let cwd = FileManager.default.currentDirectoryPath
        for argument in ["/tmp/x.png", "x.png", "a/b c.png"] {
            let url = try GallerySource.resolve(argument, standardize: false)
            #expect(RenderCommand.plainPath(argument, url: url) == url.path, "\(argument)")
        }
        #expect(RenderCommand.plainPath("x.png", url: try GallerySource.resolve("x.png", standardize: false)) == cwd + "/x.png")
        for argument in ["file:///tmp/x.png", "data:image/png;base64,AAAA", "http://127.0.0.1/x.png"] {
            #expect(RenderCommand.plainPath(argument, url: try GallerySource.resolve(argument, standardize: false)) == nil, "\(argument)")
        }
    }

    @Test("limits read as limits: the size cap in MiB, the pixel cap in megapixels")
    func limitMessages() {
        #expect(RenderCommand.message(for: .responseTooLarge(limit: 64 << 20)) == "larger than the 64 MiB limit for an image; not read")
        #expect(RenderCommand.message(for: .responseTooLarge(limit: 1000)) == "larger than the 1000 bytes limit for an image; not read")
        #expect(RenderCommand.message(for: .tooManyPixels(width: 20_000, height: 20_000, limit: 100_000_000))
            == "20000 x 20000 pixels (400 megapixels) is over the limit of 100 megapixels; not decoded")
    }
}
