import Foundation
import Gallery
import Testing

@testable import Browse

@Suite("App: a remembered place on a test canvas")
@MainActor
struct PlaceTests {
    @Test("the place names the item, view, sizes, sort, filter and marks; a new app returns to it")
    func roundTrip() throws {
        let names = ["cat 3", "dog 1", "cat 1", "dog 2", "cat 2", "cat 10"]
        let h = Harness(count: 6, columns: 120, titles: { names[$0] })
        h.type("m")  // cat 3
        h.type("jjjjm")  // cat 2
        h.type("&")
        h.type("cat")
        h.type(.enter)
        h.type(",")  // title sort
        h.type("v")
        h.type("+")
        h.type("G")  // cat 10, last in natural order
        let place = h.app.place
        #expect(place.view == "grid" && place.sort == "title" && !place.reversed && place.filter == "cat")
        #expect(place.gridRows == 6 && place.listRows == 4)
        #expect(place.item == "http://127.0.0.1:9/pic-5.png")
        #expect(place.marks == ["http://127.0.0.1:9/pic-0.png", "http://127.0.0.1:9/pic-4.png"])
        // It survives JSON
        let decoded = try JSONDecoder().decode(Place.self, from: JSONEncoder().encode(place))
        #expect(decoded == place)

        // A fresh app over the same gallery returns there
        let again = Harness(count: 6, columns: 120, titles: { names[$0] })
        #expect(again.app.restore(decoded) == 0)
        again.frame()
        #expect(again.gallery.layout.mode == .grid && again.gallery.layout.rows == 6)
        #expect(again.model.list.sortKey == .title && again.model.list.filter == "cat")
        #expect(again.model.marks == [ItemID(0), ItemID(4)])
        #expect(again.selectedTitle == "cat 10")
        #expect(again.status.contains("2 marked"))
        again.type("v")
        #expect(again.gallery.layout.rows == 4)
    }

    @Test("items that are gone are skipped and counted; unknown values are ignored")
    func missing() {
        let h = Harness(count: 5)
        let place = Place(
            item: "http://127.0.0.1:9/gone.png", view: "carousel", listRows: 6, gridRows: 4, sort: "colour",
            reversed: false, filter: nil, marks: ["http://127.0.0.1:9/pic-1.png", "http://127.0.0.1:9/gone2.png"])
        #expect(h.app.restore(place) == 2)
        h.frame()
        #expect(h.gallery.layout.mode == .list && h.gallery.layout.rows == 6)
        #expect(h.model.list.sortKey == .gallery)
        #expect(h.model.marks == [ItemID(1)])
        #expect(h.gallery.selected == 0)
    }
}
