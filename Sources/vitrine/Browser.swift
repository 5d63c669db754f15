import Browse
import Foundation
import Gallery
import ImagePipeline
import TerminalGraphics
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// The interactive browser's wiring: the terminal, the inbox and the page loader around
/// `Browse.App`, which holds every decision, and `Browse.MainLoop`, which runs the turns (see
/// docs/ARCHITECTURE.md).
///
/// Everything here runs on the main thread. Background loads reach it only through `Inbox`.
@MainActor
final class Browser {
    let app: App
    let pages: PageLoader
    let screen: Screen
    let inbox: Inbox
    let loop: EventLoop
    /// `y`, `o`, `s`.
    var actions: ItemActions!

    /// - Parameters:
    ///   - first: the gallery's first page, read before the screen started.
    ///   - reading: the mapping options, for further pages.
    init(
        first: GallerySource.Page, reading: GalleryReadOptions, pipeline: ImagePipeline, screen: Screen, inbox: Inbox,
        options: BrowseOptions, environment: [String: String], capabilities: TerminalCapabilities? = nil
    ) {
        self.screen = screen
        self.inbox = inbox
        self.writer = TerminalWriter(fd: 1)
        // A key or a completion ends a slice of a transmission early.
        writer.interruptFDs = [0, inbox.wakePipe.readFD]
        self.loop = EventLoop(wakePipe: inbox.wakePipe)
        let pages = PageLoader(first: first, fetcher: PipelineGalleryFetcher(pipeline: pipeline), reading: reading) {
            [inbox] in inbox.send(.page($0))
        }
        self.pages = pages
        let model = BrowseModel(
            name: first.gallery.name, items: first.gallery.items, loader: pipeline, paging: Self.paging(pages),
            colorMode: screen.colorMode, unicode: screen.unicodeGlyphs)
        app = App(model: model, options: App.Options(mode: options.view, listRows: options.rowHeight - 1, gridRows: options.gridSize))
        model.loadMore = { [unowned self] in
            self.pages.loadNext()
            self.app.setPaging(Self.paging(self.pages))
        }
        screen.enableMouse(options.mouse)
        actions = ItemActions(
            app: app, pipeline: pipeline, inbox: inbox, screen: screen, environment: environment, saveDir: options.saveDir,
            mouse: options.mouse)
        app.itemAction = { [unowned self] in self.actions.perform($0, $1) }
        // Pixel pictures are cut and encoded off the main thread; the answer comes back
        // through the inbox like a load's.
        app.pictureWorker = PictureWorker { [inbox] work in inbox.send(.main(MainWork(run: work))) }
        app.transmitter = writer
        if let capabilities {
            model.background = capabilities.background.map { .terminal($0) } ?? .terminalDefault
            model.pixelsHint = capabilities.pixelsHint
            if capabilities.pixels != .halfblock {
                app.pixels = (capabilities.pixels, PresenterContext(capabilities))
                // Inside tmux, the picture is the outer terminal's: tmux is asked whether the
                // pane shows (a window switch, another session, a detach), and the pane asks for
                // focus reports, which tmux sends when its focus-events option is on.
                if capabilities.tmuxPassthrough, let pane = environment["TMUX_PANE"], !pane.isEmpty {
                    screen.enableFocusEvents(true)
                    // tmux 3.3 drops passthrough from a pane off screen: the delete of the
                    // placement also goes to the client's tty, the last one tmux named.
                    let client = ClientTTY()
                    app.askPaneVisibility = { [app, inbox] in
                        TmuxPane.ask(pane: pane) { state in
                            inbox.send(.main(MainWork { [app] in
                                if let state {
                                    client.update(state)
                                    app.tmuxPaneOrigin = (state.paneColumn, state.paneRow)
                                }
                                app.paneVisibilityAnswered(state?.visible)
                            }))
                        }
                    }
                    app.writeAroundTmux = { bytes in
                        guard let path = client.path else { return }
                        // After tmux's redraw of the other window, so the command does not cut
                        // into one of its sequences on the same tty.
                        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(40)) {
                            TmuxPane.write(bytes, toClientTTY: path)
                        }
                    }
                }
                // A crash or a fatal signal still deletes kitty's images (sixel and iTerm2
                // pictures live in the cells and go with the screen).
                if capabilities.pixels == .kitty {
                    // A string terminator first: a crash may come while a pan region's chunk is
                    // half written (TerminalWriter), and the restore must not land inside it
                    // (a stray ST outside a string is ignored).
                    let st: [UInt8] = [0x1B, UInt8(ascii: "\\")]
                    TerminalRestore.setPixelCleanup(
                        st + (capabilities.tmuxPassthrough ? Passthrough.tmux(KittyGraphics.deleteAll) : KittyGraphics.deleteAll))
                }
            }
        }
    }

    /// The terminal's capabilities for the browser: `--pixels` and `--colors` as overrides,
    /// the terminal asked once (nothing when standard output is not a terminal: nil).
    static func probe(options: BrowseOptions, environment: [String: String]) -> TerminalCapabilities? {
        guard isatty(1) == 1 else { return nil }
        var override: PixelProtocol?
        if case .fixed(let p) = options.pixels { override = p }
        let facts = TerminalProbe.gather(environment: environment, pixelOverride: override, colorOverride: options.colors)
        return TerminalCapabilities.detect(facts)
    }

    /// Writes to the terminal (fd 1) outside curses: pictures of a pixel protocol whole, kitty's
    /// pan regions in slices between turns.
    let writer: TerminalWriter

    /// Writes `bytes` to the terminal (fd 1) whole, outside curses (pictures of a pixel protocol).
    func writeTerminal(_ bytes: [UInt8]) {
        writer.write(bytes)
    }

    /// The page loader's state as the model shows it.
    static func paging(_ pages: PageLoader) -> BrowseModel.Paging {
        let next = pages.pagesLoaded + 1
        switch pages.state {
        case .done: return .done
        case .ready: return .ready(page: next)
        case .loading: return .loading(page: next)
        case .failed(_, let reason): return .failed(page: next, reason: reason)
        }
    }

    /// Runs `Browse.MainLoop` until the user quits or a termination signal arrives, then
    /// waits for saves in flight.
    func run() {
        let main = MainLoop(
            app: app, screen: screen, wait: { [loop, writer] in loop.wait(timeoutMilliseconds: $0, writable: writer.pollFD) },
            deliver: { [unowned self] in self.applyDeliveries() }, write: { [unowned self] in self.writeTerminal($0) },
            // OSC 52 after curses's frame, never inside it.
            afterFrame: { [unowned self] in self.actions.flushTerminalBytes() },
            cellPixels: {
                // When the terminal reports pixels in TIOCGWINSZ (no query mid-session).
                guard let w = TerminalProbe.windowSize(), w.pixelWidth > 0, w.pixelHeight > 0, w.columns > 0, w.rows > 0
                else { return nil }
                return (w.pixelWidth / w.columns, w.pixelHeight / w.rows)
            }, output: writer)
        main.run()
        // The process exits next (also after SIGTERM, SIGINT or SIGHUP), and exit runs no deinit:
        // a kitty region a worker still holds unsent, or makes from here on, is unlinked too.
        KittySharedObject.unlinkAllAtExit()
        actions.finish()
    }

    func applyDeliveries() {
        for event in inbox.drain() {
            switch event {
            case .image(let delivery):
                app.apply(
                    delivery.ticket, delivery.result, revalidating: delivery.revalidating,
                    replacement: delivery.replacement, partial: delivery.partial)
            case .main(let work):
                work.run()
            case .page(let outcome):
                if let items = pages.apply(outcome) {
                    app.appendPage(items, paging: Self.paging(pages))
                } else {
                    app.setPaging(Self.paging(pages))
                }
            }
        }
    }
}

/// The tty of the tmux client that shows the browser's pane, as tmux last named it (kept when
/// a later answer names none: the session lost its client); nil when passthrough reaches the
/// terminal from a pane off screen (`allow-passthrough all`) or tmux never named one.
@MainActor
final class ClientTTY {
    private(set) var path: String?

    func update(_ state: TmuxPane.State) {
        if state.passthroughWhenHidden {
            path = nil
        } else if let tty = state.clientTTY {
            path = tty
        }
    }
}
