import Foundation
import Testing

@testable import vitrine

@Suite("One table of options for the parser, --help and the man page")
struct OptionTableTests {
    /// A value each option accepts that is not its default, by long name.
    static let samples: [String: String] = [
        "--view": "grid", "--row-height": "7", "--grid-size": "9", "--save-dir": "/tmp/saves", "--colors": "256",
        "--size": "20x10", "--background": "checker", "--pixels": "kitty", "--output": "json", "--pages": "3",
        "--memory-cache": "64M", "--disk-cache": "1G", "--max-per-host": "2", "--header": "h.test: X-A: b",
        "--items": ".data[]", "--title": ".t", "--thumb": ".s", "--image": ".i", "--next": ".n", "--preset": "reddit",
    ]

    /// The words before and after an option for `command`: its subcommand and an operand.
    static func command(_ command: OptionDeclaration.Command) -> (head: [String], tail: [String]) {
        switch command {
        case .browse: return ([], ["g.json"])
        case .render: return (["render"], ["a.png"])
        case .list: return (["list"], ["g.json"])
        case .doctor: return (["doctor"], [])
        }
    }

    @Test("every declared option parses, under each of its names, for each command it lists, and changes the result")
    func everyOptionParses() throws {
        for command in OptionDeclaration.Command.allCases {
            let (head, tail) = Self.command(command)
            let plain = try parseArguments(head + tail)
            for option in OptionDeclaration.table where option.commands.contains(command) {
                for name in option.names {
                    var words = [name]
                    if option.value != nil {
                        let sample = try #require(Self.samples[option.long], "no sample value for \(option.long)")
                        words.append(sample)
                    }
                    let parsed: Command
                    do {
                        parsed = try parseArguments(head + words + tail)
                    } catch {
                        Issue.record("\(command) \(words) failed: \(error.message)")
                        continue
                    }
                    #expect(parsed != plain, "\(command) \(words) changed nothing")
                    switch option.id {
                    case .help: #expect(parsed == .help)
                    case .version: #expect(parsed == .version)
                    default: break
                    }
                }
            }
        }
    }

    @Test("an option is refused by the commands it does not list")
    func otherCommandsRefuse() throws {
        for command in OptionDeclaration.Command.allCases {
            let (head, tail) = Self.command(command)
            for option in OptionDeclaration.table where !option.commands.contains(command) {
                let words = [option.long] + (option.value != nil ? [Self.samples[option.long] ?? "x"] : [])
                #expect(throws: Failure.self, "\(command) took \(words)") { try parseArguments(head + words + tail) }
            }
        }
        // And names the table lacks are refused everywhere
        #expect(throws: Failure.self) { try parseArguments(["--colour", "256"]) }
        #expect(throws: Failure.self) { try parseArguments(["render", "-x", "a.png"]) }
    }

    /// The option names in `text`: words that start with `-` and a letter, or `--` and a letter.
    static func optionNames(in text: String) -> Set<String> {
        let separators = CharacterSet(charactersIn: " ,[]()=;:'\"\n\t")
        return Set(text.components(separatedBy: separators).filter { word in
            let body = word.drop { $0 == "-" }
            return (word.hasPrefix("-") && word.count - body.count <= 2) && body.first?.isLetter == true
        })
    }

    @Test("--help lists every option under all its names, with its value, and only those")
    func helpListsEveryOption() throws {
        let help = helpText
        for option in OptionDeclaration.table {
            #expect(help.contains("  " + option.label + " "), "--help lacks '\(option.label)'")
        }
        // Every option-looking word in the option lists is declared (the prose may mention
        // --verbose, which is part of --version's help)
        let start = try #require(help.range(of: "\n    Options:\n") ?? help.range(of: "\nOptions:\n"))
        let end = try #require(help.range(of: "\nKeys ", range: start.upperBound..<help.endIndex))
        let declared = Set(OptionDeclaration.table.flatMap(\.names))
        let lists = help[start.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.hasPrefix("  -") }
        for line in lists {
            let first = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
            // "--OPTION=VALUE is --OPTION VALUE" is the note on the syntax, not an option
            for name in Self.optionNames(in: first) where name != "--OPTION" {
                #expect(declared.contains(name), "--help lists \(name), which the parser does not take")
            }
        }
    }

    @Test("the man page's OPTIONS and MAPPING sections have an entry for every option name, and no other")
    func manPageListsEveryOption() throws {
        let man = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/vitrine.1")
        let text = try String(contentsOf: man, encoding: .utf8)
        let start = try #require(text.range(of: "\n.SH OPTIONS\n"))
        let end = try #require(text.range(of: "\n.SH KEYS\n"))
        // An entry's heading is the line after ".TP": ".BI \-s " COLSxROWS" "\fR, \fP\-\-size " COLSxROWS"
        let lines = text[start.upperBound..<end.lowerBound].components(separatedBy: "\n")
        var named = Set<String>()
        for (i, line) in lines.enumerated() where line == ".TP" && i + 1 < lines.count {
            var heading = lines[i + 1]
            for font in ["\\fR", "\\fP", "\\fB", "\\fI"] { heading = heading.replacingOccurrences(of: font, with: " ") }
            heading = heading.replacingOccurrences(of: "\\-", with: "-")
            for prefix in [".BI ", ".BR ", ".B ", ".IB "] where heading.hasPrefix(prefix) { heading.removeFirst(prefix.count) }
            named.formUnion(Self.optionNames(in: heading))
        }
        let declared = Set(OptionDeclaration.table.flatMap(\.names))
        #expect(declared.subtracting(named).isEmpty, "missing from the man page: \(declared.subtracting(named).sorted())")
        #expect(named.subtracting(declared).isEmpty, "in the man page but not parsed: \(named.subtracting(declared).sorted())")
    }

    @Test("the usage lines list each command's options from the table")
    func usageLines() {
        let render = OptionDeclaration.usageLine("vitrine render IMAGE", .render)
        #expect(render.hasPrefix("vitrine render IMAGE [--colors MODE] [--size COLSxROWS] [--background B] [--pixels P]"))
        #expect(!render.contains("LOADING"))
        let list = OptionDeclaration.usageLine("vitrine list GALLERY...", .list)
        #expect(list.contains("[--output FORMAT]") && list.contains("[LOADING] [MAPPING]") && !list.contains("--view"))
        #expect(OptionDeclaration.usageLine("vitrine doctor", .doctor) == "vitrine doctor [--colors MODE] [--pixels P]")
        // Wrapped lines stay under the width
        for line in helpText.split(separator: "\n") where line.hasPrefix("Usage") || line.hasPrefix("       ") {
            #expect(line.count <= OptionDeclaration.helpWidth, "\(line)")
        }
    }
}
