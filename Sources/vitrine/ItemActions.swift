import Browse
import Foundation
import Gallery
import ImagePipeline
import TerminalUI

#if canImport(Glibc)
import Glibc
#endif

/// `y`, `o` and `s` on the marked items (else the current one), for the browser: copy their
/// URLs or paths with OSC 52, open them in the user's viewer, save them to the save folder.
///
/// Runs on the main thread; downloads, validation and file writes run on background threads
/// and report back through the inbox (`LoopEvent.main`).
@MainActor
final class ItemActions {
    let app: App
    let pipeline: ImagePipeline
    let inbox: Inbox
    let screen: Screen
    let environment: [String: String]
    let saveFolder: URL
    let mouse: Bool
    /// An OSC 52 sequence to write after the next refresh (curses must not interleave).
    var pendingTerminalBytes: [UInt8]?
    /// File writes in flight on background threads (`finish` waits for them at exit, so no
    /// temporary file is left behind by quitting mid-batch).
    nonisolated static let writes = DispatchGroup()
    /// Saves running at once.
    static let saveConcurrency = 3
    /// Most bytes `y` copies (terminals cap OSC 52: xterm and tmux take this much).
    static let maxCopyBytes = 64 << 10
    /// Most items `o` opens at once.
    static let maxOpen = 16

    init(app: App, pipeline: ImagePipeline, inbox: Inbox, screen: Screen, environment: [String: String], saveDir: String?, mouse: Bool) {
        self.app = app
        self.pipeline = pipeline
        self.inbox = inbox
        self.screen = screen
        self.environment = environment
        self.saveFolder = SaveNames.folder(option: saveDir, environment: environment)
        self.mouse = mouse
    }

    func perform(_ action: Action, _ ids: [ItemID]) {
        switch action {
        case .copy: copy(ids)
        case .save: save(ids)
        case .openExternally: open(ids)
        default: break
        }
    }

    func item(_ id: ItemID) -> GalleryItem { app.model.items[id.index] }

    // MARK: Copy

    /// The OSC 52 sequence that puts `text` on the clipboard: `ESC ] 52 ; c ; BASE64 BEL`
    /// (xterm's "Manipulate Selection Data"; tmux takes it into its buffer when its
    /// `set-clipboard` option is on).
    nonisolated static func osc52(_ text: String) -> [UInt8] {
        Array("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}".utf8)
    }

    func copy(_ ids: [ItemID]) {
        let lines = ids.compactMap { Picker.line(for: item($0)) }
        guard !lines.isEmpty else { return app.show("nothing to copy: no URL") }
        let text = lines.joined(separator: "\n")
        guard text.utf8.count <= Self.maxCopyBytes else {
            return app.show("too much to copy at once (\(lines.count) items, \(ByteSize.describe(text.utf8.count)))")
        }
        pendingTerminalBytes = Self.osc52(text)
        app.show(lines.count == 1 ? "copied \(lines[0])" : "copied \(lines.count) items: \(lines[0]) …", alone: true)
    }

    /// Writes what waits for the terminal (after `Screen.refresh`).
    func flushTerminalBytes() {
        guard let bytes = pendingTerminalBytes else { return }
        pendingTerminalBytes = nil
        try? POSIX.writeAll(1, bytes)
    }

    // MARK: Save

    /// One batch of saves.
    final class SaveBatch {
        var queue: [ItemID]
        let total: Int
        var running: [ItemID: any Cancellable] = [:]
        var saved: [String] = []
        var skipped: [String] = []
        var failed: [(name: String, reason: String)] = []
        var cancelled = false
        init(_ ids: [ItemID]) {
            queue = ids
            total = ids.count
        }
        var done: Int { saved.count + skipped.count + failed.count }
    }
    var batch: SaveBatch?

    func save(_ ids: [ItemID]) {
        guard batch == nil else { return app.show("a save is running (Esc cancels it)") }
        guard SaveNames.isDirectory(saveFolder.path) else {
            return app.show("cannot save: \(saveFolder.path) is not a folder")
        }
        let batch = SaveBatch(ids)
        self.batch = batch
        app.cancelActivity = { [weak self] in self?.cancelSaves() }
        progress()
        startSaves()
    }

    private func startSaves() {
        guard let batch, !batch.cancelled else { return }
        while batch.running.count < Self.saveConcurrency, !batch.queue.isEmpty {
            let id = batch.queue.removeFirst()
            let entry = item(id)
            guard let string = entry.imageURLString ?? entry.thumbnailURLString, let url = URL(string: string) else {
                batch.skipped.append(entry.title)
                continue
            }
            let folder = saveFolder
            let inbox = self.inbox
            let handle = pipeline.originalImageData(for: url) { result in
                // Background thread: the write too, never on the UI thread.
                var outcome: Result<String, SaveNames.WriteError>
                switch result {
                case .success(let data):
                    let name = SaveNames.safeName(for: url, kind: ImagePipeline.imageKind(of: data))
                    ItemActions.writes.enter()
                    defer { ItemActions.writes.leave() }
                    do throws(SaveNames.WriteError) {
                        outcome = .success(try SaveNames.write(data, named: name, in: folder))
                    } catch {
                        outcome = .failure(error)
                    }
                case .failure(let error):
                    outcome = .failure(.io(error.shortReason))
                }
                let finished = outcome
                inbox.send(.main(MainWork { [weak self] in self?.saved(id, finished) }))
            }
            batch.running[id] = handle
        }
        if batch.running.isEmpty && batch.queue.isEmpty { finishSaves() } else { progress() }
    }

    private func saved(_ id: ItemID, _ outcome: Result<String, SaveNames.WriteError>) {
        guard let batch, batch.running.removeValue(forKey: id) != nil else { return }
        switch outcome {
        case .success(let name): batch.saved.append(name)
        case .failure(let error):
            if case .io(let reason) = error, reason == "cancelled" { break }
            batch.failed.append((item(id).title, error.description))
        }
        if batch.cancelled {
            if batch.running.isEmpty { finishSaves() }
        } else {
            startSaves()
        }
    }

    private func progress() {
        guard let batch else { return }
        app.activity = "saving \(batch.done + 1 <= batch.total ? batch.done + 1 : batch.total) of \(batch.total) to \(saveFolder.path)… (Esc cancels)"
    }

    /// At exit: cancels a running batch and waits (up to 5 s) for writes in flight to end.
    func finish() {
        cancelSaves()
        _ = Self.writes.wait(timeout: .now() + 5)
    }

    private func cancelSaves() {
        guard let batch else { return }
        batch.cancelled = true
        batch.queue.removeAll()
        for handle in batch.running.values { handle.cancel() }
        if batch.running.isEmpty { finishSaves() }
    }

    private func finishSaves() {
        guard let batch else { return }
        self.batch = nil
        app.activity = nil
        app.cancelActivity = nil
        var parts: [String] = []
        if batch.total == 1, let name = batch.saved.first {
            parts.append("saved \(saveFolder.appendingPathComponent(name).path)")
        } else {
            parts.append("saved \(batch.saved.count) to \(saveFolder.path)")
        }
        if batch.cancelled { parts.append("cancelled") }
        if !batch.skipped.isEmpty { parts.append("skipped \(batch.skipped.count) (no image URL)") }
        if !batch.failed.isEmpty {
            let reasons = batch.failed.prefix(3).map { "\($0.name): \($0.reason)" }.joined(separator: ", ")
            parts.append("failed \(batch.failed.count) (\(reasons)\(batch.failed.count > 3 ? ", …" : ""))")
        }
        app.show(parts.joined(separator: " · "), alone: true)
    }

    // MARK: Open

    /// How the viewer runs: in the terminal (curses ends and resumes around it) or detached.
    enum OpenMode { case terminal, detached }

    /// The viewer command: `$VITRINE_OPENER` (a shell command the paths are appended to, all
    /// at once), else `xdg-open` from PATH (one run per path); nil when neither exists.
    /// `VITRINE_OPENER_MODE` is `terminal` or `detached`; by default a viewer runs detached
    /// when there is a display (DISPLAY or WAYLAND_DISPLAY), else in the terminal.
    static func opener(environment: [String: String]) -> (argv: [String], perFile: Bool, mode: OpenMode)? {
        let display = !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
        var mode: OpenMode = display ? .detached : .terminal
        switch environment["VITRINE_OPENER_MODE"] {
        case "terminal": mode = .terminal
        case "detached": mode = .detached
        default: break
        }
        if let command = environment["VITRINE_OPENER"], !command.trimmingCharacters(in: .whitespaces).isEmpty {
            return (["/bin/sh", "-c", command + " \"$@\"", "vitrine-opener"], false, mode)
        }
        for dir in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/xdg-open"
            if access(path, X_OK) == 0 { return ([path], true, mode) }
        }
        return nil
    }

    /// Where files for the viewer are written: `$XDG_RUNTIME_DIR/vitrine` (private, cleared at
    /// logout), else `/tmp/vitrine-UID`, made 0700.
    func openFolder() -> URL? {
        let base = environment["XDG_RUNTIME_DIR"].flatMap { SaveNames.isDirectory($0) ? $0 + "/vitrine" : nil }
            ?? "/tmp/vitrine-\(getuid())"
        mkdir(base, 0o700)
        var info = stat()
        guard lstat(base, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else { return nil }
        let dir = base + "/open"
        mkdir(dir, 0o700)
        return SaveNames.isDirectory(dir) ? URL(fileURLWithPath: dir, isDirectory: true) : nil
    }

    /// Files being readied for one `o`.
    @MainActor final class OpenJob {
        var paths: [String?]
        var waiting = 0
        var failures: [String] = []
        init(count: Int) { paths = Array(repeating: nil, count: count) }
    }

    enum Readied: Sendable {
        case path(String)
        case failed(String)
    }

    func open(_ ids: [ItemID]) {
        guard let opener = Self.opener(environment: environment) else {
            return app.show("no viewer to open with: set VITRINE_OPENER (a command) or install xdg-open (xdg-utils)")
        }
        let chosen = Array(ids.prefix(Self.maxOpen))
        let job = OpenJob(count: chosen.count)
        let inbox = self.inbox
        let folder = openFolder()
        let ready: @MainActor () -> Void = { [weak self] in
            guard let self else { return }
            let files = job.paths.compactMap { $0 }
            if files.isEmpty { return self.app.show("cannot open: \(job.failures.joined(separator: ", "))") }
            self.run(opener, files: files)
            if !job.failures.isEmpty { self.app.show("opened \(files.count); failed: \(job.failures.joined(separator: ", "))") }
        }
        for (i, id) in chosen.enumerated() {
            let entry = item(id)
            guard let string = entry.imageURLString ?? entry.thumbnailURLString, let url = URL(string: string) else {
                job.failures.append("\(entry.title): no image URL")
                continue
            }
            if url.isFileURL {
                job.paths[i] = url.path
                continue
            }
            guard let folder else {
                job.failures.append("\(entry.title): no private folder to write it to")
                continue
            }
            // Never the remote URL: the validated bytes, written by Vitrine, are what opens.
            job.waiting += 1
            let title = entry.title
            pipeline.originalImageData(for: url) { result in
                let outcome: Readied
                switch result {
                case .success(let data):
                    let name = SaveNames.safeName(for: url, kind: ImagePipeline.imageKind(of: data))
                    do throws(SaveNames.WriteError) {
                        outcome = .path(folder.appendingPathComponent(try SaveNames.write(data, named: name, in: folder)).path)
                    } catch {
                        outcome = .failed(error.description)
                    }
                case .failure(let error):
                    outcome = .failed(error.shortReason)
                }
                inbox.send(.main(MainWork {
                    switch outcome {
                    case .path(let path): job.paths[i] = path
                    case .failed(let reason): job.failures.append("\(title): \(reason)")
                    }
                    job.waiting -= 1
                    if job.waiting == 0 { ready() }
                }))
            }
        }
        if job.waiting == 0 { ready() } else { app.show("fetching \(job.waiting) to open…") }
    }

    /// Runs the viewer on `files`: in the terminal (curses suspended, SIGINT and SIGQUIT
    /// ignored here while it runs, as system(3) does) or detached (its own session, no
    /// terminal, not waited for).
    func run(_ opener: (argv: [String], perFile: Bool, mode: OpenMode), files: [String]) {
        guard !files.isEmpty else { return }
        let runs = opener.perFile ? files.map { opener.argv + [$0] } : [opener.argv + files]
        switch opener.mode {
        case .detached:
            for argv in runs {
                // sh starts the viewer in the background with no terminal and exits: the viewer
                // is adopted by init, and the one child waited for here is sh.
                let script = "setsid \"$@\" </dev/null >/dev/null 2>&1 &"
                if let pid = Self.spawn(["/bin/sh", "-c", script, "vitrine-detach"] + argv, stderrToTerminal: false) {
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                }
            }
            app.show("opened \(files.count == 1 ? (files[0] as NSString).lastPathComponent : "\(files.count) files")")
        case .terminal:
            screen.suspend(mouse: mouse)
            var ignore = sigaction()
            ignore.__sigaction_handler.sa_handler = SIG_IGN
            var oldInt = sigaction(), oldQuit = sigaction()
            sigaction(SIGINT, &ignore, &oldInt)
            sigaction(SIGQUIT, &ignore, &oldQuit)
            var last: Int32 = 0
            for argv in runs {
                if let pid = Self.spawn(argv, stderrToTerminal: true) {
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                    last = status
                }
            }
            sigaction(SIGINT, &oldInt, nil)
            sigaction(SIGQUIT, &oldQuit, nil)
            screen.resume(mouse: mouse)
            app.layout(lines: screen.lines, columns: screen.columns)
            let code = (last >> 8) & 0xFF
            app.show(code == 0 ? "back from the viewer" : "the viewer exited with status \(code)")
        }
    }

    /// Starts `argv` (an absolute path first) with this environment; stdin and stdout as they
    /// are (the terminal), stderr the terminal too when `stderrToTerminal` (it goes to the log
    /// while curses is up). Returns the pid, or nil.
    static func spawn(_ argv: [String], stderrToTerminal: Bool) -> pid_t? {
        POSIX.spawn(argv, searchPath: false) { actions in
            if stderrToTerminal { posix_spawn_file_actions_adddup2(actions, 1, 2) }
        }
    }
}
