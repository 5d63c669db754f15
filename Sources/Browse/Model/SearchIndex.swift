/// Titles and file names of every item as two flat byte buffers, for incremental search with
/// smart case over 100,000 items in a few milliseconds per key.
///
/// One buffer holds the text as given, the other lower-cased (`String.lowercased()`, so
/// non-ASCII letters fold too); item i's text starts at `starts[i]`, title and file name
/// separated by byte 0x01 (no query can contain it, so no match spans the two), items by 0x00.
/// A query is found with `memchr` on its first byte and a byte compare, over the whole buffer
/// at once; each hit marks its item (found by walking `starts` forward: hits come in order)
/// and the scan skips to the next item. A query that extends the previous one looks only at
/// the previous matches. Smart case as in vim and less: a query with an upper-case letter matches case
/// exactly, any other ignores case.
///
/// Every item also has a 64-bit signature: one bit per byte class it contains (a-z and A-Z
/// share a bit per letter, then one per digit, the space, 26 classes for the other ASCII
/// bytes, one for every non-ASCII byte), over both texts. An item whose signature lacks a bit
/// of the query cannot match, so a query that narrows the last one skips such candidates; a
/// one-letter query ignoring case (the first key of a search, which matches most items) is
/// answered from the signatures alone: 100,000 bit tests instead of a byte scan.
struct SearchIndex {
    private var exact: [UInt8] = []
    private var folded: [UInt8] = []
    private var exactStarts: [Int32] = []
    private var foldedStarts: [Int32] = []
    private var signatures: [UInt64] = []

    /// The signature bit of each byte value.
    private static let classOf: [UInt8] = (0..<256).map { b -> UInt8 in
        switch b {
        case 0x61...0x7A: return UInt8(b - 0x61)  // a-z
        case 0x41...0x5A: return UInt8(b - 0x41)  // A-Z: the same bit
        case 0x30...0x39: return UInt8(26 + b - 0x30)
        case 0x20: return 36
        case 0x80...: return 63
        default: return UInt8(37 + b % 26)
        }
    }

    /// True when a byte's class holds that byte alone once case is folded (a letter, a digit,
    /// the space): a folded one-byte query of it is answered by the signature bit.
    private static func classIsExact(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x20
    }

    /// The signature of `bytes`.
    private static func signature(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var sig: UInt64 = 0
        for b in bytes { sig |= 1 << UInt64(classOf[Int(b)]) }
        return sig
    }

    /// Number of items indexed.
    var count: Int { exactStarts.count }

    /// Adds the next item's text.
    mutating func append(title: String, fileName: String) {
        exactStarts.append(Int32(exact.count))
        exact.append(contentsOf: title.utf8)
        exact.append(1)
        exact.append(contentsOf: fileName.utf8)
        exact.append(0)
        foldedStarts.append(Int32(folded.count))
        let lowerTitle = title.lowercased(), lowerName = fileName.lowercased()
        folded.append(contentsOf: lowerTitle.utf8)
        folded.append(1)
        folded.append(contentsOf: lowerName.utf8)
        folded.append(0)
        // Both texts: a folded letter can differ from its exact one (K, the Kelvin sign,
        // folds to k).
        signatures.append(
            Self.signature(title.utf8) | Self.signature(fileName.utf8) | Self.signature(lowerTitle.utf8)
                | Self.signature(lowerName.utf8))
    }

    /// True when `query` decides to match case exactly (it holds an upper-case letter).
    static func isCaseSensitive(_ query: String) -> Bool {
        query.contains { $0.isUppercase }
    }

    /// The items whose title or file name contains `query` (smart case). An empty query
    /// matches nothing. With `candidates` (the matches of a query this one extends, in the
    /// same case mode), only those items are looked at: each keystroke of an incremental
    /// search narrows the last one's result.
    func matches(_ query: String, within candidates: ItemBits? = nil) -> ItemBits {
        var bits = ItemBits(count: count)
        guard !query.isEmpty, count > 0 else { return bits }
        let sensitive = Self.isCaseSensitive(query)
        let needle = Array((sensitive ? query : query.lowercased()).utf8)
        let wanted = Self.signature(needle)
        if candidates == nil, needle.count == 1, !sensitive, Self.classIsExact(needle[0]) {
            // One folded letter, digit or space: the signature bit is the answer.
            let shift = UInt64(Self.classOf[Int(needle[0])])
            var words = [UInt64](repeating: 0, count: (count + 63) / 64)
            signatures.withUnsafeBufferPointer { sigs in
                words.withUnsafeMutableBufferPointer { words in
                    for i in 0..<sigs.count { words[i >> 6] |= ((sigs[i] >> shift) & 1) << UInt64(i & 63) }
                }
            }
            return ItemBits(count: count, words: words)
        }
        let haystack = sensitive ? exact : folded
        let starts = sensitive ? exactStarts : foldedStarts
        let sigs = signatures
        haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                starts.withUnsafeBufferPointer { starts in
                    guard let base = hay.baseAddress, let nBase = pin.baseAddress else { return }
                    let n = pin.count
                    let first = Int32(pin[0])
                    /// The first hit of the needle in bytes lower..<upper, if any.
                    func find(_ lower: Int, _ upper: Int) -> Int? {
                        var i = lower
                        while i + n <= upper {
                            guard let hit = memchr(base + i, first, upper - n + 1 - i) else { return nil }
                            let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                            if n == 1 || memcmp(base + at, nBase, n) == 0 { return at }
                            i = at + 1
                        }
                        return nil
                    }
                    func end(of item: Int) -> Int { item + 1 < starts.count ? Int(starts[item + 1]) : hay.count }
                    if let candidates {
                        candidates.forEach { id in
                            if id.index < starts.count, sigs[id.index] & wanted == wanted,
                                find(Int(starts[id.index]), end(of: id.index)) != nil
                            {
                                bits[id] = true
                            }
                        }
                        return
                    }
                    // One pass over the whole buffer; hits come in order, so the item holding
                    // each is found by walking forward from the last one.
                    var item = 0
                    var i = 0
                    while let at = find(i, hay.count) {
                        while item + 1 < starts.count && Int(starts[item + 1]) <= at { item += 1 }
                        bits[ItemID(item)] = true
                        i = end(of: item)
                    }
                }
            }
        }
        return bits
    }
}

#if canImport(Glibc)
import Glibc
#endif
