import Foundation
import Browse
import HalfBlock
import TerminalUI

/// sysexits(3) statuses, the contract scripts rely on.
enum ExitStatus: Int32 {
    case ok = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case unavailable = 69
    case cantCreate = 73
    case software = 70
}

/// A failure that ends the program with a message on stderr and a sysexits status.
struct Failure: Error {
    var status: ExitStatus
    var message: String
}

/// The parsed command line.
enum Command: Equatable {
    /// Browse the GALLERY arguments (none: the demo gallery; see `FileGallery.open`).
    case browse(galleries: [String], options: BrowseOptions)
    /// Print IMAGE as half-block art and exit.
    case render(image: String, options: RenderCommandOptions)
    /// Print the items found in the GALLERY arguments and exit.
    case list(galleries: [String], options: ListOptions)
    /// Show or empty the disk cache of downloaded images.
    case cache(CacheAction)
    /// Print what the terminal was found to offer, and why (`doctor`, or `--version --verbose`).
    case doctor(DoctorOptions)
    case help
    case version
}

struct BrowseOptions: Equatable {
    /// Lines per table row.
    var rowHeight = 5
    /// `--view list|grid`: the view the browser starts in.
    var view: GalleryLayout.Mode = .list
    /// `--grid-size ROWS`: thumbnail height in the grid, in cells.
    var gridSize = 8
    /// False with `--no-mouse`.
    var mouse = true
    var colors: ColorMode?
    /// `--pixels`: the full view's protocol: auto (what the terminal offers) or a fixed one.
    var pixels: PixelChoice = .auto
    /// Pipeline limits and cache behaviour from `--memory-cache`, `--disk-cache`,
    /// `--no-disk-cache`, `--reload`, `--offline`, `--max-per-host` and `--header`.
    var loading = LoadingOptions()
    /// `--items`, `--title`, `--thumb`, `--image`, `--next`, `--preset`.
    var reading = GalleryReadOptions()
    /// `vitrine pick`: quitting prints the chosen items (see `Picker`).
    var pick = false
    /// `--save-dir DIR`: where `s` saves (nil: see `SaveNames.folder`).
    var saveDir: String?
    /// `--fresh`: do not return to the remembered place (see `PlaceStore`).
    var fresh = false
}

enum CacheAction: String, Equatable {
    case info, clear
}

struct RenderCommandOptions: Equatable {
    /// Box in cells; nil: the terminal's size, or 80x24 off a terminal.
    var size: (columns: Int, rows: Int)?
    var colors: ColorMode?
    var background: Background = .terminalDefault
    /// `--pixels`: auto (detect when stdout is a terminal, else half blocks) or a fixed protocol.
    var pixels: PixelChoice = .auto

    static func == (a: Self, b: Self) -> Bool {
        a.size?.columns == b.size?.columns && a.size?.rows == b.size?.rows && a.colors == b.colors
            && a.background == b.background && a.pixels == b.pixels
    }
}

/// `vitrine doctor [--pixels P] [--colors MODE]`: the overrides are shown as they would apply.
struct DoctorOptions: Equatable {
    var pixels: PixelChoice = .auto
    var colors: ColorMode?
}

enum ListOutput: String, Equatable {
    case tsv, json
}

/// Parses `arguments` (without the program name), with the conventions of
/// swift-argument-parser tools: `--opt=value` is `--opt value`; `--` ends the options (what
/// follows is GALLERY or IMAGE even when it starts with `-`); an option's value is taken as it
/// is, so `--title --help` sets the title, and `--help` / `--version` count only where an
/// option may stand.
/// - Throws: `Failure` with status 64 and a one-line reason.
func parseArguments(_ arguments: [String]) throws(Failure) -> Command {
    // `--opt=value` split in two and `--` dropped; tokens from `literalFrom` on are operands.
    var tokens: [String] = []
    var literalFrom = Int.max
    for argument in arguments {
        if literalFrom == .max {
            if argument == "--" { literalFrom = tokens.count; continue }
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                tokens.append(String(argument[..<equals]))
                tokens.append(String(argument[argument.index(after: equals)...]))
                continue
            }
        }
        tokens.append(argument)
    }
    var args = tokens[...]
    /// The option name to match for the token just popped: "" for an operand after `--`.
    func key(_ arg: String) -> String { args.startIndex - 1 >= literalFrom ? "" : arg }
    func usage(_ message: String) -> Failure {
        Failure(status: .usage, message: "\(message)\nTry 'vitrine --help'.")
    }
    func value(for flag: String) throws(Failure) -> String {
        guard let next = args.popFirst() else { throw usage("option \(flag) needs a value") }
        return next
    }
    func colors(_ text: String) throws(Failure) -> ColorMode {
        switch text {
        case "truecolor", "24bit", "full": return .truecolor
        case "256": return .palette256
        case "16", "8": return .palette16
        case "none", "2": return .none
        default: throw usage("--colors takes truecolor, 256, 16 or none, not '\(text)'")
        }
    }
    func pixels(_ text: String) throws(Failure) -> PixelChoice {
        guard let choice = PixelChoice(argument: text) else {
            throw usage("--pixels takes auto, kitty, sixel, iterm or halfblock, not '\(text)'")
        }
        return choice
    }
    // `--version --verbose` is `doctor` (among the options, before any `--`).
    let options = tokens.prefix(min(literalFrom, tokens.count))
    if options.contains("--verbose") && (options.contains("--version") || options.contains("-V")) {
        return .doctor(DoctorOptions())
    }
    /// The declaration for the option just popped, for `command`, and its value when it takes
    /// one; nil for an operand.
    /// - Throws: usage for an option `command` does not take, or a missing value.
    func declared(_ arg: String, for command: OptionDeclaration.Command, _ suffix: String) throws(Failure) -> (OptionDeclaration, String?)? {
        guard let option = OptionDeclaration.find(key(arg), for: command) else {
            if key(arg).hasPrefix("-") && arg != "-" { throw usage("unknown option \(arg)\(suffix)") }
            return nil
        }
        return (option, option.value == nil ? nil : try value(for: arg))
    }
    var pick = false
    switch literalFrom > 0 ? args.first : nil {
    case "render":
        args.removeFirst()
        var options = RenderCommandOptions()
        var image: String?
        while let arg = args.popFirst() {
            guard let (option, text) = try declared(arg, for: .render, " for render") else {
                guard image == nil else { throw usage("render takes one IMAGE") }
                image = arg
                continue
            }
            switch option.id {
            case .help: return .help
            case .version: return .version
            case .size:
                let text = text!
                let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
                // At most 1000x1000 cells: small pictures are scaled up to fill the box, and a
                // 10000x10000 box made 135 MB of output and 3 GB of pixels for a 1x1 PNG.
                guard parts.count == 2, parts[0] > 0, parts[1] > 0, parts[0] <= 1000, parts[1] <= 1000 else {
                    throw usage("--size takes COLSxROWS from 1x1 to 1000x1000, like 80x24, not '\(text)'")
                }
                options.size = (parts[0], parts[1])
            case .colors: options.colors = try colors(text!)
            case .pixels: options.pixels = try pixels(text!)
            case .background:
                let text = text!
                switch text {
                case "default": options.background = .terminalDefault
                case "checker": options.background = .checker
                default:
                    // default:R,G,B: the terminal's own background, whose colour is R,G,B.
                    let known = text.hasPrefix("default:")
                    let parts = text.dropFirst(known ? 8 : 0).split(separator: ",").compactMap { UInt8($0) }
                    guard parts.count == 3 else {
                        throw usage("--background takes R,G,B, default, default:R,G,B or checker, not '\(text)'")
                    }
                    let rgb = RGB(parts[0], parts[1], parts[2])
                    options.background = known ? .terminal(rgb) : .color(rgb)
                }
            default: throw usage("unknown option \(arg) for render")
            }
        }
        guard let image else { throw usage("render needs an IMAGE (a path or URL)") }
        return .render(image: image, options: options)
    case "list":
        args.removeFirst()
        var options = ListOptions()
        var galleries: [String] = []
        while let arg = args.popFirst() {
            guard let (option, text) = try declared(arg, for: .list, " for list") else {
                galleries.append(arg)
                continue
            }
            switch option.id {
            case .help: return .help
            case .version: return .version
            case .output:
                guard let o = ListOutput(rawValue: text!) else { throw usage("--output takes tsv or json") }
                options.output = o
            case .pages:
                let text = text!
                guard let n = Int(text), (1...ListOptions.maxPages).contains(n) else {
                    throw usage("--pages takes a number from 1 to \(ListOptions.maxPages), not '\(text)'")
                }
                options.pages = n
            case .mapping: try options.reading.set(option.long, text!)
            case .loading: try options.loading.set(option.long, text)
            case .recursive: options.reading.recursive = true
            default: throw usage("unknown option \(arg) for list")
            }
        }
        guard !galleries.isEmpty else { throw usage("list needs a GALLERY (a path, folder, URL or -)") }
        if galleries.count > 1 && options.pages > 1 { throw usage("--pages reads one GALLERY, not several") }
        return .list(galleries: galleries, options: options)
    case "doctor":
        args.removeFirst()
        var options = DoctorOptions()
        while let arg = args.popFirst() {
            guard let (option, text) = try declared(arg, for: .doctor, " for doctor") else {
                throw usage("doctor takes no GALLERY or IMAGE, not '\(arg)'")
            }
            switch option.id {
            case .help: return .help
            case .pixels: options.pixels = try pixels(text!)
            case .colors: options.colors = try colors(text!)
            default: throw usage("unknown option \(arg) for doctor")
            }
        }
        return .doctor(options)
    case "cache":
        args.removeFirst()
        if let word = args.first, args.startIndex < literalFrom, word == "--help" || word == "-h" { return .help }
        guard let word = args.popFirst(), let action = CacheAction(rawValue: word), args.isEmpty else {
            throw usage("cache takes info or clear")
        }
        return .cache(action)
    case "pick":
        args.removeFirst()
        pick = true
        fallthrough
    default:
        var options = BrowseOptions()
        options.pick = pick
        var galleries: [String] = []
        while let arg = args.popFirst() {
            guard let (option, text) = try declared(arg, for: .browse, "") else {
                galleries.append(arg)
                continue
            }
            switch option.id {
            case .help: return .help
            case .version: return .version
            case .rowHeight:
                let text = text!
                guard let n = Int(text), (2...40).contains(n) else {
                    throw usage("--row-height takes a number of lines from 2 to 40, not '\(text)'")
                }
                options.rowHeight = n
            case .colors: options.colors = try colors(text!)
            case .view:
                let text = text!
                guard let mode = GalleryLayout.Mode(rawValue: text) else { throw usage("--view takes list or grid, not '\(text)'") }
                options.view = mode
            case .gridSize:
                let text = text!
                guard let n = Int(text), (2...40).contains(n) else {
                    throw usage("--grid-size takes a thumbnail height in lines from 2 to 40, not '\(text)'")
                }
                options.gridSize = n
            case .noMouse: options.mouse = false
            case .fresh: options.fresh = true
            case .saveDir:
                guard let dir = text, !dir.isEmpty else { throw usage("--save-dir needs a folder") }
                options.saveDir = dir
            case .pixels: options.pixels = try pixels(text!)
            case .loading: try options.loading.set(option.long, text)
            case .mapping: try options.reading.set(option.long, text!)
            case .recursive: options.reading.recursive = true
            default: throw usage("unknown option \(arg)")
            }
        }
        if galleries.filter({ $0 == "-" }).count > 1 { throw usage("'-' (standard input) can be given once") }
        if pick && galleries.isEmpty { throw usage("pick needs a GALLERY (a path, folder, URL or -)") }
        return .browse(galleries: galleries, options: options)
    }
}

let helpText: String = """
    Usage: \(OptionDeclaration.usageLine("vitrine [GALLERY...]", .browse))
           vitrine pick GALLERY... [the browser's options]
           \(OptionDeclaration.usageLine("vitrine render IMAGE", .render))
           \(OptionDeclaration.usageLine("vitrine list GALLERY...", .list))
           vitrine cache info|clear
           \(OptionDeclaration.usageLine("vitrine doctor", .doctor))

    Browse an image gallery in the terminal. GALLERY is a plist or JSON file, or an http(s) URL
    of one; a text file listing one image path or URL per line; - (such a list, or a gallery,
    on standard input); a folder of images; or an image. Several are shown one after another.
    Without one the demo gallery opens. Thumbnails load as their rows scroll into view.

    Pick: 'vitrine pick GALLERY...' browses, and quitting (q, Q) prints the marked items, else
          the selected one, one per line to standard output (a local file as its path, else
          its URL), as nsxiv -o does; the screen is the terminal (/dev/tty), so
          vitrine pick g.json | xargs ... works. ^C prints nothing (status 130); with nothing
          to print the status is 1, with no terminal at all 64.

    Options:
    \(OptionDeclaration.helpLines(.options))
      --OPTION=VALUE is --OPTION VALUE; -- ends the options (GALLERY may then start with -)

    Loading:
    \(OptionDeclaration.helpLines(.loading))

    Mapping, for galleries of another shape (jq-like; try the paths with jq first):
    \(OptionDeclaration.helpLines(.mapping))

    Keys (a count before a key repeats or aims it: 5j, 50G, 50%):
    \(Bindings.helpText())

    Doctor: 'vitrine doctor' prints the pixel protocol, colour mode, cell size and background it
          detected, and why (from the environment, terminfo, tmux and the terminal's answers).

    Cache: downloaded images are kept in $XDG_CACHE_HOME/vitrine (default ~/.cache/vitrine);
          'vitrine cache info' shows its size, 'vitrine cache clear' empties it.

    Actions (y o s) act on the marked items, else the current one: y copies their URLs or paths
          with OSC 52 (inside tmux: set -g set-clipboard on); o opens them with $VITRINE_OPENER
          (a command; paths appended) or xdg-open, a downloaded image from a file Vitrine wrote
          from its validated bytes, never its URL; s saves them with safe, never-overwriting
          names (Esc cancels a batch; nothing partial is left).

    Environment: NO_COLOR, COLORTERM, TERM, VITRINE_LOG (log file for warnings), XDG_CACHE_HOME;
          VITRINE_OPENER, VITRINE_OPENER_MODE (terminal or detached; default detached with a
          DISPLAY or WAYLAND_DISPLAY, else terminal);
          TERM_PROGRAM, LC_TERMINAL, KITTY_WINDOW_ID and TMUX help pick the pixel protocol.
    Exit status: 0 ok, 64 usage, 65 bad gallery data, 66 missing input, 69 network, 70 internal.
    See vitrine(1).
    """

let versionText = "vitrine 0.1.0"
