import Foundation
import Gallery
import Testing

@testable import Browse

@Suite("ItemList: filter, sort and paging")
@MainActor
struct ItemListTests {
    func items(_ titles: [String]) -> [GalleryItem] {
        titles.map { GalleryItem(title: $0, thumbnailURL: URL(string: "http://127.0.0.1:9/\($0.lowercased()).png")) }
    }

    func titles(_ list: ItemList) -> [String] { list.order.map { list.title(of: $0) } }

    @Test("natural order: img2 before img10, case folded, numbers before letters")
    func naturalOrder() {
        let sorted = ["img10", "Img2", "img1", "img", "imgA", "img02x", "img002"].sorted {
            NaturalOrder.precedes(NaturalOrder.key($0), NaturalOrder.key($1))
        }
        // (Img2 and img002 are equal in natural order: the sort keeps them as they came)
        #expect(sorted == ["img", "img1", "Img2", "img002", "img02x", "img10", "imgA"])
    }

    @Test("a filter shows matching items with smart case, and positions follow items")
    func filterSmartCase() {
        let list = ItemList()
        list.append(items(["Sunset", "sunrise", "Moon", "SUNDAY"]))
        list.setFilter("sun")
        #expect(titles(list) == ["Sunset", "sunrise", "SUNDAY"])
        #expect(list.position(of: ItemID(2)) == nil)
        #expect(list.position(of: ItemID(3)) == 2)
        // An upper-case letter makes it match case exactly (vim's smartcase)
        list.setFilter("Sun")
        #expect(titles(list) == ["Sunset"])
        // File names match too
        list.setFilter("moon.png")
        #expect(titles(list) == ["Moon"])
        list.setFilter("")
        #expect(list.count == 4 && list.filter == nil)
    }

    @Test("the nearest shown item to a hidden one is found in the unfiltered order: gallery, reversed, sorted; ties go to the next")
    func nearestShown() {
        let list = ItemList()
        list.append(items((0..<10).map { $0 % 3 == 0 ? "Elephant \($0)" : "Flag \($0)" }))
        list.setFilter("eleph")
        #expect(list.order.map(\.index) == [0, 3, 6, 9])
        // 4 is one from 3 and two from 6; 5 the other way round; a shown item is itself
        #expect(list.nearestShown(to: ItemID(4)) == ItemID(3))
        #expect(list.nearestShown(to: ItemID(5)) == ItemID(6))
        #expect(list.nearestShown(to: ItemID(6)) == ItemID(6))
        // Reversed (9 8 7 ... 0): 4 is still one from 3, and 5 one from 6
        list.sort(by: .gallery, reversed: true)
        #expect(list.nearestShown(to: ItemID(4)) == ItemID(3))
        #expect(list.nearestShown(to: ItemID(5)) == ItemID(6))
        // A tie (2 is two from 0 and from 4) goes to the next item in the order shown
        let tie = ItemList()
        tie.append(items(["x-0", "a", "b", "c", "x-4"]))
        tie.setFilter("x-")
        #expect(tie.nearestShown(to: ItemID(2)) == ItemID(4))
        tie.sort(by: .gallery, reversed: true)
        #expect(tie.nearestShown(to: ItemID(2)) == ItemID(0))
        // In a title sort the neighbours are the sort's, not the gallery's: sorted, the items
        // read a, b, x-c, x-d, x-e, so b (gallery neighbours x-c and x-e) is next to x-c
        let sorted = ItemList()
        sorted.append(items(["x-d", "a", "x-c", "b", "x-e"]))
        sorted.sort(by: .title, reversed: false)
        sorted.setFilter("x-")
        #expect(titles(sorted) == ["x-c", "x-d", "x-e"])
        #expect(sorted.nearestShown(to: ItemID(3)).map { sorted.title(of: $0) } == "x-c")
        #expect(sorted.nearestShown(to: ItemID(1)).map { sorted.title(of: $0) } == "x-c")
        // Paging adds items: the unfiltered order includes them
        sorted.append(items(["b2"]))
        #expect(sorted.nearestShown(to: ItemID(5)).map { sorted.title(of: $0) } == "x-c")
        // Nothing shown: nil
        sorted.setFilter("zebra")
        #expect(sorted.nearestShown(to: ItemID(1)) == nil)
    }

    @Test("non-ASCII titles fold case for the search")
    func unicodeFolding() {
        let list = ItemList()
        list.append(items(["Écluse", "ÉTÉ", "été"]))
        list.setFilter("été")
        #expect(titles(list) == ["ÉTÉ", "été"])
    }

    @Test("sorts by title and file name in natural order, reversed, and by known size with unknown last")
    func sorts() {
        var areas: [Int: Int] = [0: 100, 2: 50]
        let list = ItemList(area: { areas[$0.index] })
        list.append(items(["img10", "img2", "img1", "img20"]))
        list.sort(by: .title, reversed: false)
        #expect(titles(list) == ["img1", "img2", "img10", "img20"])
        list.sort(by: .title, reversed: true)
        #expect(titles(list) == ["img20", "img10", "img2", "img1"])
        list.sort(by: .fileName, reversed: false)
        #expect(titles(list) == ["img1", "img2", "img10", "img20"])
        list.sort(by: .size, reversed: false)
        #expect(titles(list) == ["img1", "img10", "img2", "img20"])
        list.sort(by: .size, reversed: true)
        #expect(titles(list) == ["img10", "img1", "img2", "img20"])
        areas[3] = 1
        list.sort(by: .gallery, reversed: false)
        #expect(titles(list) == ["img10", "img2", "img1", "img20"])
        #expect(list.position(of: ItemID(3)) == 3)
    }

    @Test("paging appends under a filter and a sort: new items land in place")
    func pagingWithFilterAndSort() {
        let list = ItemList()
        list.append(items(["cat 3", "dog 1", "cat 1"]))
        list.setFilter("cat")
        list.sort(by: .title, reversed: false)
        #expect(titles(list) == ["cat 1", "cat 3"])
        // When a further page arrives
        list.append(items(["cat 2", "dog 2", "cat 10"]))
        // Then only its matches appear, in sort order, and every position is right
        #expect(titles(list) == ["cat 1", "cat 2", "cat 3", "cat 10"])
        for (p, id) in list.order.enumerated() { #expect(list.position(of: id) == p) }
        #expect(list.position(of: ItemID(4)) == nil)
        #expect(list.total == 6)
        // And in gallery order with no filter, pages just append
        list.setFilter(nil)
        list.sort(by: .gallery, reversed: false)
        list.append(items(["last"]))
        #expect(titles(list).last == "last" && list.count == 7)
    }

    @Test("the index's quick file name equals GalleryItem.fileName")
    func quickFileName() {
        let urls = ["http://127.0.0.1:9/a/b.jpg", "http://127.0.0.1:9/a/b.jpg?x=1#f", "http://h/a/", "http://h/",
                    "http://h", "https://h/%41b.png", "http://h/a/../c.png", "data:image/png;base64,AAAA", "http://h/a b.png",
                    "http://h/é.png", "http://h/x/.", "http://h/q?a/b", "file:///tmp/x.png"]
        for url in urls {
            let item = GalleryItem(title: "t", thumbnail: url, image: nil)
            #expect(ItemList.quickFileName(item) == item.fileName, "\(url)")
        }
    }

    @Test("search matches the same items as a brute-force scan over 2,000 random titles")
    func searchAgainstBruteForce() {
        var generator = SystemRandomNumberGenerator()
        // (K is the Kelvin sign: it folds to an ASCII k)
        let alphabet = Array("abcAB é1\u{212A}k-.")
        let names = (0..<2000).map { _ in String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }) }
        let list = ItemList()
        list.append(names.map { GalleryItem(title: $0, thumbnail: nil, image: nil) })
        for query in ["a", "ab", "B", "aB", "é", "1a", " ", "abc", "zz", "k", "\u{212A}", "-", ".", "1", "c", "k-", "A", "b"] {
            let bits = list.matches(query)
            for (i, _) in names.enumerated() {
                let title = list.title(of: ItemID(i)), file = list.fileName(of: ItemID(i))
                let sensitive = query.contains { $0.isUppercase }
                let expected = sensitive
                    ? title.contains(query) || file.contains(query)
                    : title.lowercased().contains(query) || file.lowercased().contains(query)
                #expect(bits[ItemID(i)] == expected, "query \(query) item \(i) \(title)")
                if bits[ItemID(i)] != expected { return }
            }
        }
    }
}
