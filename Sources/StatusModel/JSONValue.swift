// JSON for the status contract without Foundation: the daemon and `tickerboard ctl` link no
// Foundation (DESIGN.md), so JSONEncoder and JSONDecoder are not theirs to use. A tree keeps an
// object's members in the order they were written: the status file's order is the order
// `render --values` prints its lines in, and a person reading the file finds the picture's
// fields first.

/// A JSON value; an object's members in their order, duplicates included as read (a checker can
/// see them; a decoder takes the last, as JSONDecoder does).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number as JSON text, so an integer keeps every digit however large.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue

        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// `v` as the status has always written numbers: integral values without a fraction, at most
    /// six decimals, and null for NaN and infinity (which JSON has no words for; issue 37: a price
    /// of 1.8e302 once wrote `inf`).
    public static func number(_ v: Double?) -> JSONValue {
        guard let v, v.isFinite else { return .null }
        if v == v.rounded(), abs(v) < 1e15 { return .number(String(Int64(v))) }
        // Six decimals by scaling, where scaling cannot overflow (1.8e302 × 1e6 is inf); larger
        // values have no decimals worth rounding. Swift writes them as JSON allows (1e+302).
        guard abs(v) < 1e300 else { return .number(String(v)) }
        let scaled = (v * 1e6).rounded() / 1e6
        return .number(scaled.isFinite ? String(scaled) : String(v))
    }

    /// The members of an object, nil for any other value.
    public var members: [Member]? {
        if case .object(let m) = self { return m }
        return nil
    }
}

// MARK: Writing

extension JSONValue {
    /// One line, `{"a": 1, "b": [2, 3]}`: the control socket's answer.
    public var compactText: String {
        var out = ""
        writeCompact(to: &out)
        return out
    }

    /// The status file's layout: an object's members one a line; an array of objects one object a
    /// line; anything deeper on one line, so `grep '"price":'` finds a whole member.
    public var prettyText: String {
        guard case .object(let members) = self, !members.isEmpty else { return compactText + "\n" }
        var out = "{\n"
        for (i, m) in members.enumerated() {
            out += "  " + Self.quoted(m.key) + ": "
            if case .array(let items) = m.value, !items.isEmpty, items.allSatisfy({ $0.members != nil }) {
                out += "[\n"
                for (j, item) in items.enumerated() {
                    out += "    "
                    item.writeCompact(to: &out)
                    out += j == items.count - 1 ? "\n" : ",\n"
                }
                out += "  ]"
            } else {
                m.value.writeCompact(to: &out)
            }
            out += i == members.count - 1 ? "\n" : ",\n"
        }
        return out + "}\n"
    }

    func writeCompact(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let text): out += text
        case .string(let s): out += Self.quoted(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += ", " }
                item.writeCompact(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += ", " }
                out += Self.quoted(m.key) + ": "
                m.value.writeCompact(to: &out)
            }
            out += "}"
        }
    }

    /// `text` as a JSON string literal: control characters and DEL as `\u00XX` (Feed's
    /// `FetchStatus.quoted` is this one).
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

// MARK: Reading

extension JSONValue {
    /// Nesting deeper than this is refused: the status is three levels deep, and a hostile answer
    /// of nested brackets must not exhaust the stack.
    public static let maximumDepth = 64

    /// The JSON text `bytes` (RFC 8259, a UTF-8 byte order mark allowed); nil unless it is one
    /// whole value.
    public init?(parsing bytes: some Collection<UInt8>) {
        var reader = Reader(bytes: Array(bytes))
        if reader.bytes.count >= 3, reader.bytes[0] == 0xEF, reader.bytes[1] == 0xBB, reader.bytes[2] == 0xBF { reader.index = 3 }
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        guard reader.index == reader.bytes.count else { return nil }
        self = value
    }

    public init?(parsing text: String) { self.init(parsing: text.utf8) }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
        }

        mutating func value(depth: Int) -> JSONValue? {
            skipSpace()
            guard let b = peek else { return nil }
            switch b {
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "["):
                guard depth < JSONValue.maximumDepth else { return nil }
                index += 1
                var items: [JSONValue] = []
                skipSpace()
                if peek == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    guard let item = value(depth: depth + 1) else { return nil }
                    items.append(item)
                    skipSpace()
                    guard let next = peek else { return nil }
                    index += 1
                    if next == UInt8(ascii: "]") { return .array(items) }
                    guard next == UInt8(ascii: ",") else { return nil }
                }
            case UInt8(ascii: "{"):
                guard depth < JSONValue.maximumDepth else { return nil }
                index += 1
                var members: [Member] = []
                skipSpace()
                if peek == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard let key = string() else { return nil }
                    skipSpace()
                    guard peek == UInt8(ascii: ":") else { return nil }
                    index += 1
                    guard let item = value(depth: depth + 1) else { return nil }
                    members.append(Member(key, item))
                    skipSpace()
                    guard let next = peek else { return nil }
                    index += 1
                    if next == UInt8(ascii: "}") { return .object(members) }
                    guard next == UInt8(ascii: ",") else { return nil }
                }
            default:
                return number().map(JSONValue.number)
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return false }
            index += count
            return true
        }

        /// JSON's number grammar exactly: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        mutating func number() -> String? {
            let start = index
            func digits() -> Int {
                let from = index
                while let b = peek, b >= 0x30, b <= 0x39 { index += 1 }
                return index - from
            }
            if peek == UInt8(ascii: "-") { index += 1 }
            if peek == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                return nil
            }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return nil }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return nil }
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                let d: UInt8
                switch b {
                case 0x30...0x39: d = b - 0x30
                case 0x41...0x46: d = b - 0x41 + 10
                case 0x61...0x66: d = b - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
                index += 1
            }
            return v
        }

        mutating func string() -> String? {
            guard peek == UInt8(ascii: "\"") else { return nil }
            index += 1
            var out: [UInt8] = []
            while let b = peek {
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let e = peek else { return nil }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var code = hex4() else { return nil }
                        // A surrogate pair is one scalar; a lone surrogate is no character and
                        // becomes U+FFFD, as a UTF-8 decoder treats a bad byte.
                        if code >= 0xD800, code < 0xDC00, index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                           bytes[index + 1] == UInt8(ascii: "u") {
                            let save = index
                            index += 2
                            if let low = hex4(), low >= 0xDC00, low < 0xE000 {
                                code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                            } else {
                                index = save
                            }
                        }
                        out.append(contentsOf: String(Unicode.Scalar(code) ?? "\u{FFFD}").utf8)
                    default: return nil
                    }
                default:
                    // Control characters must be escaped inside a JSON string.
                    guard b >= 0x20 else { return nil }
                    out.append(b)
                }
            }
            return nil
        }
    }
}
