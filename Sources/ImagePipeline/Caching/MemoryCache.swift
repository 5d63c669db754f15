/// A least-recently-used cache bounded by total cost in bytes.
///
/// Not thread-safe by itself: the pipeline keeps it inside its locked state. `value(for:)` and
/// `insert` are O(1); eviction removes from the least recently used end until the total cost is
/// at most `costLimit`. An entry costlier than the whole limit is not stored.
struct MemoryCache<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var previous: Int?  // towards most recently used
        var next: Int?  // towards least recently used
    }

    /// Largest total cost kept, in bytes.
    var costLimit: Int {
        didSet { trim() }
    }
    /// Sum of the costs of the entries held, in bytes.
    private(set) var totalCost = 0
    private var nodes: [Node?] = []
    private var free: [Int] = []
    private var index: [Key: Int] = [:]
    private var head: Int?  // most recently used
    private var tail: Int?  // least recently used

    init(costLimit: Int) { self.costLimit = costLimit }

    /// Number of entries held.
    var count: Int { index.count }

    /// The value for `key`, marking it most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return nodes[slot]!.value
    }

    /// Stores `value` under `key` with `cost` bytes, then evicts down to the limit.
    mutating func insert(_ value: Value, for key: Key, cost: Int) {
        remove(key)
        guard cost <= costLimit else { return }
        let node = Node(key: key, value: value, cost: cost, previous: nil, next: head)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if let head { nodes[head]!.previous = slot }
        head = slot
        if tail == nil { tail = slot }
        index[key] = slot
        totalCost += cost
        trim()
    }

    /// Drops the entry for `key`, if any.
    mutating func remove(_ key: Key) {
        guard let slot = index.removeValue(forKey: key) else { return }
        unlink(slot)
        totalCost -= nodes[slot]!.cost
        nodes[slot] = nil
        free.append(slot)
    }

    /// Drops every entry.
    mutating func removeAll() {
        nodes.removeAll()
        free.removeAll()
        index.removeAll()
        head = nil
        tail = nil
        totalCost = 0
    }

    private mutating func trim() {
        while totalCost > costLimit, let last = tail {
            remove(nodes[last]!.key)
        }
    }

    private mutating func unlink(_ slot: Int) {
        let node = nodes[slot]!
        if let previous = node.previous { nodes[previous]!.next = node.next } else { head = node.next }
        if let next = node.next { nodes[next]!.previous = node.previous } else { tail = node.previous }
        nodes[slot]!.previous = nil
        nodes[slot]!.next = nil
    }

    private mutating func moveToFront(_ slot: Int) {
        guard head != slot else { return }
        unlink(slot)
        nodes[slot]!.next = head
        if let head { nodes[head]!.previous = slot }
        head = slot
        if tail == nil { tail = slot }
    }
}
