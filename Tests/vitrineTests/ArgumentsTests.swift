import Testing

@testable import vitrine

@Suite("Command-line conventions")
struct ArgumentsTests {
    @Test("--opt=value is --opt value")
    func equalsForm() throws {
        #expect(try parseArguments(["list", "g.json", "--output=json", "--pages=3"])
            == parseArguments(["list", "g.json", "--output", "json", "--pages", "3"]))
        guard case .render(_, let options) = try parseArguments(["render", "a.png", "--size=20x10"]) else {
            Issue.record("not render")
            return
        }
        #expect(options.size?.0 == 20 && options.size?.1 == 10)
    }

    @Test("-- ends the options: what follows is the operand, even '-x' or 'render'")
    func doubleDash() throws {
        guard case .list(let gallery, _) = try parseArguments(["list", "--", "--weird.json"]) else {
            Issue.record("not list")
            return
        }
        #expect(gallery == ["--weird.json"])
        guard case .browse(let browsed, _) = try parseArguments(["--", "render"]) else {
            Issue.record("not browse")
            return
        }
        #expect(browsed == ["render"])
        // Several galleries may follow (and precede) it
        guard case .list(let two, _) = try parseArguments(["list", "a.json", "--", "-b.json"]) else {
            Issue.record("not list")
            return
        }
        #expect(two == ["a.json", "-b.json"])
    }

    @Test("--help as an option's value is a value; as an option it is help")
    func helpAsValue() throws {
        guard case .list(_, let options) = try parseArguments(["list", "g.json", "--title", #""--help""#]) else {
            Issue.record("--help in --title's value was taken for help")
            return
        }
        #expect(options.reading.mapping.title?.text == #""--help""#)
        // A value that is just --help is checked as that option's value, not taken for help
        #expect(throws: Failure.self) { try parseArguments(["list", "g.json", "--output", "--help"]) }
        #expect(try parseArguments(["list", "g.json", "--help"]) == .help)
        #expect(try parseArguments(["render", "-h"]) == .help)
        #expect(try parseArguments(["cache", "--help"]) == .help)
        #expect(try parseArguments(["--", "--help"]) == .browse(galleries: ["--help"], options: BrowseOptions()))
    }
}
