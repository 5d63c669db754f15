import Foundation
import TerminalUI
import Testing

@testable import Browse

@Suite("Bindings: the one key table")
struct BindingsTests {
    @Test("no key is bound twice in one view")
    func noDuplicates() {
        for view in ViewKind.allCases {
            var seen: [Key: String] = [:]
            for binding in Bindings.bindings(in: view) {
                for key in binding.keys {
                    #expect(seen[key] == nil, "\(key) bound to both '\(seen[key] ?? "")' and '\(binding.help)' in the \(view.rawValue)")
                    seen[key] = binding.help
                }
            }
        }
    }

    @Test("the contract keys: / n N & + - and counts")
    func contract() {
        #expect(Bindings.action(for: .character("/"), in: .grid)?.action == .search)
        #expect(Bindings.action(for: .character("n"), in: .list)?.action == .searchNext)
        #expect(Bindings.action(for: .character("N"), in: .grid)?.action == .searchPrevious)
        #expect(Bindings.action(for: .character("&"), in: .list)?.action == .filter)
        #expect(Bindings.action(for: .character("+"), in: .grid)?.action == .bigger)
        #expect(Bindings.action(for: .character("-"), in: .list)?.action == .smaller)
        #expect(Bindings.action(for: .character("j"), in: .grid)! == (.down, true))
        #expect(Bindings.action(for: .up, in: .list)?.action == .up)
        #expect(Bindings.action(for: .character("h"), in: .grid)?.action == .left)
        #expect(Bindings.action(for: .character("l"), in: .list)?.action == .open)
        #expect(Bindings.action(for: .character("n"), in: .image)?.action == .next)
        #expect(Bindings.action(for: .character("p"), in: .image)?.action == .previous)
        #expect(Bindings.action(for: .character("q"), in: .image)?.action == .back)
        #expect(Bindings.action(for: .character("q"), in: .list)?.action == .quit)
        #expect(Bindings.action(for: .character("x"), in: .list) == nil)
        // ? is a backward search in the gallery (less, vim), the help in the full view
        #expect(Bindings.action(for: .character("?"), in: .list)?.action == .searchBackward)
        #expect(Bindings.action(for: .character("?"), in: .grid)?.action == .searchBackward)
        #expect(Bindings.action(for: .character("?"), in: .image)?.action == .help)
        #expect(Bindings.action(for: .character("H"), in: .grid)?.action == .help)
        #expect(Bindings.action(for: .function(1), in: .image)?.action == .help)
    }

    @Test("the man page's KEYS section lists every binding: its keys and its help text, and nothing else")
    func manPage() throws {
        let man = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/vitrine.1")
        let text = try String(contentsOf: man, encoding: .utf8)
        let start = try #require(text.range(of: ".SH KEYS\n"))
        let end = try #require(text.range(of: "\n.SH ", range: start.upperBound..<text.endIndex))
        let section = String(text[start.upperBound..<end.lowerBound])
        // Entries are ".TP", a ".BR" line of keys, then the help text
        let entries = section.components(separatedBy: ".TP\n").dropFirst().map { $0.split(separator: "\n", maxSplits: 1).map(String.init) }
        #expect(entries.count == Bindings.table.count, "one .TP entry per binding")
        for (binding, entry) in zip(Bindings.table, entries) {
            #expect(entry.count == 2)
            let keys = Self.manKeys(entry[0])
            #expect(keys == binding.label, "keys of '\(binding.help)'")
            #expect(entry[1].replacingOccurrences(of: "\n", with: " ").contains(binding.help), "help of '\(binding.label)'")
        }
    }

    /// ".BR \(ua " " \(da" → "↑ ↓" (the man page's spelling of the labels).
    static func manKeys(_ line: String) -> String {
        var s = line
        for prefix in [".BR ", ".B "] where s.hasPrefix(prefix) { s.removeFirst(prefix.count) }
        let names = ["\\(ua": "↑", "\\(da": "↓", "\\(<-": "←", "\\(->": "→", "\\-": "-", "\\&": "", "\\e": "\\"]
        for (roff, glyph) in names { s = s.replacingOccurrences(of: roff, with: glyph) }
        return s.components(separatedBy: " \" \" ").joined(separator: " ")
    }
}
