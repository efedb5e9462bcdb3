// Codable to and from `JSONValue`, for the programs that link no Foundation (the daemon, `ctl`).
// A type's `encode(to:)` and `init(from:)` are its only description: the tree encoder writes what
// they write, in the order they write it, so the status has one encoding whatever encoder runs it.
// Doubles become text by `JSONValue.number` (at most six decimals, non-finite as null).

/// Encodes a value into a `JSONValue`, members in the order `encode(to:)` wrote them.
public struct JSONTreeEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = EncodedNode()
        try value.encode(to: TreeEncoder(node: root, codingPath: []))
        return root.value
    }
}

/// Decodes a value from a `JSONValue`, as JSONDecoder would from its text: a member given twice
/// counts as its last, an integer may be written `3.0`, a number that does not fit is an error.
public struct JSONTreeDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: TreeDecoder(value: value, codingPath: []))
    }
}

// MARK: Encoding

/// What one `encode(to:)` left behind; a class so nested containers can fill it after they are
/// handed out, as the protocol allows.
private final class EncodedNode {
    enum Kind { case unset, scalar, object, array }
    var kind = Kind.unset
    var scalar = JSONValue.null
    var keys: [String] = []
    var children: [String: EncodedNode] = [:]
    var items: [EncodedNode] = []

    /// A fresh node for `key`; a key written again keeps its first place and its last value.
    func child(_ key: String) -> EncodedNode {
        if kind != .object { kind = .object }
        let node = EncodedNode()
        if children.updateValue(node, forKey: key) == nil { keys.append(key) }
        return node
    }

    func appended() -> EncodedNode {
        if kind != .array { kind = .array }
        let node = EncodedNode()
        items.append(node)
        return node
    }

    func set(_ value: JSONValue) {
        kind = .scalar
        scalar = value
    }

    var value: JSONValue {
        switch kind {
        // A value that wrote nothing is an empty object, as a keyed container left empty.
        case .unset: return .object([])
        case .scalar: return scalar
        case .object: return .object(keys.map { JSONValue.Member($0, children[$0]?.value ?? .null) })
        case .array: return .array(items.map(\.value))
        }
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init(intValue: Int) { index = intValue }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { nil }
}

private struct TreeEncoder: Encoder {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(node: EncodedNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node.kind != .object { node.kind = .object }
        return KeyedEncodingContainer(KeyedEncoder<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node.kind != .array { node.kind = .array }
        return UnkeyedEncoder(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueEncoder(node: node, codingPath: codingPath) }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    private func put<T: Encodable>(_ value: T, _ key: Key) throws {
        try value.encode(to: TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]))
    }

    mutating func encodeNil(forKey key: Key) throws { node.child(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { TreeEncoder(node: node.child("super"), codingPath: codingPath + [SuperKey()]) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int { node.items.count }

    private func put<T: Encodable>(_ value: T) throws {
        let key = IndexKey(count)
        try value.encode(to: TreeEncoder(node: node.appended(), codingPath: codingPath + [key]))
    }

    mutating func encodeNil() throws { node.appended().set(.null) }
    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = IndexKey(count)
        return TreeEncoder(node: node.appended(), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = IndexKey(count)
        return TreeEncoder(node: node.appended(), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let key = IndexKey(count)
        return TreeEncoder(node: node.appended(), codingPath: codingPath + [key])
    }
}

private struct SingleValueEncoder: SingleValueEncodingContainer {
    let node: EncodedNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(JSONValue.number(value)) }
    mutating func encode(_ value: Float) throws { node.set(JSONValue.number(Double(value))) }
    mutating func encode(_ value: Int) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { node.set(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { node.set(.number(String(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: TreeEncoder(node: node, codingPath: codingPath)) }
}

// MARK: Decoding

private struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value, codingPath) }
        return KeyedDecodingContainer(KeyedDecoder<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedDecoder(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueDecoder(value: value, codingPath: codingPath) }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    let found: String
    switch value {
    case .null: found = "null"
    case .bool: found = "a boolean"
    case .number(let text): found = "the number \(text)"
    case .string: found = "a string"
    case .array: found = "an array"
    case .object: found = "an object"
    }
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(found)"))
}

/// A primitive from a JSON value, or why not.
private func primitive<T>(_ type: T.Type, from value: JSONValue, at path: [any CodingKey]) throws -> T {
    func integer<I: FixedWidthInteger>(_ t: I.Type, _ text: String) -> I? {
        if let exact = I(text) { return exact }
        // `3.0` and `1e3` are integers too; a fraction or a value out of range is not.
        guard let d = Double(text), d.isFinite, d == d.rounded(.towardZero) else { return nil }
        return I(exactly: d)
    }
    let result: Any?
    switch (value, type) {
    case (.bool(let b), is Bool.Type): result = b
    case (.string(let s), is String.Type): result = s
    case (.number(let text), is Double.Type): result = Double(text).flatMap { $0.isFinite ? $0 : nil }
    case (.number(let text), is Float.Type): result = Float(text).flatMap { $0.isFinite ? $0 : nil }
    case (.number(let text), is Int.Type): result = integer(Int.self, text)
    case (.number(let text), is Int8.Type): result = integer(Int8.self, text)
    case (.number(let text), is Int16.Type): result = integer(Int16.self, text)
    case (.number(let text), is Int32.Type): result = integer(Int32.self, text)
    case (.number(let text), is Int64.Type): result = integer(Int64.self, text)
    case (.number(let text), is UInt.Type): result = integer(UInt.self, text)
    case (.number(let text), is UInt8.Type): result = integer(UInt8.self, text)
    case (.number(let text), is UInt16.Type): result = integer(UInt16.self, text)
    case (.number(let text), is UInt32.Type): result = integer(UInt32.self, text)
    case (.number(let text), is UInt64.Type): result = integer(UInt64.self, text)
    case (.number(let text), _):
        throw DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found the number \(text)"))
    default: throw mismatch(type, value, path)
    }
    guard let result = result as? T else {
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "the number does not fit in \(type)"))
    }
    return result
}

private struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let values: [String: JSONValue]
    let allKeys: [Key]
    let codingPath: [any CodingKey]

    init(members: [JSONValue.Member], codingPath: [any CodingKey]) {
        var values: [String: JSONValue] = [:]
        var keys: [Key] = []
        for m in members {
            if values.updateValue(m.value, forKey: m.key) == nil, let key = Key(stringValue: m.key) { keys.append(key) }
        }
        self.values = values
        self.allKeys = keys
        self.codingPath = codingPath
    }

    func contains(_ key: Key) -> Bool { values[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let v = values[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return v
    }

    private func get<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try T(from: TreeDecoder(value: try value(key), codingPath: codingPath + [key]))
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try get(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try get(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try get(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try get(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try get(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try get(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try get(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try get(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try get(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try get(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try get(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try get(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try get(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try get(type, key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try get(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: try value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        TreeDecoder(value: values["super"] ?? .null, codingPath: codingPath + [SuperKey()])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: values[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    private func current<T>(_ type: T.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "the array has ended"))
        }
        return items[currentIndex]
    }

    /// The next item as `T`; the index moves on only when it decoded, as JSONDecoder's does.
    private mutating func next<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try T(from: TreeDecoder(value: try current(type), codingPath: codingPath + [IndexKey(currentIndex)]))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try current(Never.self) == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try TreeDecoder(value: try current(type), codingPath: codingPath + [IndexKey(currentIndex)]).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try TreeDecoder(value: try current([JSONValue].self), codingPath: codingPath + [IndexKey(currentIndex)]).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = TreeDecoder(value: try current(JSONValue.self), codingPath: codingPath + [IndexKey(currentIndex)])
        currentIndex += 1
        return decoder
    }
}

private struct SingleValueDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type, from: value, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type, from: value, at: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: TreeDecoder(value: value, codingPath: codingPath)) }
}
