import Foundation
import ImagePipeline
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// Prints a failure to stderr (sanitized: it may quote a server or a gallery) and exits with
/// its sysexits status.
func fail(_ failure: Failure) -> Never {
    Output.err("vitrine: \(failure.message)\n")
    exit(failure.status.rawValue)
}

let environment = processEnvironment()
// Two malloc arenas, before any thread starts: freed image bodies no longer linger in one arena
// per thread (see `limitMallocArenas`).
ImagePipeline.limitMallocArenas(to: 2, environment: environment)
// VITRINE_LOG that cannot be opened is an error, not a silent loss of the log.
var logFD: Int32 = -1
if let path = environment["VITRINE_LOG"] {
    do throws(POSIXCallError) {
        logFD = try POSIX.call("open \(path)") { open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) }
    } catch {
        fail(Failure(status: .cantCreate, message: "VITRINE_LOG: \(error)"))
    }
}
if logFD >= 0 { ImagePipeline.sendDecoderWarnings(toFileDescriptor: logFD) }

do throws(Failure) {
    switch try parseArguments(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        Output.out(helpText + "\n")
    case .version:
        Output.out(versionText + "\n")
    case .doctor(let options):
        Output.out(DoctorCommand.report(options: options, environment: environment) + "\n")
    case .render(let image, let options):
        try RenderCommand.run(image: image, options: options, environment: environment)
    case .list(let galleries, let options):
        try ListCommand.run(galleries: galleries, options: options)
    case .cache(let action):
        let cache = DiskCache(directory: DiskCache.defaultDirectory(environment: environment))
        if action == .clear {
            do throws(ImagePipeline.Error) {
                let n = try cache.removeAll()
                Output.out("removed \(n) \(n == 1 ? "entry" : "entries") from \(cache.directory.path)\n")
            } catch {
                throw Failure(status: .software, message: error.description)
            }
        } else {
            let s = cache.summary()
            Output.out("location: \(s.directory.path)\nentries: \(s.entries)\nbytes: \(s.totalBytes) (limit \(s.byteLimit))\n")
        }
    case .browse(let arguments, let options):
        let center = NotificationCenter()
        var configuration = ImagePipeline.Configuration()
        configuration.notificationCenter = center
        if options.loading.diskCache { configuration.diskCacheDirectory = DiskCache.defaultDirectory(environment: environment) }
        options.loading.apply(to: &configuration)
        let pipeline = ImagePipeline(configuration: configuration)
        let first = try FileGallery.open(arguments, fetcher: PipelineGalleryFetcher(pipeline: pipeline), reading: options.reading)
        // Standard input or output redirected (`find . | vitrine -`): draw on /dev/tty.
        let originalOutput: Int32?
        do throws(Failure) {
            originalOutput = try ControllingTerminal.attach()
        } catch where options.pick && error.status == .usage {
            throw Failure(status: .usage, message: "pick draws its screen on the terminal, and this process has none (no /dev/tty)")
        }
        let wakePipe: WakePipe
        do { wakePipe = try WakePipe() } catch { throw Failure(status: .software, message: "\(error)") }
        TerminalRestore.watchTerminationSignals(wakePipe)
        let inbox = Inbox(pipeline: pipeline, center: center, wakePipe: wakePipe)
        // The terminal's abilities, asked once before curses starts (one 100 ms deadline; the
        // answers never reach the key queue): the full view's pixel protocol, the colour mode
        // and the background for half-block art.
        let capabilities = Browser.probe(options: options, environment: environment)
        let screen: Screen
        do {
            screen = try Screen(environment: environment, colorOverride: options.colors ?? capabilities?.colorMode)
        } catch {
            throw Failure(status: .usage, message: "\(error)")
        }
        // Nothing may print over the curses screen: stderr goes to the log (or nowhere) while
        // it is up, and comes back for messages after.
        let savedStderr: Int32
        do throws(POSIXCallError) {
            savedStderr = try POSIX.call("dup 2") { dup(2) }
            let sink = logFD >= 0 ? logFD : try POSIX.call("open /dev/null") { open("/dev/null", O_WRONLY | O_CLOEXEC) }
            try POSIX.call("dup2") { dup2(sink, 2) }
        } catch {
            screen.close()
            throw Failure(status: .software, message: "\(error)")
        }
        var placeProblem: String?
        let browser = Browser(
            first: first, reading: options.reading, pipeline: pipeline, screen: screen, inbox: inbox,
            options: options, environment: environment, capabilities: capabilities)
        if options.pick { browser.app.activity = Picker.hint }
        // The remembered place: where this gallery was left (not for standard input).
        let placeDirectory = PlaceStore.directory(environment: environment)
        let location = PlaceStore.location(for: arguments)
        if let location, !options.fresh {
            do throws(PlaceStore.PlaceError) {
                if var place = try PlaceStore.load(location, in: placeDirectory) {
                    // The picker's marks are its answer: each pick starts with none.
                    if options.pick { place.marks = [] }
                    browser.app.restore(place)
                }
            } catch {
                browser.app.show("remembered place ignored, \(error.reason)", alone: true)
            }
        }
        browser.run()
        if let location {
            do throws(PlaceStore.PlaceError) {
                try PlaceStore.save(browser.app.place, for: location, in: placeDirectory)
            } catch {
                placeProblem = error.reason
            }
        }
        screen.close()
        // Messages after the screen closes need stderr back; nothing else can be done if not.
        _ = try? POSIX.call("dup2") { dup2(savedStderr, 2) }
        if let placeProblem { Output.err("vitrine: \(placeProblem)\n") }
        let sig = TerminalRestore.pendingTerminationSignal
        if sig != 0 { TerminalRestore.dieOf(sig) }
        if options.pick {
            let chosen = browser.app.actionTargets.map { browser.app.model.items[$0.index] }
            if Picker.write(chosen, to: originalOutput ?? 1) == 0 {
                Output.err("vitrine: nothing chosen\n")
                exit(1)
            }
        }
    }
} catch {
    fail(error)
}
exit(0)
