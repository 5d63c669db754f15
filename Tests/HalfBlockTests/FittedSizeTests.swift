import Testing
@testable import HalfBlock

@Suite("HalfBlockRenderer.fittedSize")
struct FittedSizeTests {
    @Test("Fits pictures into the box with their aspect kept", arguments: [
        // (image w, h, max cols, rows, cell aspect) -> (cols, rows)
        (100, 100, 80, 40, 2.0, 80, 40),    // square: 80 cells wide are 40 cells of 1:2 high
        (200, 100, 80, 40, 2.0, 80, 20),    // wide: limited by the columns
        (100, 400, 80, 40, 2.0, 20, 40),    // tall: limited by the rows
        (100, 100, 80, 40, 1.0, 40, 40),    // square cells
        (16, 11, 80, 40, 2.0, 80, 28),      // 27.5 rows rounds to 28
        (4000, 3000, 80, 40, 2.0, 80, 30),  // 4:3 photo: 30 rows of 1:2 cells
        (3000, 4000, 80, 40, 2.0, 60, 40),  // 3:4 portrait: 60 columns
        (4000, 1, 80, 40, 2.0, 80, 1),      // a line is still one row
        (1, 4000, 80, 40, 2.0, 1, 40),      // a column is still one column
        (1, 1, 80, 40, 2.0, 80, 40),        // small pictures scale up to fill
    ])
    func fits(_ w: Int, _ h: Int, _ maxC: Int, _ maxR: Int, _ aspect: Double, _ cols: Int, _ rows: Int) {
        // Given a picture and a box; When it is fitted
        let size = HalfBlockRenderer.fittedSize(imageWidth: w, imageHeight: h, maxColumns: maxC, maxRows: maxR, cellAspect: aspect)
        // Then the box is the expected one, inside the limits
        #expect(size.columns == cols && size.rows == rows)
        #expect(size.columns <= maxC && size.rows <= maxR)
    }

    @Test("Degenerate sizes still give at least one cell")
    func degenerate() {
        // Given zero or negative limits and sizes; When fitted
        let zeroBox = HalfBlockRenderer.fittedSize(imageWidth: 100, imageHeight: 100, maxColumns: 0, maxRows: 0)
        let zeroImage = HalfBlockRenderer.fittedSize(imageWidth: 0, imageHeight: -3, maxColumns: 10, maxRows: 10)
        let badAspect = HalfBlockRenderer.fittedSize(imageWidth: 100, imageHeight: 100, maxColumns: 80, maxRows: 40, cellAspect: .nan)
        // Then each is at least 1x1, and a bad aspect falls back to 2.0
        #expect(zeroBox.columns == 1 && zeroBox.rows == 1)
        #expect(zeroImage.columns == 10 && zeroImage.rows == 5)
        #expect(badAspect.columns == 80 && badAspect.rows == 40)
    }
}
