import Foundation
import Gallery
import TerminalUI
import Testing

@testable import Browse

@Suite("App: marks on a test canvas")
@MainActor
struct MarksTests {
    /// Columns of the list row's mark glyph (between the 16-column thumbnail and the title).
    static let listMarkX = 17

    @Test("m toggles the mark of the selected item; the list draws ● beside it and the status line counts it")
    func toggleInList() {
        let h = Harness(count: 20)
        h.type("m")
        #expect(h.model.marks == [ItemID(0)])
        #expect(h.canvas.cells[0][Self.listMarkX].glyph == "●")
        #expect(h.status.contains("1 marked"))
        // Another item, two rows down (rows are 5 lines)
        h.type("jjm")
        #expect(h.model.marks == [ItemID(0), ItemID(2)])
        #expect(h.canvas.cells[10][Self.listMarkX].glyph == "●")
        #expect(h.canvas.cells[5][Self.listMarkX].glyph == " ")
        #expect(h.status.contains("2 marked"))
        // m again unmarks, and the glyph goes
        h.type("m")
        #expect(h.model.marks == [ItemID(0)])
        #expect(h.canvas.cells[10][Self.listMarkX].glyph == " ")
        h.type("u")
        #expect(h.model.marks.isEmpty)
        #expect(h.canvas.cells[0][Self.listMarkX].glyph == " ")
        #expect(!h.status.contains("marked"))
    }

    @Test("the grid draws ● at the top right of a marked item's box")
    func grid() {
        let h = Harness(count: 40, mode: .grid)
        h.type("lm")
        // 80 columns, 8 per row: 10-column slots, 8-column boxes from x+1; the second slot's
        // box ends at column 18, its mark is at 19
        #expect(h.canvas.cells[0][19].glyph == "●")
        #expect(h.canvas.cells[0][9].glyph != "●")
        #expect(h.status.contains("1 marked"))
        // v keeps the marks: the list shows the same item marked
        h.type("v")
        #expect(h.canvas.cells[5][Self.listMarkX].glyph == "●")
    }

    @Test("A marks every shown item, M inverts the shown items' marks, u clears all")
    func allInvertClear() {
        let h = Harness(count: 10)
        h.type("A")
        #expect(h.model.marks.count == 10)
        #expect(h.status.contains("10 marked"))
        h.type("mM")
        #expect(h.model.marks == [ItemID(0)])
        h.type("M")
        #expect(h.model.marks.count == 9 && !h.model.marks.contains(ItemID(0)))
        h.type("u")
        #expect(h.model.marks.isEmpty)
    }

    @Test("marks follow items through a filter and a sort; A and M act on the shown items only")
    func followItems() {
        let names = ["cat 3", "dog 1", "cat 1", "dog 2", "cat 2"]
        let h = Harness(count: 5, columns: 120, titles: { names[$0] })
        h.type("jm")  // dog 1 (#1)
        // Filter to cats: dog 1 is hidden, its mark stays and is counted as hidden
        h.type("&")
        h.type("cat")
        h.type(.enter)
        #expect(h.model.list.count == 3)
        #expect(h.status.contains("1 marked (1 hidden)"))
        h.type("A")
        #expect(h.model.marks == [ItemID(0), ItemID(1), ItemID(2), ItemID(4)])
        h.type("M")
        #expect(h.model.marks == [ItemID(1)])
        // Sort by title: marks stay on their items, drawn where the items went
        h.type("A")
        h.type(.escape)
        h.type(",")
        #expect(h.model.list.order.map { names[$0.index] } == ["cat 1", "cat 2", "cat 3", "dog 1", "dog 2"])
        for (position, name) in h.model.list.order.map({ names[$0.index] }).enumerated() {
            let drawn = h.canvas.cells[position * 5][Self.listMarkX].glyph == "●"
            #expect(drawn == (name != "dog 2"), "\(name)")
        }
        #expect(h.status.contains("4 marked"))
        #expect(!h.status.contains("hidden"))
    }

    @Test("the actions get the marked items in gallery order, else the selected one; m works in the full view")
    func targets() {
        let h = Harness(count: 10)
        var calls: [(Action, [ItemID])] = []
        h.app.itemAction = { calls.append(($0, $1)) }
        h.type("3G")
        h.type("y")
        #expect(calls.count == 1 && calls[0].0 == .copy && calls[0].1 == [ItemID(2)])
        h.type("m")
        h.type("g")
        h.type("m")
        h.type("o")
        #expect(calls.last?.0 == .openExternally && calls.last?.1 == [ItemID(0), ItemID(2)])
        h.type("s")
        #expect(calls.last?.0 == .save && calls.last?.1 == [ItemID(0), ItemID(2)])
        // In the full view m marks the viewed item and the status line counts the marks
        h.type("u")
        h.type("5G")
        h.type(.enter)
        h.type("m")
        #expect(h.model.marks == [ItemID(4)])
        #expect(h.status.contains("1 marked"))
        h.type("n")
        h.type("y")
        #expect(calls.last?.1 == [ItemID(4)])
        h.type("u")
        #expect(h.model.marks == [ItemID(4)], "u is a gallery key")
    }

    @Test("without a handler the action keys say so; a note shown alone takes the whole status line")
    func notes() {
        let h = Harness(count: 3)
        h.type("y")
        #expect(h.status.contains("not available here"))
        h.app.show("copied http://127.0.0.1:9/pic-0.png", alone: true)
        h.frame()
        #expect(h.status.hasPrefix(" copied http://127.0.0.1:9/pic-0.png"))
        #expect(!h.status.contains("loaded"))
        h.type("j")
        #expect(h.status.contains("loaded"))
    }

    @Test("a lasting activity stays in the status line across keys; Esc cancels it before clearing a filter")
    func activity() {
        let h = Harness(count: 3)
        var cancelled = 0
        h.app.activity = "saving 1 of 3"
        h.app.cancelActivity = { cancelled += 1 }
        h.frame()
        #expect(h.status.contains("saving 1 of 3"))
        h.type("&")
        h.type("Pic")
        h.type(.enter)
        h.type("j")
        #expect(h.status.contains("saving 1 of 3"))
        h.type(.escape)
        #expect(cancelled == 1)
        #expect(h.model.list.filter == "Pic", "the first Esc cancels the work, not the filter")
        h.type(.escape)
        #expect(cancelled == 1)
        #expect(h.model.list.filter == nil)
    }
}
