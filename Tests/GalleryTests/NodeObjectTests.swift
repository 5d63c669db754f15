import Foundation
import Testing
@testable import Gallery

@Suite("NodeObject")
struct NodeObjectTests {
    @Test("a small object keeps document order and finds every key")
    func small() {
        // Given three members in document order
        let object = NodeObject(pairs: [(key: "b", value: .number(1)), (key: "a", value: .string("x")), (key: "c", value: .null)])
        // Then lookups and iteration follow the pairs
        #expect(object["a"] == .string("x"))
        #expect(object["c"] == .null)
        #expect(object["z"] == nil)
        #expect(object.keys == ["b", "a", "c"])
        #expect(object.count == 3)
        #expect(!object.isEmpty)
    }

    @Test("a repeated key keeps its last value, at its first position")
    func duplicates() {
        let object = NodeObject(pairs: [(key: "k", value: .number(1)), (key: "j", value: .number(2)), (key: "k", value: .number(3))])
        #expect(object.keys == ["k", "j"])
        #expect(object["k"] == .number(3))
    }

    @Test("an object over the threshold becomes a table with the same members, duplicates included", arguments: [
        NodeObject.tableThreshold, NodeObject.tableThreshold + 1, 200,
    ])
    func big(count: Int) {
        // Given `count` distinct keys and one repeated key at the end
        var pairs = (0..<count).map { (key: "k\($0)", value: Node.number(Double($0))) }
        pairs.append((key: "k0", value: .string("last")))
        let object = NodeObject(pairs: pairs)
        // Then every key is found once, the last value winning
        #expect(object.count == count)
        #expect(object["k0"] == .string("last"))
        #expect(object["k\(count - 1)"] == .number(Double(count - 1)))
        #expect(Set(object.keys) == Set((0..<count).map { "k\($0)" }))
        #expect(object.values.count == count)
    }

    @Test("equality ignores member order, not values or keys")
    func equality() {
        let one: NodeObject = ["a": .number(1), "b": .bool(true)]
        let two = NodeObject(["b": .bool(true), "a": .number(1)])
        #expect(one == two)
        #expect(one != ["a": .number(1), "b": .bool(false)])
        #expect(one != ["a": .number(1), "c": .bool(true)])
        #expect(one != ["a": .number(1)])
    }
}
