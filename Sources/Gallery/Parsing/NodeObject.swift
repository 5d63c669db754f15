/// The members of an object node (a JSON object, a property-list dictionary), stored compactly.
///
/// Gallery items are small objects (two to ten members), and a big gallery has hundreds of
/// thousands of them. A `[String: Node]` of two members takes four buckets plus its hash-table
/// header (about 232 bytes on the heap); these members are an array of pairs instead (about
/// 110 bytes for two), searched linearly. Objects with more than ``tableThreshold`` members
/// keep a dictionary, so a lookup never scans a long list.
///
/// Keys are unique (a later duplicate replaces the earlier value, as in `JSONSerialization`).
/// Iteration follows the document for small objects and the hash order for big ones: callers
/// that need a stable order sort the keys.
struct NodeObject: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    typealias Member = (key: String, value: Node)

    /// Above this many members, a dictionary (a linear search over up to 16 short keys costs
    /// about what hashing one key does).
    static let tableThreshold = 16

    private enum Storage: Sendable {
        case pairs([Member])
        case table([String: Node])
    }

    private let storage: Storage

    /// Members from pairs in document order; for a repeated key the last value wins, at the
    /// position of its first occurrence.
    init(pairs: [Member]) {
        if pairs.count > Self.tableThreshold {
            var table = [String: Node](minimumCapacity: pairs.count)
            for (key, value) in pairs { table[key] = value }
            storage = .table(table)
            return
        }
        var unique = pairs
        var i = 1
        while i < unique.count {
            if let earlier = unique[..<i].firstIndex(where: { $0.key == unique[i].key }) {
                unique[earlier].value = unique[i].value
                unique.remove(at: i)
            } else {
                i += 1
            }
        }
        storage = .pairs(unique)
    }

    /// Members from a dictionary (plists, Foundation's JSON), in the dictionary's order.
    init(_ dictionary: [String: Node]) {
        if dictionary.count > Self.tableThreshold {
            storage = .table(dictionary)
        } else {
            storage = .pairs(dictionary.map { (key: $0.key, value: $0.value) })
        }
    }

    init(dictionaryLiteral elements: (String, Node)...) {
        self.init(pairs: elements.map { (key: $0.0, value: $0.1) })
    }

    /// The value of `key`, or nil when absent.
    subscript(key: String) -> Node? {
        switch storage {
        case .pairs(let pairs):
            for member in pairs where member.key == key { return member.value }
            return nil
        case .table(let table):
            return table[key]
        }
    }

    var count: Int {
        switch storage {
        case .pairs(let pairs): pairs.count
        case .table(let table): table.count
        }
    }

    var isEmpty: Bool { count == 0 }

    /// The keys, in iteration order.
    var keys: [String] { map(\.key) }

    /// The values, in iteration order.
    var values: [Node] { map(\.value) }

    func makeIterator() -> Iterator {
        switch storage {
        case .pairs(let pairs): Iterator(state: .pairs(pairs.makeIterator()))
        case .table(let table): Iterator(state: .table(table.makeIterator()))
        }
    }

    /// Walks either storage without boxing (this runs once per item of a big gallery).
    struct Iterator: IteratorProtocol {
        fileprivate enum State {
            case pairs(IndexingIterator<[Member]>)
            case table(Dictionary<String, Node>.Iterator)
        }

        fileprivate var state: State

        mutating func next() -> Member? {
            switch state {
            case .pairs(var inner):
                let member = inner.next()
                state = .pairs(inner)
                return member
            case .table(var inner):
                let member = inner.next()
                state = .table(inner)
                return member.map { (key: $0.key, value: $0.value) }
            }
        }
    }

    /// Equal when they have the same keys with equal values, whatever the order.
    static func == (lhs: NodeObject, rhs: NodeObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.allSatisfy { rhs[$0.key] == $0.value }
    }
}
