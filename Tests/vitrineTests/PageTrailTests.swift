import Foundation
import Testing

@testable import vitrine

@Suite("PageTrail: paging stops at a page already fetched")
struct PageTrailTests {
    @Test("a next link to the first page, or to a page read since, ends paging; a failed page may come again")
    func loops() {
        let first = URL(string: "http://127.0.0.1:9/feed.json")!
        let second = URL(string: "http://127.0.0.1:9/feed.json?page=2")!
        var trail = PageTrail(first: first)
        // The first page's own URL, given as relative to itself, is a loop
        #expect(trail.unvisited(URL(string: "feed.json", relativeTo: first)) == nil)
        #expect(trail.unvisited(nil) == nil)
        // A page not read yet (or read and failed) is still to fetch
        #expect(trail.unvisited(second) == second)
        // Once read, it is not fetched again
        trail.visited(second)
        #expect(trail.unvisited(URL(string: "?page=2", relativeTo: first)) == nil)
    }
}
