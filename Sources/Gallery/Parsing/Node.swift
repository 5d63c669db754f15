import Foundation

/// A parsed JSON or property-list value, with the types told apart exactly.
///
/// `JSONSerialization` and `PropertyListSerialization` hand back `Any` trees where booleans and
/// numbers are both `NSNumber`; readers work on this enum instead so that a wrong type can be
/// named precisely in a shape error ("not a string (found a boolean)").
enum Node: Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([Node])
    /// An object's members; see ``NodeObject`` for why not a dictionary.
    case object(NodeObject)
    /// Plist-only leaf values.
    case data(Data)
    case date(Date)

    /// Converts a Foundation tree (from either serializer) into a `Node`.
    ///
    /// Unknown leaf types (none are produced by the serializers) become `.null`.
    init(foundation value: Any) {
        // Fast paths on the exact types Linux Foundation produces (a failed `as?` costs a
        // dynamic cast, and numbers would fail six of them).
        let type = ObjectIdentifier(Swift.type(of: value))
        if type == Node.stringType, let s = value as? String { self = .string(s); return }
        if type == Node.dictionaryType, let d = value as? [String: Any] { self = Node.object(d); return }
        if type == Node.numberType || type == Node.booleanType { self = Node.scalar(value); return }
        switch value {
        case let s as String:
            self = .string(s)
        case is NSNull:
            self = .null
        case let a as [Any]:
            self = .array(a.map(Node.init(foundation:)))
        case let d as [String: Any]:
            self = Node.object(d)
        case let d as [AnyHashable: Any]:
            var out = [String: Node](minimumCapacity: d.count)
            for (k, v) in d { out[(k.base as? String) ?? String(describing: k.base)] = Node(foundation: v) }
            self = .object(NodeObject(out))
        case let d as Data:
            self = .data(d)
        case let d as Date:
            self = .date(d)
        default:
            self = Node.scalar(value)
        }
    }

    private static let stringType = ObjectIdentifier(String.self)
    private static let dictionaryType = ObjectIdentifier([String: Any].self)
    private static let numberType = ObjectIdentifier(NSNumber.self)
    private static let booleanType = ObjectIdentifier(booleanClass)

    private static func object(_ d: [String: Any]) -> Node {
        var out = [String: Node](minimumCapacity: d.count)
        for (k, v) in d { out[k] = Node(foundation: v) }
        return .object(NodeObject(out))
    }

    /// Booleans arrive as Swift `Bool` from plists and as the boolean `NSNumber` subclass from
    /// JSON on Linux; `value is Bool` is also true for the number 1, so compare the types.
    private static let booleanClass: AnyClass = type(of: NSNumber(value: true))

    private static func scalar(_ value: Any) -> Node {
        if type(of: value) == Bool.self, let b = value as? Bool { return .bool(b) }
        if let n = value as? NSNumber {
            if type(of: n) == booleanClass { return .bool(n.boolValue) }
            return .number(n.doubleValue)
        }
        if let i = value as? Int { return .number(Double(i)) }
        if let d = value as? Double { return .number(d) }
        return .null
    }

    /// An article and a noun for messages: "a string", "an object", "null".
    var kindDescription: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        case .data: "binary data"
        case .date: "a date"
        }
    }

    /// True for `null` (cheaper than `== .null`, which builds a value to compare).
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The members of an object, or nil.
    var object: NodeObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements of an array, or nil.
    var array: [Node]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The text of a string, or nil.
    var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A number, or a string that holds one ("150"), or nil.
    var number: Double? {
        switch self {
        case .number(let d): d
        case .string(let s): Double(s.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// Follows a dotted path of object keys ("content.src"); nil if any step is missing.
    subscript(path: String) -> Node? {
        var node = self
        for key in path.split(separator: ".") {
            guard let next = node.object?[String(key)] else { return nil }
            node = next
        }
        return node
    }
}
