import Foundation
import HalfBlock
import ImagePipeline
import TerminalGraphics
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// `vitrine render IMAGE`: prints IMAGE fitted in a box of cells and exits: in real pixels
/// (kitty graphics, sixel, iTerm2) where the terminal has them, else as half-block art.
enum RenderCommand {
    static func run(image argument: String, options: RenderCommandOptions, environment: [String: String]) throws(Failure) {
        let url = try GallerySource.resolve(argument, standardize: false)
        let path = plainPath(argument, url: url)
        if url.isFileURL && access(path ?? url.path, F_OK) != 0 {
            throw Failure(status: .noInput, message: "\(path ?? url.path): no such file")
        }
        let capabilities = pixelCapabilities(options: options, environment: environment)
        if capabilities.pixels != .halfblock {
            // A protocol forced inside tmux without passthrough: drawn as asked, with the reason
            // nothing may show (as the full view's status line says it).
            if let hint = capabilities.pixelsHint { Output.err("vitrine: \(hint)\n") }
            try runPixels(url: url, argument: argument, options: options, capabilities: capabilities)
            return
        }
        let terminal = TerminalSize.current()
        let box = options.size ?? terminal.map { ($0.columns, max(1, $0.rows - 1)) } ?? (80, 24)
        let cellAspect = terminal?.cellAspect ?? 2.0
        let mode = options.colors ?? defaultColorMode(environment: environment)
        // Decode at a few times the half-block grid (HalfBlockRenderer.decodeOversampling, chosen
        // by measurement): enough for the box filter to average in linear light, far less than the
        // full image for large photos (shrink-on-load).
        let decodeBox = HalfBlockRenderer.decodeBox(columns: box.0, rows: box.1)
        let request = ImageRequest(url: url, maxPixelWidth: decodeBox.width, maxPixelHeight: decodeBox.height)
        let renderOptions = RenderOptions(colorMode: mode, background: options.background, cellAspect: cellAspect)
        func fitted(_ width: Int, _ height: Int) -> (columns: Int, rows: Int) {
            HalfBlockRenderer.fittedSize(
                imageWidth: width, imageHeight: height, maxColumns: box.0, maxRows: box.1, cellAspect: cellAspect)
        }
        // A local PNG that libpng reads row by row goes straight from its rows to the cells
        // (the whole image is never held); anything else is decoded first. Either way half
        // blocks resize once, from the decoded pixels straight to the cells.
        let scheme = url.scheme?.lowercased()
        if scheme == "file" || scheme == "data" {
            let body = { (source: RGBARowSource) -> CellGrid? in
                let size = fitted(source.width, source.height)
                return HalfBlockRenderer.render(source, columns: size.columns, rows: size.rows, options: renderOptions)
            }
            let result = path.map {
                ImagePipeline.decodeLocal(
                    filePath: $0, maxPixelWidth: request.maxPixelWidth, maxPixelHeight: request.maxPixelHeight, streaming: body)
            } ?? ImagePipeline.decodeLocal(
                url, maxPixelWidth: request.maxPixelWidth, maxPixelHeight: request.maxPixelHeight, streaming: body)
            switch result {
            case .success(.streamed(let grid, _, _)):
                Output.picture(ANSIWriter.bytes(for: grid, colorMode: mode))
                return
            case .success(.decoded(let image)):
                let size = fitted(image.sourceWidth, image.sourceHeight)
                let grid = HalfBlockRenderer.render(image.bitmap, columns: size.columns, rows: size.rows, options: renderOptions)
                Output.picture(ANSIWriter.bytes(for: grid, colorMode: mode))
                return
            case .failure(let error):
                throw Failure(status: ExitStatus(for: error), message: "\(argument): \(message(for: error))")
            }
        }
        let image = try load(request, argument: argument, shrink: false)
        let size = fitted(image.sourceWidth, image.sourceHeight)
        let grid = HalfBlockRenderer.render(image.bitmap, columns: size.columns, rows: size.rows, options: renderOptions)
        Output.picture(ANSIWriter.bytes(for: grid, colorMode: mode))
    }

    /// The file system path of a plain path argument, made absolute against the working
    /// directory as `URL(fileURLWithPath:)` does; nil for a URL argument (`file:`, `data:`,
    /// http(s)) or when the working directory cannot be read. `render` opens it directly:
    /// asking the URL for its path was 7 % of a small PNG's render (issue 14).
    static func plainPath(_ argument: String, url: URL) -> String? {
        guard url.isFileURL, !argument.lowercased().hasPrefix("file:") else { return nil }
        if argument.hasPrefix("/") { return argument }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        let directory = String(cString: buffer)
        return directory.hasSuffix("/") ? directory + argument : directory + "/" + argument
    }

    /// What `render` draws with: half blocks unless `--pixels` names a protocol, or `--pixels
    /// auto` (the default) finds one on a terminal. Off a terminal nothing is asked.
    static func pixelCapabilities(options: RenderCommandOptions, environment: [String: String]) -> TerminalCapabilities {
        var override: PixelProtocol?
        if case .fixed(let p) = options.pixels { override = p }
        // Half blocks forced: no query at all (their colours come from the environment, as before).
        if override == .halfblock || (override == nil && isatty(1) != 1) {
            return TerminalCapabilities.detect(.init(environment: environment, isTerminal: false, pixelOverride: .halfblock))
        }
        let facts = TerminalProbe.gather(
            environment: environment, pixelOverride: override, colorOverride: options.colors, ask: override == nil || isatty(1) == 1)
        return TerminalCapabilities.detect(facts)
    }

    /// Decodes IMAGE for the pixel size of its cells and draws it with the chosen protocol, at the
    /// cursor; the cursor ends on the line below the picture.
    static func runPixels(
        url: URL, argument: String, options: RenderCommandOptions, capabilities: TerminalCapabilities
    ) throws(Failure) {
        let terminal = TerminalSize.current()
        let box = options.size ?? terminal.map { ($0.columns, max(1, $0.rows - 1)) } ?? (80, 24)
        let context = PresenterContext(capabilities)
        var presenter = Presenters.make(capabilities.pixels, context: context)
        let area = CellArea(columns: box.0, rows: box.1)
        // The area's pixels (cells times the cell's pixel size): libvips shrinks on load to fit
        // them, aspect kept, never enlarged; the full image is never decoded for a smaller screen.
        let limit = PixelSize(width: area.columns * context.cellWidth, height: area.rows * context.cellHeight)
        let request = ImageRequest(url: url, maxPixelWidth: limit.width, maxPixelHeight: limit.height)
        let image = try load(request, argument: argument)
        let bytes = presenter.show(image.bitmap, in: area)
        guard !bytes.isEmpty else {
            if capabilities.pixels == .sixel, let reason = SixelPresenter.libraryUnavailableReason {
                throw Failure(status: .software, message: "\(argument): libsixel is not available: \(reason)")
            }
            throw Failure(status: .software, message: "\(argument): the \(capabilities.pixels) encoder failed")
        }
        Output.picture(bytes)
    }

    /// Loads `request` and waits; a failure becomes the `Failure` (and exit status) for `argument`.
    /// A file or `data:` URL is read and decoded right here (`ImagePipeline.decodeLocal`: the
    /// same limits and errors, none of a pipeline's queues and threads, which were a measurable
    /// part of a small render); http(s) goes through a pipeline without a memory cache.
    /// `shrink` false: a local JPEG or PNG may come back larger than the request's box (see
    /// `ImagePipeline.decodeLocal`), for a caller that resizes it anyway.
    static func load(_ request: ImageRequest, argument: String, shrink: Bool = true) throws(Failure) -> DecodedImage {
        let result: Result<DecodedImage, ImagePipeline.Error>
        let scheme = request.url.scheme?.lowercased()
        if scheme == "file" || scheme == "data" {
            result = ImagePipeline.decodeLocal(
                request.url, maxPixelWidth: request.maxPixelWidth, maxPixelHeight: request.maxPixelHeight,
                shrink: shrink)
        } else {
            var configuration = ImagePipeline.Configuration(memoryCacheBytes: 0)
            configuration.decodeConcurrency = 1
            configuration.userAgent = LoadingOptions.userAgent
            let pipeline = ImagePipeline(configuration: configuration)
            result = Synchronous.wait { done in _ = pipeline.load(request, priority: 0, completion: done) }
        }
        switch result {
        case .success(let decoded): return decoded
        case .failure(let error):
            throw Failure(status: ExitStatus(for: error), message: "\(argument): \(message(for: error))")
        }
    }

    /// The one-line reason for a failed load; a refused pixel count says how far over it is.
    static func message(for error: ImagePipeline.Error) -> String {
        if case .responseTooLarge(let limit) = error {
            return "larger than the \(ByteSize.describe(limit)) limit for an image; not read"
        }
        guard case .tooManyPixels(let width, let height, let limit) = error else { return "\(error)" }
        func megapixels(_ n: Int) -> String { n % 1_000_000 == 0 ? "\(n / 1_000_000)" : String(format: "%.1f", Double(n) / 1e6) }
        return "\(width) x \(height) pixels (\(megapixels(width * height)) megapixels) is over the limit of "
            + "\(megapixels(limit)) megapixels; not decoded"
    }

    /// The colour mode when `--colors` is not given, as the browser picks it, from the
    /// environment alone (output piped to a file or `less -R` keeps the terminal's colours):
    /// NO_COLOR gives none; COLORTERM=truecolor|24bit or a `-direct` TERM truecolor; a
    /// `256color` TERM 256 colours; no TERM or `dumb` none; any other TERM 16 colours.
    static func defaultColorMode(environment: [String: String]) -> ColorMode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        let colorterm = environment["COLORTERM"]?.lowercased() ?? ""
        if colorterm == "truecolor" || colorterm == "24bit" { return .truecolor }
        let term = environment["TERM"] ?? ""
        if term.hasSuffix("-direct") { return .truecolor }
        if term.contains("256color") { return .palette256 }
        if term.isEmpty || term == "dumb" { return .none }
        return .palette16
    }
}

/// The terminal's size in cells and, when it reports one, its cell aspect (TIOCGWINSZ).
struct TerminalSize {
    var columns: Int
    var rows: Int
    /// Cell height / cell width in pixels; nil when the terminal reports no pixel size.
    var cellAspect: Double?

    static func current() -> TerminalSize? {
        var size = winsize()
        guard isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return nil
        }
        var aspect: Double?
        if size.ws_xpixel > 0 && size.ws_ypixel > 0 {
            let cellWidth = Double(size.ws_xpixel) / Double(size.ws_col)
            let cellHeight = Double(size.ws_ypixel) / Double(size.ws_row)
            aspect = cellHeight / cellWidth
        }
        return TerminalSize(columns: Int(size.ws_col), rows: Int(size.ws_row), cellAspect: aspect)
    }
}
