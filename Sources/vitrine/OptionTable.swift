/// The command line's options, declared once: ``parseArguments(_:)`` takes from this table which
/// names each command accepts and whether a name takes a value, and ``helpText`` prints its
/// usage lines and option lists from it, so the parser and `--help` cannot drift apart (the
/// way swift-argument-parser derives both from one declaration). A unit test checks that every
/// name here is in `--help` and in docs/vitrine.1, and that each parses for exactly the
/// commands it lists.
struct OptionDeclaration: Sendable {
    /// What an option does; ``parseArguments(_:)`` switches on it to apply the value.
    enum ID: Sendable {
        case recursive, view, rowHeight, gridSize, noMouse, fresh, saveDir, colors, size, background, pixels
        case output, pages, help, version
        /// One of ``LoadingOptions``'s options, applied by `LoadingOptions.set` under its long name.
        case loading
        /// One of ``GalleryReadOptions``'s options, applied by `GalleryReadOptions.set`.
        case mapping
    }

    /// The commands that take options (`cache` takes only `--help`; `pick` takes the browser's).
    enum Command: String, Sendable, CaseIterable {
        case browse, render, list, doctor
    }

    /// The part of `--help` the option is listed in.
    enum Section: Sendable {
        case options, loading, mapping
    }

    let id: ID
    /// Its names, short first when it has one: `["-c", "--colors"]`.
    let names: [String]
    /// The value's placeholder in `--help` (`"MODE"`); nil for a flag, which takes no value.
    let value: String?
    /// The description in `--help`, one paragraph (wrapped when printed).
    let help: String
    /// The commands that accept it. An array, not a `Set`: the table is built at every start,
    /// and a `Set<Command>` made the runtime look up `Command`'s `Hashable` conformance by a
    /// scan of every conformance in the binary (about 4 % of a one-shot `render`, issue 14).
    let commands: [Command]
    let section: Section

    /// The long name (`--colors`): the one `LoadingOptions.set` and messages use.
    var long: String { names.last! }

    /// An option that takes a value shown as `value` in `--help`.
    init(_ id: ID, _ names: [String], _ value: String, _ help: String, for commands: [Command], in section: Section = .options) {
        (self.id, self.names, self.value, self.help, self.commands, self.section) = (id, names, value, help, commands, section)
    }

    /// A flag: an option that takes no value.
    init(_ id: ID, _ names: [String], _ help: String, for commands: [Command], in section: Section = .options) {
        (self.id, self.names, self.value, self.help, self.commands, self.section) = (id, names, nil, help, commands, section)
    }

    /// Every option, in `--help` order.
    static let table: [OptionDeclaration] = [
        .init(.recursive, ["-R", "--recursive"], "a folder's subfolders too", for: [.browse, .list]),
        .init(.view, ["--view"], "list|grid", "the view to start in (default list; v switches)", for: [.browse]),
        .init(.rowHeight, ["--row-height"], "LINES", "lines per list row, 2-40 (default 5); + and - change it live", for: [.browse]),
        .init(.gridSize, ["--grid-size"], "LINES", "thumbnail height in the grid, 2-40 (default 8: 16x8 cells)", for: [.browse]),
        .init(.noMouse, ["--no-mouse"],
              "leave the mouse to the terminal (default: wheel scrolls, a click selects, a double click opens; Shift still selects text)",
              for: [.browse]),
        .init(.fresh, ["--fresh"],
              "start at the top instead of where this gallery was left (the item, view, sizes, sort, filter and marks, kept in $XDG_STATE_HOME/vitrine)",
              for: [.browse]),
        .init(.saveDir, ["--save-dir"], "DIR",
              "where s saves (default: XDG_DOWNLOAD_DIR from user-dirs.dirs, else ~/Downloads, else the working folder)",
              for: [.browse]),
        .init(.colors, ["-c", "--colors"], "MODE",
              "truecolor, 256, 16 or none (default: what the terminal offers; the browser can only lower it, see the man page)",
              for: [.browse, .render, .doctor]),
        .init(.size, ["-s", "--size"], "COLSxROWS", "box to fit the image in, up to 1000x1000 (default: the terminal, or 80x24)", for: [.render]),
        .init(.background, ["--background"], "B",
              "what transparency shows: default, default:R,G,B (the terminal's background is R,G,B), checker or R,G,B",
              for: [.render]),
        .init(.pixels, ["-p", "--pixels"], "P",
              "the full view, render and doctor: auto, kitty, sixel, iterm or halfblock (default auto: the terminal's pixel protocol when stdout is a terminal, else halfblock; thumbnails are always half blocks)",
              for: [.browse, .render, .doctor]),
        .init(.output, ["-o", "--output"], "FORMAT", "tsv (title, thumbnail URL, image URL, problem) or json", for: [.list]),
        .init(.pages, ["--pages"], "N", "read up to N pages, following the gallery's next-page links", for: [.list]),
        .init(.help, ["-h", "--help"], "show this help", for: [.browse, .render, .list, .doctor]),
        .init(.version, ["-V", "--version"], "show the version (with --verbose: what the terminal offers, as doctor)",
              for: [.browse, .render, .list]),

        .init(.loading, ["--memory-cache"], "SIZE", "decoded thumbnails kept in memory (default: 1/16 of RAM, at most 256M)",
              for: [.browse, .list], in: .loading),
        .init(.loading, ["--disk-cache"], "SIZE", "downloaded images kept on disk (default 512M); SIZE like 64M, 1G",
              for: [.browse, .list], in: .loading),
        .init(.loading, ["--no-disk-cache"], "keep no downloaded images on disk", for: [.browse, .list], in: .loading),
        .init(.loading, ["--reload"], "download every image again instead of reading the disk cache", for: [.browse, .list], in: .loading),
        .init(.loading, ["--offline"], "use only the disk cache; rows it lacks say \"not cached\"", for: [.browse, .list], in: .loading),
        .init(.loading, ["--max-per-host"], "N", "loads running at once against one host (default 6)", for: [.browse, .list], in: .loading),
        .init(.loading, ["--header"], "'HOST: NAME: VALUE'", "send a request header to HOST (repeatable), for tokens",
              for: [.browse, .list], in: .loading),

        .init(.mapping, ["--items"], "PATH", "where the items are: .data.images[]", for: [.browse, .list], in: .mapping),
        .init(.mapping, ["--title"], "EXPR", "each item's title: .title // .description", for: [.browse, .list], in: .mapping),
        .init(.mapping, ["--thumb"], "EXPR", "each item's thumbnail URL: .links.small or \"https://host/\\(.id)_s.jpg\"",
              for: [.browse, .list], in: .mapping),
        .init(.mapping, ["--image"], "EXPR", "each item's full-size URL", for: [.browse, .list], in: .mapping),
        .init(.mapping, ["--next"], "EXPR", "the next page's URL: .next_url or \"?offset=\\(.next_offset)\"", for: [.browse, .list], in: .mapping),
        .init(.mapping, ["--preset"], "NAME", "read as this format (reddit, deviantArt, jsonFeed, flickr, ...)", for: [.browse, .list], in: .mapping),
    ]

    /// The declaration `command` has for `name` (`--colors`, `-c`), nil if it takes no such option.
    /// A scan of the table's ~50 entries: building a dictionary of dictionaries for it was 4 % of
    /// a one-shot `render` (its generic metadata and hashing, issue 14).
    static func find(_ name: String, for command: Command) -> OptionDeclaration? {
        table.first { $0.names.contains(name) && $0.commands.contains(command) }
    }

    // MARK: Help

    /// The column descriptions start at in `--help`.
    static let helpColumn = 23
    /// The width `--help` wraps at.
    static let helpWidth = 96

    /// `-c, --colors MODE`.
    var label: String { names.joined(separator: ", ") + (value.map { " " + $0 } ?? "") }

    /// The options of `section`, one entry each: the label, then the description from
    /// ``helpColumn`` on, wrapped at ``helpWidth``; an option the browser does not take says
    /// which commands do ("render: …").
    static func helpLines(_ section: Section) -> String {
        table.filter { $0.section == section }.map { option in
            let only = option.commands.contains(.browse) ? "" : Command.allCases.filter(option.commands.contains).map(\.rawValue).joined(separator: " and ") + ": "
            let lead = "  " + option.label
            let lines = wrap(only + option.help, width: helpWidth - helpColumn)
            let indent = String(repeating: " ", count: helpColumn)
            let first = lead.count + 2 <= helpColumn ? lead + String(repeating: " ", count: helpColumn - lead.count) : lead + "  "
            return ([first + lines[0]] + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The usage line of `command`: its name and operands, then every option it takes from
    /// the OPTIONS section as `[--name VALUE]`, and LOADING / MAPPING when it takes those;
    /// wrapped under the first line.
    static func usageLine(_ head: String, _ command: Command) -> String {
        var words = [head]
        let taken = table.filter { $0.commands.contains(command) && $0.id != .help && $0.id != .version }
        for option in taken where option.section == .options {
            words.append("[" + option.long + (option.value.map { " " + $0 } ?? "") + "]")
        }
        if taken.contains(where: { $0.section == .loading }) { words.append("[LOADING]") }
        if taken.contains(where: { $0.section == .mapping }) { words.append("[MAPPING]") }
        // "[--view list|grid]" stays on one line: wrap at the spaces between words only.
        var lines: [String] = []
        var line = ""
        for word in words {
            if !line.isEmpty && line.count + 1 + word.count > helpWidth - 7 {
                lines.append(line)
                line = String(repeating: " ", count: 8)
            }
            line += (line.allSatisfy { $0 == " " } ? "" : " ") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n       ")
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a longer word stays whole).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines
    }
}
