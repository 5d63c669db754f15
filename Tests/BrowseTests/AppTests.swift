import Foundation
import Gallery
import ImagePipeline
import TerminalUI
import Testing

@testable import Browse

@Suite("App: the grid on a test canvas")
@MainActor
struct GridTests {
    @Test("the grid draws each thumbnail's box with its title under it, and marks the selection")
    func drawsGrid() {
        // Given 100 items in the grid at 80x24, the smallest size (8x4 boxes in 10x5 slots)
        let h = Harness(count: 100, mode: .grid)
        h.finishLoads()
        // Then the titles sit on line 4 under each box, and line 9 under the second row, cut
        // to fit the 9 columns ("Picture 10" is 10)
        #expect(h.canvas.row(4).contains("Picture 0") && h.canvas.row(4).contains("Picture 7"))
        #expect(h.canvas.row(9).contains("Picture 9") && h.canvas.row(9).contains("Picture …"))
        #expect(h.canvas.cells[4][1].role == .selection)
        #expect(h.canvas.cells[9][11].role != .selection)
        // The first box holds art (coloured cells) on lines 0-3, none on the title line
        #expect((0..<4).contains { y in h.canvas.cells[y][1..<10].contains { $0.background != .terminalDefault } })
        #expect(!h.canvas.cells[4].contains { $0.background != .terminalDefault })
        // And the status line says where we are: 32 on screen and 8 of look-ahead loaded
        #expect(h.status.contains("1/100"))
        #expect(h.status.contains("loaded 40 · loading 0"))
    }

    @Test("arrows and h j k l move in two dimensions; counts repeat; G, g, 50G and 50% jump")
    func movesIn2D() {
        let h = Harness(count: 100, mode: .grid)
        let perRow = h.gallery.layout.perRow
        #expect(perRow == 8)
        h.type(.character("l"))
        #expect(h.gallery.selected == 1)
        h.type(.character("j"))
        #expect(h.gallery.selected == 1 + perRow)
        h.type(.right, .down)
        #expect(h.gallery.selected == 2 + 2 * perRow)
        h.type(.character("k"), .character("h"), .left)
        #expect(h.gallery.selected == perRow)
        // 3j: three rows down
        h.type("3j")
        #expect(h.gallery.selected == 4 * perRow)
        h.type("G")
        #expect(h.gallery.selected == 99)
        h.type("g")
        #expect(h.gallery.selected == 0)
        h.type("50G")
        #expect(h.gallery.selected == 49)
        #expect(h.status.contains("50/100"))
        h.type("25%")
        #expect(h.gallery.selected == 24)
        h.type("7g")
        #expect(h.gallery.selected == 6)
        // Up on the first row stays put; down from the last full row goes to the last item
        h.type(.character("k"))
        #expect(h.gallery.selected == 6)
        h.type("G")
        h.type(.character("k"), .character("j"))
        #expect(h.gallery.selected == 99)
    }

    @Test("a count shows in the status line while it is typed")
    func countInStatus() {
        let h = Harness(count: 100, mode: .grid)
        h.type("12")
        #expect(h.status.contains("12  loaded"))
        h.type("j")
        #expect(!h.status.contains("12  loaded"))
    }

    @Test("pages scroll a screen of rows; the selection stays in view")
    func paging() {
        let h = Harness(count: 1000, mode: .grid)
        let layout = h.gallery.layout
        h.type(.pageDown)
        #expect(h.gallery.topRow == layout.rowsPerPage)
        #expect(h.gallery.selected == layout.slotsPerPage)
        #expect(h.gallery.visiblePositions.contains(h.gallery.selected))
        h.type(.control("D"))
        #expect(h.gallery.visiblePositions.contains(h.gallery.selected))
    }

    @Test("moving the selection redraws two slots, never the screen; scrolling redraws in place without clearing")
    func onlyChangedCellsRedrawn() {
        let h = Harness(count: 200, mode: .grid)
        h.finishLoads()
        // A full redraw, for scale
        h.canvas.resetWrites()
        h.app.layout(lines: 24, columns: 80)
        h.frame()
        let full = h.canvas.writes
        h.canvas.resetWrites()
        h.type(.character("l"))
        // Two slots of the first row and the status line, a small part of a full redraw
        #expect(h.canvas.touchedLines.isSubset(of: Set(0..<5).union([23])))
        #expect(h.canvas.writes * 4 < full, "\(h.canvas.writes) cells written for a move, \(full) for the screen")
        // A frame with nothing new draws nothing
        h.canvas.resetWrites()
        #expect(h.frame() == false)
        #expect(h.canvas.writes == 0)
    }

    @Test("v switches views and keeps the selected item; --view grid starts in the grid")
    func toggle() {
        let h = Harness(count: 100, mode: .list)
        h.type("30G")
        #expect(h.gallery.kind == .list)
        h.type("v")
        #expect(h.gallery.kind == .grid)
        #expect(h.gallery.selected == 29)
        #expect(h.gallery.visiblePositions.contains(29))
        h.type("v")
        #expect(h.gallery.kind == .list)
        #expect(h.canvas.text.contains("Picture 29"))
    }

    @Test("+ and - step thumbnail sizes in both views; the selection stays in view; rows re-request at the new box")
    func sizes() {
        let h = Harness(count: 500, lines: 60, columns: 200, mode: .grid)
        h.finishLoads()
        h.type("120G")
        var seen: [Int] = [h.gallery.layout.box.rows]
        for _ in 0..<8 {
            h.type("+")
            seen.append(h.gallery.layout.box.rows)
            #expect(h.gallery.visiblePositions.contains(119))
        }
        #expect(seen == [4, 6, 8, 10, 12, 16, 20, 20, 20])
        // The new box is what is asked for now (40x20 cells: 80x80 pixels)
        #expect(h.loader.requested.last?.width == 80 && h.loader.requested.last?.height == 80)
        h.type("-")
        #expect(h.gallery.layout.box.rows == 16)
        // In the list, too
        h.type("v")
        let before = h.gallery.layout.box.rows
        h.type("+")
        #expect(h.gallery.layout.box.rows > before)
        #expect(h.gallery.visiblePositions.contains(119))
    }

    @Test("only the screen and one row beyond each edge are requested, nearest first, in both views")
    func lazyLoading() {
        let h = Harness(count: 10_000, mode: .grid)
        // 32 on screen plus a row of 8 below: rows above the top do not exist yet
        #expect(h.loader.requestedRows == Array(0..<40))
        h.type("5000G")
        let visible = h.gallery.visiblePositions
        let asked = Set(h.loader.requestedRows.dropFirst(40))
        #expect(asked == Set((visible.lowerBound - 8)..<(visible.upperBound + 8)))
        // Everything from the first screen was cancelled
        #expect(h.loader.cancelled.count == 40)
        #expect(h.loader.requestedRows.allSatisfy { $0 < 40 || abs($0 - 4999) < 64 })
    }
}

@Suite("App: search, filter and sort")
@MainActor
struct SearchTests {
    @Test("/ searches as you type from the selection, with smart case; n and N wrap; matches are highlighted")
    func incrementalSearch() {
        let h = Harness(count: 100, titles: { i in i % 10 == 7 ? "Ladybird \(i)" : "Garden \(i)" })
        h.type("/")
        #expect(h.status.hasPrefix("/▏"))
        h.type("lady")
        // The first match from the top, selected while typing
        #expect(h.gallery.selected == 7)
        #expect(h.status.hasPrefix("/lady▏"))
        #expect(h.status.contains("10 matching"))
        h.type(.enter)
        h.type("n")
        #expect(h.gallery.selected == 17)
        h.type("3n")
        #expect(h.gallery.selected == 47)
        h.type("N")
        #expect(h.gallery.selected == 37)
        // Wrapping from the last match to the first
        h.type("G")
        h.type("n")
        #expect(h.gallery.selected == 7)
        #expect(h.status.contains("wrapped"))
        // Highlight: the title of a match on screen is drawn in the match role
        h.type("k")
        let y = (0..<23).first { h.canvas.row($0).contains("Ladybird 7") }!
        let x = h.canvas.row(y).distance(of: "Ladybird")
        #expect(h.canvas.cells[y][x].role == .match)
        // Smart case: "Lady" matches, "LADY" does not
        h.type("/")
        h.type("LADY")
        #expect(h.status.contains("0 matching"))
        h.type(.escape)
        #expect(h.model.search == "lady")
    }

    @Test("a search key redraws only the slots whose highlight or selection changed, and the status line")
    func searchRedrawsChangedSlots() {
        let h = Harness(count: 100, mode: .grid, titles: { i in i % 10 == 7 ? "Ladybird \(i)" : "Garden \(i)" })
        h.finishLoads()
        h.type("/")
        h.canvas.resetWrites()
        h.type("l")
        // 32 on screen in rows of 8 (5 lines each): 7, 17 and 27 light up and the selection
        // moves from 0 to 7; the second row (items 8-15, lines 5-9) is not touched
        #expect(h.gallery.selected == 7)
        #expect(h.canvas.touchedLines.isSubset(of: Set(0..<5).union(10..<20).union([23])))
        #expect(!h.canvas.touchedLines.contains(5) && h.canvas.touchedLines.contains(10))
        // (17's title line is line 14: highlighted)
        #expect(h.canvas.cells[14].contains { $0.role == .match })
        // "la" matches the same items: the status line alone
        h.canvas.resetWrites()
        h.type("a")
        #expect(h.canvas.touchedLines == [23])
        // n moves the selection: two slots
        h.type(.enter)
        h.canvas.resetWrites()
        h.type("n")
        #expect(h.gallery.selected == 17)
        #expect(h.canvas.touchedLines.isSubset(of: Set(0..<5).union(10..<15).union([23])))
    }

    @Test("Esc while searching goes back where the search started")
    func cancelSearch() {
        let h = Harness(count: 100, titles: { "Item \($0)" })
        h.type("5j")
        h.type("/")
        h.type("Item 60")
        #expect(h.gallery.selected == 60)
        h.type(.escape)
        #expect(h.gallery.selected == 5)
        #expect(h.model.search == nil)
    }

    @Test("& shows only matching items in both views, the status line says so, Esc clears")
    func filter() {
        let h = Harness(count: 300, titles: { i in i % 3 == 0 ? "Elephant \(i)" : "Flag \(i)" })
        h.type("30G")
        h.type("&")
        h.type("eleph")
        #expect(h.model.list.count == 100)
        #expect(h.status.hasPrefix("&eleph▏"))
        h.type(.enter)
        #expect(h.status.contains("1/100") || h.status.contains("/100"))
        #expect(h.status.contains("& eleph: 100 of 300"))
        // The selected item (29, a Flag) is hidden: the selection goes to the nearest elephant
        // in the unfiltered order (30 is one away, 27 two), not to position 29 of the filtered list
        #expect(h.selectedTitle == "Elephant 30")
        #expect(h.status.contains("11/100"))
        h.type("v")
        #expect(!h.canvas.text.contains("Flag"))
        h.type(.escape)
        #expect(h.model.list.count == 300)
        #expect(!h.status.contains("&"))
    }

    @Test("while the filter is typed the selection stays anchored on the item it started on; erasing comes back to it")
    func filterAnchor() {
        let h = Harness(count: 300, titles: { i in i % 3 == 0 ? "Elephant \(i)" : "Flag \(i)" })
        h.type("59G")   // Flag 58: its nearest elephant is 57 (one away; 60 is two)
        h.type("&")
        h.type("eleph")
        #expect(h.selectedTitle == "Elephant 57")
        // A filter that hides the elephants too, then one that shows Flag 58 again: back on it
        h.type(.control("U"))
        #expect(h.selectedTitle == "Flag 58")
        h.type("flag 5")
        #expect(h.selectedTitle == "Flag 58")
        h.type("0")   // "flag 50": Flag 50 alone (and 500+ do not exist)
        #expect(h.selectedTitle == "Flag 50")
        h.type(.backspace)
        #expect(h.selectedTitle == "Flag 58")
        // Esc puts the old filter (none) back, and the selection on Flag 58
        h.type(.escape)
        #expect(h.model.list.filter == nil && h.selectedTitle == "Flag 58")
        // After Enter the selection is what the user sees: clearing the filter keeps it
        h.type("&")
        h.type("eleph")
        h.type(.enter)
        h.type("j")
        #expect(h.selectedTitle == "Elephant 60")
        h.type(.escape)
        #expect(h.model.list.filter == nil && h.selectedTitle == "Elephant 60")
    }

    @Test("? searches backward as you type; n and N then go up and down; / turns them back")
    func backwardSearch() {
        let h = Harness(count: 100, titles: { i in i % 10 == 7 ? "Ladybird \(i)" : "Garden \(i)" })
        h.type("50G")
        h.type("?")
        #expect(h.status.hasPrefix("?▏"))
        #expect(h.status.contains("search backward"))
        h.type("lady")
        // The first match at or above the selection
        #expect(h.gallery.selected == 47)
        #expect(h.status.hasPrefix("?lady▏") && h.status.contains("10 matching"))
        h.type(.enter)
        #expect(h.app.searchForward == false)
        h.type("n")
        #expect(h.gallery.selected == 37)
        h.type("N")
        #expect(h.gallery.selected == 47)
        h.type("3n")
        #expect(h.gallery.selected == 17)
        h.type("n")
        #expect(h.gallery.selected == 7)
        // Wrapping past the top to the last match
        h.type("n")
        #expect(h.gallery.selected == 97)
        #expect(h.status.contains("wrapped to the bottom"))
        // An empty / repeats the search forward, and n goes down again
        h.type("/")
        h.type(.enter)
        #expect(h.gallery.selected == 7)
        #expect(h.app.searchForward)
        h.type("n")
        #expect(h.gallery.selected == 17)
        // Esc on a ? prompt puts the direction back
        h.type("?")
        h.type(.escape)
        #expect(h.app.searchForward)
        h.type("n")
        #expect(h.gallery.selected == 27)
        // With the selection on a match, ? with the same text stays on it (at or above)
        h.type("?")
        h.type("lady")
        #expect(h.gallery.selected == 27)
        h.type(.enter)
        h.type("N")
        #expect(h.gallery.selected == 37)
    }

    @Test("a filter that matches nothing says so; an empty filter clears it")
    func emptyFilter() {
        let h = Harness(count: 50)
        h.type("&")
        h.type("zebra")
        h.type(.enter)
        #expect(h.canvas.text.contains("(no items match the filter)"))
        #expect(h.status.contains("0/0"))
        h.type("&")
        h.type(.control("U"), .enter)
        #expect(h.model.list.filter == nil && h.model.list.count == 50)
    }

    @Test(", cycles the sort, S reverses it, the status says which, and the selection follows its item")
    func sort() {
        let names = ["img10", "img2", "img1", "img20", "img3"]
        let h = Harness(count: 5, titles: { names[$0] })
        h.type("j")   // img2
        h.type(",")
        #expect(h.model.list.sortKey == .title)
        #expect(h.status.contains("sort: title ↑"))
        #expect(h.model.list.order.map { names[$0.index] } == ["img1", "img2", "img3", "img10", "img20"])
        #expect(h.selectedTitle == "img2")
        h.type("S")
        #expect(h.status.contains("sort: title ↓"))
        #expect(h.selectedTitle == "img2")
        #expect(h.gallery.selected == 3)
        h.type(",,,")
        #expect(h.model.list.sortKey == .gallery)
    }

    @Test("paging adds items under a filter and a sort; the loading-more slot is last and r on a failed page retries")
    func pagingUnderFilter() {
        var asked = 0
        let h = Harness(count: 6, paging: .ready(page: 2), titles: { "cat \(6 - $0)" })
        // (weak: the model keeps this closure)
        h.model.loadMore = { [weak model = h.model] in
            asked += 1
            model?.paging = .loading(page: 2)
        }
        h.app.updateInterest()
        #expect(asked == 1)
        h.type("&")
        h.type("cat")
        h.type(.enter)
        h.type(",")
        #expect(h.model.list.count == 6)
        #expect(h.gallery.slotCount == 7)
        h.type("3G")
        #expect(h.selectedTitle == "cat 3")
        // When the page arrives with more cats and a dog
        let more = (7..<12).map { GalleryItem(title: $0 == 9 ? "dog" : "cat \($0)", thumbnailURL: URL(string: "http://127.0.0.1:9/pic-\($0).png")) }
        h.app.appendPage(more, paging: .failed(page: 3, reason: "HTTP 500"))
        h.frame()
        // Then the filter and the sort apply to them, and the selection stays on its item
        #expect(h.model.list.order.map { h.model.list.title(of: $0) } == (1...11).filter { $0 != 9 }.map { "cat \($0)" })
        #expect(h.selectedTitle == "cat 3")
        // The slot after the last item says the page failed; r on it asks again
        h.type("G")
        #expect(h.gallery.slot(at: h.gallery.selected) == .more)
        #expect(h.canvas.text.contains("Could not load page 3"))
        h.type("r")
        #expect(asked == 2)
    }
}

@Suite("App: mouse, help, full view and resize")
@MainActor
struct InteractionTests {
    @Test("a click selects, a double click opens the full view, the wheel scrolls with the selection on screen")
    func mouse() {
        let h = Harness(count: 200, mode: .grid)
        let t0 = ContinuousClock.now
        // Slot (row 1, column 2) of 10x5 slots
        h.app.handle(.mouse(MouseEvent(.press, y: 6, x: 25)), now: t0)
        h.frame()
        #expect(h.gallery.selected == 10)
        h.app.handle(.mouse(MouseEvent(.press, y: 7, x: 22)), now: t0 + .milliseconds(150))
        h.frame()
        #expect(h.app.top is ImageView)
        h.type(.character("q"))
        #expect(h.app.top === h.gallery)
        #expect(h.gallery.selected == 10)
        // Slow clicks are two clicks
        h.app.handle(.mouse(MouseEvent(.press, y: 0, x: 0)), now: t0 + .seconds(2))
        h.app.handle(.mouse(MouseEvent(.press, y: 0, x: 1)), now: t0 + .seconds(3))
        #expect(h.app.top === h.gallery)
        #expect(h.gallery.selected == 0)
        for _ in 0..<3 { h.app.handle(.mouse(MouseEvent(.wheelDown, y: 0, x: 0))) }
        h.frame()
        #expect(h.gallery.topRow == 3)
        #expect(h.gallery.visiblePositions.contains(h.gallery.selected))
        h.app.handle(.mouse(MouseEvent(.wheelUp, y: 0, x: 0)))
        #expect(h.gallery.topRow == 2)
    }

    @Test("the help lists exactly the current view's bindings and scrolls on a small screen")
    func help() {
        let h = Harness(count: 10, lines: 12, columns: 80, mode: .grid)
        h.type("H")
        #expect(h.canvas.text.contains("Vitrine keys"))
        #expect(h.canvas.text.contains("move left / right"))
        // The first lines fit; the last binding needs scrolling
        let last = Bindings.bindings(in: .grid).last!.help
        #expect(!h.canvas.text.contains(last))
        for _ in 0..<30 { h.type(.character("j")) }
        #expect(h.canvas.text.contains(last))
        h.type("x")
        #expect(!h.canvas.text.contains("Vitrine keys"))
        // In the list, the grid's left / right moves are not listed
        h.type("v")
        h.type(.function(1))
        #expect(!h.canvas.text.contains("move left / right"))
        let help = h.app.top as! HelpView
        #expect(help.bindings.map(\.help) == Bindings.bindings(in: .list).map(\.help))
    }

    @Test("Enter opens the full view; n and p follow the filtered, sorted list; back selects the viewed item")
    func fullView() {
        let h = Harness(count: 30, titles: { $0 % 2 == 0 ? "even \($0)" : "odd \($0)" })
        h.type("&")
        h.type("odd")
        h.type(.enter)
        h.type(.enter)
        let view = h.app.top as! ImageView
        #expect(view.item == ItemID(1))
        #expect(h.loader.requested.last?.priority == -1)
        h.type("n")
        #expect(view.item == ItemID(3))
        h.type("2n")
        #expect(view.item == ItemID(7))
        h.type(.escape)
        #expect(h.app.top === h.gallery)
        #expect(h.selectedTitle == "odd 7")
    }

    @Test("a resize keeps the selected item selected and in view, in both views")
    func resize() {
        let h = Harness(count: 500, mode: .grid)
        h.type("300G")
        for (lines, columns) in [(60, 200), (10, 30), (24, 80)] {
            h.canvas.resize(lines: lines, columns: columns)
            h.app.layout(lines: lines, columns: columns)
            h.frame()
            #expect(h.gallery.selected == 299)
            #expect(h.gallery.visiblePositions.contains(299))
            #expect(h.status.contains("300/500") || columns < 40)
        }
    }

    @Test("finished loads redraw their item alone; stale tickets are dropped")
    func deliveries() {
        let h = Harness(count: 100, mode: .grid)
        let ticket = h.loader.tickets["pic-3.png"]!
        h.canvas.resetWrites()
        h.app.apply(ticket, .success(ThumbnailLoaderTests.image))
        h.frame()
        #expect(h.canvas.touchedLines.isSubset(of: Set(0..<5).union([23])))
        h.canvas.resetWrites()
        h.app.apply(ticket, .success(ThumbnailLoaderTests.image))
        h.frame()
        #expect(h.canvas.writes == 0)
    }
}

extension String {
    /// Column (scalar offset) of `needle`, for one-column text.
    func distance(of needle: String) -> Int {
        let range = self.range(of: needle)!
        return unicodeScalars.distance(from: unicodeScalars.startIndex, to: range.lowerBound)
    }
}
