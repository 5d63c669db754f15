// `vitrine-bench search`: the browse core on a big gallery (docs/PERFORMANCE.md, "Browse core").
import Foundation
import Gallery
import ImagePipeline
import TerminalUI

import Browse

/// A loader that answers nothing: the core's own costs, no pipeline.
@MainActor
final class SilentLoader: ImageLoading {
    var next = 0
    func load(_ request: ImageRequest, priority: Int) -> ImagePipeline.LoadStart {
        next += 1
        return .started(ImagePipeline.Ticket(id: next))
    }
    func cancel(_ ticket: ImagePipeline.Ticket) {}
    func setPriority(_ ticket: ImagePipeline.Ticket, _ priority: Int) {}
}

/// Resident memory in MiB (VmRSS from /proc/self/status).
func residentMiB() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Double(line.split(separator: " ").dropFirst().first ?? "0")! / 1024
    }
    return 0
}

/// Times each key of incremental search, filter and sort on N items (default 100,000): titles
/// like "Garden 1234 (nature)", file names like "IMG_01234.jpg" under http://127.0.0.1:9/.
@MainActor
func searchBench(_ args: [String]) {
    var count = 100_000
    if let i = args.firstIndex(of: "--items"), i + 1 < args.count, let n = Int(args[i + 1]) { count = n }
    let words = ["Garden", "Elephants", "LadyBird", "Storm", "Dune", "Aqua", "Wood", "Flower", "Meadow", "Wings"]
    let places = ["nature", "abstract", "desktop", "city", "sea"]
    let before = residentMiB()
    let clock = ContinuousClock()
    var items: [GalleryItem] = []
    items.reserveCapacity(count)
    for i in 0..<count {
        let title = "\(words[i % words.count]) \(i) (\(places[(i / 7) % places.count]))"
        items.append(GalleryItem(title: title, thumbnail: "http://127.0.0.1:9/photos/IMG_\(String(format: "%05d", i)).jpg", image: nil))
    }
    let loader = SilentLoader()
    var app: App!
    let build = clock.measure {
        let model = BrowseModel(name: "bench", items: items, loader: loader, paging: .done, colorMode: .truecolor)
        app = App(model: model, options: App.Options(mode: .grid, gridRows: 4))
    }
    items = []
    let canvas = TestCanvas(lines: 60, columns: 200)
    app.layout(lines: 60, columns: 200)
    app.updateInterest()
    app.draw(on: canvas)
    print("items: \(count); catalog, list and search index built in \(String(format: "%.0f", microseconds(build) / 1000)) ms")

    /// One key's wall-clock time and the main thread's CPU time for it, in µs (on a shared
    /// machine the wall clock includes the time the thread waited for a core).
    struct Sample {
        var wall: Double
        var cpu: Double
    }
    func threadCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1e6 + Double(t.tv_nsec) / 1e3
    }
    func typeTimed(_ keys: [Key]) -> [Sample] {
        keys.map { key in
            let cpu0 = threadCPU()
            let wall = microseconds(clock.measure {
                app.handle(key)
                app.updateInterest()
                app.draw(on: canvas)
            })
            return Sample(wall: wall, cpu: threadCPU() - cpu0)
        }
    }
    func report(_ name: String, _ samples: [Sample]) {
        let s = samples.map(\.wall).sorted(), c = samples.map(\.cpu).sorted()
        print(String(format: "| %@ | %d | %.2f | %.2f | %.2f | %.2f | %.2f |", name, s.count, quantile(s, 0.5) / 1000, quantile(s, 0.99) / 1000, s.last! / 1000,
            quantile(c, 0.5) / 1000, quantile(c, 0.99) / 1000))
    }
    func keys(_ text: String) -> [Key] { text.map { Key.character($0) } }

    // Parts of a key, alone: the index scan, a full frame, the loader update.
    // The search index, as the loop builds it: in idle slices of 5,000 items.
    var slices: [Double] = []
    while app.model.list.needsIndexing {
        slices.append(microseconds(clock.measure { app.idleWork() }))
    }
    print(String(format: "search index built in %d idle slices: %.0f ms in all, slice median %.2f ms, max %.2f ms",
        slices.count, slices.reduce(0, +) / 1000, quantile(slices.sorted(), 0.5) / 1000, (slices.max() ?? 0) / 1000))
    for query in ["e", "el", "elephants", "IMG_0999", "zebra"] {
        let t = samples(iterations: 50, warmup: 3) { sink &+= app.model.list.scan(query).count }
        print(String(format: "matches(\"%@\"): median %.2f ms", query, quantile(t, 0.5) / 1000))
    }
    let frame = samples(iterations: 50, warmup: 3) {
        app.perform(.redraw)
        app.draw(on: canvas)
    }
    print(String(format: "full frame (220 slots, 200x60): median %.2f ms", quantile(frame, 0.5) / 1000))
    let interest = samples(iterations: 50, warmup: 3) { app.updateInterest() }
    print(String(format: "updateInterest: median %.2f ms", quantile(interest, 0.5) / 1000))

    print("| what (per key, handle + interest + frame on a 200x60 test canvas) | keys | p50 ms | p99 ms | max ms | CPU p50 ms | CPU p99 ms |")
    print("|---|---|---|---|---|---|---|")
    var search: [Sample] = [], firsts: [Sample] = [], named: [(String, Sample)] = []
    for query in ["elephants", "ladybird 9", "IMG_0999", "storm 12345", "zebra", "e"] {
        _ = typeTimed([.character("/")])
        let typed = typeTimed(keys(query))
        search += typed
        firsts.append(typed[0])
        for (i, t) in typed.enumerated() { named.append((String(query.prefix(i + 1)), t)) }
        _ = typeTimed([.enter])
    }
    report("incremental search, 6 queries typed", search)
    report("of which a query's first letter", firsts)
    print("slowest search keys: " + named.sorted { $0.1.wall > $1.1.wall }.prefix(4).map { String(format: "\"%@\" %.2f ms (CPU %.2f)", $0.0, $0.1.wall / 1000, $0.1.cpu / 1000) }.joined(separator: ", "))
    var backward: [Sample] = []
    for query in ["wings 7", "dune", "Aqua 5"] {
        _ = typeTimed([.character("G"), .character("?")])
        backward += typeTimed(keys(query))
        _ = typeTimed([.enter])
    }
    report("incremental backward search (?), 3 queries typed from the last item", backward)
    var next: [Sample] = []
    _ = typeTimed([.character("/")] + keys("garden 4") + [.enter])
    for _ in 0..<200 { next += typeTimed([.character("n")]) }
    report("n (next match of \"garden 4\")", next)
    var filter: [Sample] = []
    _ = typeTimed([.character("&")])
    filter += typeTimed(keys("nature"))
    filter += typeTimed([.backspace, .backspace, .backspace, .backspace, .backspace, .backspace])
    filter += typeTimed(keys("wings"))
    _ = typeTimed([.enter])
    report("incremental filter (\"nature\", erased, \"wings\")", filter)
    var sorts: [Sample] = []
    for _ in 0..<4 { sorts += typeTimed([.character(",")]) }
    sorts += typeTimed([.character("S")])
    report("sort (s four times, then S) with the filter on", sorts)
    _ = typeTimed([.escape])
    let all = typeTimed([.character(",")])
    report("sort by title, 100,000 items (first time: keys built)", all)
    var moves: [Sample] = []
    for _ in 0..<100 { moves += typeTimed([.character("l")]) }
    report("l (a move in the grid)", moves)
    _ = typeTimed(keys("&") + keys("elephants") + [.enter])
    print("filter \"elephants\" shows \(app.model.list.count) of \(app.model.list.total); sort \(app.model.list.sortKey.rawValue)")
    print(String(format: "resident memory: %.1f MiB before the gallery, %.1f MiB with it (filter and sort applied)", before, residentMiB()))
}
