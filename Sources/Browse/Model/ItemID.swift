/// An item's identity for the whole session: its position in gallery order (the catalog).
///
/// Items are only ever appended (a further page arrives under the others), so an `ItemID`
/// never changes meaning: filters, sorts, the selection, the load policy and the art cache all
/// follow items through it, never through a position on screen.
public struct ItemID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Index in the catalog (gallery order, from 0).
    public let index: Int

    public init(_ index: Int) { self.index = index }

    public static func < (a: ItemID, b: ItemID) -> Bool { a.index < b.index }

    public var description: String { "#\(index)" }
}

/// A set of `ItemID`s as one bit per catalog item: a search's matches over 100,000 items is
/// 12.5 KB, and a lookup is one shift.
public struct ItemBits: Sendable, Equatable {
    private var words: [UInt64]
    /// Number of items covered (the catalog's count when made).
    public private(set) var count: Int

    public init(count: Int) {
        self.count = count
        words = Array(repeating: 0, count: (count + 63) / 64)
    }

    /// A set from its words: bit `i & 63` of `words[i >> 6]` is item i (`(count + 63) / 64`
    /// words; bits past `count` clear).
    init(count: Int, words: [UInt64]) {
        precondition(words.count == (count + 63) / 64)
        self.count = count
        self.words = words
    }

    public subscript(id: ItemID) -> Bool {
        get {
            guard id.index >= 0, id.index < count else { return false }
            return words[id.index >> 6] & (1 << UInt64(id.index & 63)) != 0
        }
        set {
            guard id.index >= 0, id.index < count else { return }
            if newValue {
                words[id.index >> 6] |= 1 << UInt64(id.index & 63)
            } else {
                words[id.index >> 6] &= ~(1 << UInt64(id.index & 63))
            }
        }
    }

    /// Calls `body` with every item in the set, in catalog order.
    public func forEach(_ body: (ItemID) -> Void) {
        for (w, word) in words.enumerated() where word != 0 {
            var bitsLeft = word
            while bitsLeft != 0 {
                let bit = bitsLeft.trailingZeroBitCount
                body(ItemID(w << 6 | bit))
                bitsLeft &= bitsLeft - 1
            }
        }
    }

    /// Number of items in the set.
    public var population: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }
}
