import HalfBlock
import Testing

@testable import Browse

@Suite("GalleryLayout: where slots go")
struct GalleryLayoutTests {
    func hit(_ layout: GalleryLayout, _ y: Int, _ x: Int) -> [Int]? {
        layout.slot(atY: y, x: x).map { [$0.row, $0.column] }
    }

    @Test("at 80x24 the smallest grid size shows at least 32 thumbnails")
    func smallScreenSmallest() {
        let layout = GalleryLayout(mode: .grid, rows: GalleryLayout.sizes[0], lines: 24, columns: 80)
        #expect(layout.box.columns == 8 && layout.box.rows == 4)
        #expect(layout.slotsPerPage >= 32)
        #expect(layout.perRow * layout.slotWidth <= 80)
    }

    @Test("at 200x60 the smallest size shows at least 150 thumbnails and every size fills the width")
    func bigScreen() {
        let smallest = GalleryLayout(mode: .grid, rows: 4, lines: 60, columns: 200)
        #expect(smallest.slotsPerPage >= 150)
        for rows in GalleryLayout.sizes {
            let layout = GalleryLayout(mode: .grid, rows: rows, lines: 60, columns: 200)
            // Then whole slots cover the width but for less than one slot's spare columns,
            // split evenly on both sides
            let used = layout.perRow * layout.slotWidth
            #expect(used <= 200 && 200 - used < layout.perRow, "size \(rows): \(used) of 200 columns")
            #expect(layout.leftMargin == (200 - used) / 2)
            #expect(layout.slotWidth >= layout.box.columns + 2)
        }
    }

    @Test("grid boxes are square in half-block pixels, in at least five steps from 8x4 to 40x20 cells")
    func sizeSteps() {
        #expect(GalleryLayout.sizes.count >= 5)
        #expect(GalleryLayout.sizes.first == 4 && GalleryLayout.sizes.last == 20)
        for rows in GalleryLayout.sizes {
            let layout = GalleryLayout(mode: .grid, rows: rows, lines: 60, columns: 200)
            #expect(layout.box.columns == 2 * layout.box.rows)
            #expect(layout.pixelBox.width == layout.pixelBox.height)
        }
        #expect(GalleryLayout.step(4, bigger: true) == 6)
        #expect(GalleryLayout.step(20, bigger: true) == 20)
        #expect(GalleryLayout.step(4, bigger: false) == 4)
        // A size between steps (--row-height 6 is 5 rows) goes to the neighbouring step
        #expect(GalleryLayout.step(5, bigger: true) == 6)
        #expect(GalleryLayout.step(5, bigger: false) == 4)
    }

    @Test("tall and narrow screens: at least one slot, nothing drawn off screen")
    func oddShapes() {
        for (lines, columns) in [(24, 8), (3, 200), (200, 20), (1, 1)] {
            for mode in GalleryLayout.Mode.allCases {
                let layout = GalleryLayout(mode: mode, rows: 8, lines: lines, columns: columns)
                #expect(layout.perRow >= 1 && layout.rowsPerPage >= 1)
                #expect(layout.leftMargin >= 0)
            }
        }
        let narrow = GalleryLayout(mode: .grid, rows: 8, lines: 60, columns: 30)
        #expect(narrow.perRow == 1)
    }

    @Test("a cell maps to its slot; margins, gaps below the rows and the status line map to none")
    func hitTesting() {
        let layout = GalleryLayout(mode: .grid, rows: 4, lines: 24, columns: 85)
        // 85 columns: 8 slots of 10, 2 columns of margin at the left
        #expect(layout.leftMargin == 2)
        #expect(layout.slot(atY: 0, x: 0) == nil)
        #expect(hit(layout, 0, 2) == [0, 0])
        #expect(hit(layout, 7, 25) == [1, 2])
        #expect(layout.slot(atY: 23, x: 10) == nil)   // the status line
        #expect(layout.slot(atY: 20, x: 10) == nil)   // below the 4 whole rows (20 lines)
        #expect(layout.slot(atY: 0, x: 83) == nil)    // the right margin
    }
}

@Suite("Sizes: one decode-box rule for the list, the grid and the full view")
@MainActor
struct SizesTests {
    @Test("half blocks decode at twice the half-block grid each way; a pixel protocol at the cells' pixels")
    func rule() {
        #expect(Sizes.decodeBox(for: CellSize(columns: 8, rows: 4)) == PixelSize(width: 16, height: 16))
        #expect(Sizes.decodeBox(for: CellSize(columns: 80, rows: 23)) == PixelSize(width: 160, height: 92))
        #expect(
            Sizes.decodeBox(for: CellSize(columns: 80, rows: 23), cellPixels: PixelSize(width: 10, height: 20))
                == PixelSize(width: 800, height: 460))
        // Degenerate boxes still decode something
        #expect(Sizes.decodeBox(for: CellSize(columns: 0, rows: -3)) == PixelSize(width: 2, height: 4))
    }

    @Test("the list's and the grid's thumbnails and the full view all ask the pipeline for the rule's box")
    func everyViewUsesIt() {
        let h = Harness(count: 20, lines: 24, columns: 80, mode: .list)
        let list = h.gallery.layout
        #expect(list.pixelBox == Sizes.decodeBox(for: CellSize(columns: list.box.columns, rows: list.box.rows)))
        #expect(h.loader.requested.last.map { PixelSize(width: $0.width, height: $0.height) } == list.pixelBox)
        h.type("v")
        let grid = h.gallery.layout
        #expect(grid.pixelBox == Sizes.decodeBox(for: CellSize(columns: grid.box.columns, rows: grid.box.rows)))
        #expect(h.loader.requested.last.map { PixelSize(width: $0.width, height: $0.height) } == grid.pixelBox)
        h.type(.enter)
        // The full view: the whole screen less the status line
        #expect(h.app.top is ImageView)
        #expect(
            h.loader.requested.last.map { PixelSize(width: $0.width, height: $0.height) }
                == Sizes.decodeBox(for: CellSize(columns: 80, rows: 23)))
    }
}
