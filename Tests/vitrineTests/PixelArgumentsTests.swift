import HalfBlock
import Testing

#if canImport(Glibc)
import Glibc
#endif
import TerminalUI

@testable import vitrine

@Suite("vitrine render --pixels and doctor: arguments")
struct PixelArgumentsTests {
    @Test("--pixels takes auto and the four protocols; default auto")
    func pixels() throws {
        guard case .render(_, let plain) = try parseArguments(["render", "a.png"]) else { Issue.record("not render"); return }
        #expect(plain.pixels == .auto)
        for (word, expected) in [("kitty", PixelProtocol.kitty), ("sixel", .sixel), ("iterm", .iterm), ("halfblock", .halfblock)] {
            guard case .render(_, let options) = try parseArguments(["render", "a.png", "--pixels", word]) else {
                Issue.record("not render")
                return
            }
            #expect(options.pixels == .fixed(expected))
        }
        #expect(throws: Failure.self) { try parseArguments(["render", "a.png", "--pixels", "braille"]) }
    }

    @Test("the browser takes --pixels for its full view; default auto")
    func browserPixels() throws {
        guard case .browse(_, let plain) = try parseArguments(["g.json"]) else { Issue.record("not browse"); return }
        #expect(plain.pixels == .auto)
        guard case .browse(let galleries, let options) = try parseArguments(["g.json", "--pixels", "sixel"]) else {
            Issue.record("not browse")
            return
        }
        #expect(galleries == ["g.json"] && options.pixels == .fixed(.sixel))
        #expect(throws: Failure.self) { try parseArguments(["g.json", "-p", "ascii"]) }
    }

    @Test("doctor takes --pixels and --colors; --version --verbose is doctor")
    func doctor() throws {
        #expect(try parseArguments(["doctor"]) == .doctor(DoctorOptions()))
        #expect(
            try parseArguments(["doctor", "--pixels", "sixel", "--colors", "256"])
                == .doctor(DoctorOptions(pixels: .fixed(.sixel), colors: .palette256)))
        #expect(try parseArguments(["--version", "--verbose"]) == .doctor(DoctorOptions()))
        #expect(try parseArguments(["--version"]) == .version)
        #expect(throws: Failure.self) { try parseArguments(["doctor", "extra"]) }
    }

    @Test("off a terminal render keeps half blocks unless --pixels names a protocol", .enabled(if: isatty(1) == 0))
    func pipedOutput() {
        var options = RenderCommandOptions()
        #expect(RenderCommand.pixelCapabilities(options: options, environment: ["KITTY_WINDOW_ID": "1"]).pixels == .halfblock)
        options.pixels = .fixed(.sixel)
        #expect(RenderCommand.pixelCapabilities(options: options, environment: [:]).pixels == .sixel)
    }
}
