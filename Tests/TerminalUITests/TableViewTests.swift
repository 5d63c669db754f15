import Testing

@testable import TerminalUI

@Suite("TableView")
@MainActor
struct TableViewTests {
    @Test("lays out whole rows above the status line")
    func layout() {
        // Given 100 rows of 5 lines on a 30-line screen
        let table = TableView(count: 100, rowHeight: 5)
        table.layout(lines: 30, columns: 100)
        // Then 29 lines hold 5 whole rows
        #expect(table.rowsPerPage == 5)
        #expect(table.visibleRows == 0..<5)
        #expect(table.line(of: 0) == 0)
        #expect(table.line(of: 4) == 20)
        #expect(table.line(of: 5) == nil)
        #expect(table.thumbnailBox.columns == 16 && table.thumbnailBox.rows == 4)
    }

    @Test("moves keep the selection on screen; pages scroll a page")
    func movement() {
        let table = TableView(count: 100, rowHeight: 5)
        table.layout(lines: 30, columns: 100)
        table.apply(.down)
        #expect(table.selected == 1 && table.top == 0)
        for _ in 0..<5 { table.apply(.down) }
        #expect(table.selected == 6 && table.visibleRows.contains(6))
        table.apply(.pageDown)
        #expect(table.selected == 11 && table.visibleRows.contains(11))
        table.apply(.last)
        #expect(table.selected == 99 && table.visibleRows == 95..<100)
        table.apply(.down)
        #expect(table.selected == 99)
        table.apply(.first)
        #expect(table.selected == 0 && table.top == 0)
        table.apply(.up)
        #expect(table.selected == 0)
    }

    @Test("a resize keeps the selected row selected and visible")
    func resizeKeepsSelection() {
        let table = TableView(count: 100, rowHeight: 5)
        table.layout(lines: 60, columns: 100)
        table.select(40)
        table.layout(lines: 12, columns: 40)
        #expect(table.selected == 40)
        #expect(table.visibleRows.contains(40))
        #expect(table.thumbnailBox.columns == 13)  // capped at a third of 40 columns
    }

    @Test("an empty table has no visible rows and ignores moves")
    func empty() {
        let table = TableView(count: 0, rowHeight: 5)
        table.layout(lines: 24, columns: 80)
        table.apply(.down)
        table.apply(.last)
        #expect(table.visibleRows.isEmpty)
    }
}

@Suite("KeyMap")
struct KeyMapTests {
    @Test("vi, less and arrow keys map to the same actions")
    func bindings() {
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "j"))) == .down)
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "k"))) == .up)
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "G"))) == .last)
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "g"))) == .first)
        #expect(KeyMap.tableAction(10) == .open)
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "q"))) == .quit)
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "r"))) == .retry)
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "?"))) == .help)
        #expect(KeyMap.imageAction(27) == .back)
        #expect(KeyMap.imageAction(Int32(UInt8(ascii: "q"))) == .back)
        #expect(KeyMap.imageAction(Int32(UInt8(ascii: "n"))) == .next)
        #expect(KeyMap.imageAction(Int32(UInt8(ascii: "]"))) == .next)
        #expect(KeyMap.imageAction(Int32(UInt8(ascii: "["))) == .previous)
        #expect(KeyMap.tableAction(Int32(UInt8(ascii: "x"))) == nil)
    }
}
