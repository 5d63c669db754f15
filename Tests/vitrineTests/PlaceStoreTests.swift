import Browse
import Foundation
import Testing

@testable import vitrine

@Suite("PlaceStore: remembered places on disk")
struct PlaceStoreTests {
    let place = Place(item: "file:///p/a.jpg", view: "grid", listRows: 4, gridRows: 8, sort: "title", reversed: true, filter: "x", marks: ["file:///p/b.jpg"])

    func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-places-\(UUID().uuidString)")
        return dir
    }

    @Test("locations are normalised: absolute paths, lower-case scheme and host, no fragment; stdin has none")
    func locations() {
        let cwd = FileManager.default.currentDirectoryPath
        #expect(PlaceStore.location(for: ["g.json"]) == URL(fileURLWithPath: cwd + "/g.json").resolvingSymlinksInPath().path)
        #expect(PlaceStore.location(for: ["HTTP://Example.ORG/g.json?page=1#top"]) == "http://example.org/g.json?page=1")
        #expect(PlaceStore.location(for: ["/a/./b/../g.json", "http://127.0.0.1/x"]) == "/a/g.json\nhttp://127.0.0.1/x")
        #expect(PlaceStore.location(for: ["-"]) == nil)
        #expect(PlaceStore.location(for: []) == "demo")
        #expect(PlaceStore.fileName(for: "a") != PlaceStore.fileName(for: "b"))
        #expect(PlaceStore.fileName(for: "a").count == 37)
    }

    @Test("save then load; another location finds nothing; XDG_STATE_HOME, else ~/.local/state")
    func roundTrip() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try PlaceStore.save(place, for: "/p", in: dir)
        #expect(try PlaceStore.load("/p", in: dir) == place)
        #expect(try PlaceStore.load("/q", in: dir) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == 1, "no temporary file left")
        #expect(PlaceStore.directory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).path == "/s/vitrine/places")
        #expect(PlaceStore.directory(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]).path == "/h/.local/state/vitrine/places")
    }

    @Test("a corrupt or foreign file is a reason, not a crash")
    func corrupt() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(PlaceStore.fileName(for: "/p"))
        try Data("{\"version\": 1, \"place\": [".utf8).write(to: path)
        #expect(throws: PlaceStore.PlaceError.self) { try PlaceStore.load("/p", in: dir) }
        try Data("{\"version\": 9, \"location\": \"/p\", \"place\": {}}".utf8).write(to: path)
        #expect(throws: PlaceStore.PlaceError.self) { try PlaceStore.load("/p", in: dir) }
    }

    @Test("at most `limit` files: the least recently written go")
    func bounded() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for i in 0..<(PlaceStore.limit + 3) {
            try PlaceStore.save(place, for: "/g\(i)", in: dir)
            // Distinct, increasing times without sleeping
            let path = dir.appendingPathComponent(PlaceStore.fileName(for: "/g\(i)")).path
            var times = [timespec(tv_sec: 1_000_000 + i, tv_nsec: 0), timespec(tv_sec: 1_000_000 + i, tv_nsec: 0)]
            utimensat(AT_FDCWD, path, &times, 0)
        }
        try PlaceStore.save(place, for: "/last", in: dir)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).count == PlaceStore.limit)
        #expect(try PlaceStore.load("/g0", in: dir) == nil)
        #expect(try PlaceStore.load("/g3", in: dir) == nil)
        #expect(try PlaceStore.load("/g4", in: dir) == place)
        #expect(try PlaceStore.load("/last", in: dir) == place)
    }
}
