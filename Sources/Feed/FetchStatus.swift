// The per-instrument status file the fetcher (`tickerboard-fetch`) keeps beside the price files:
// `DATA_DIR/ID.status`, one flat JSON object. It lives in Feed, not in the fetcher, so the display
// daemon can read it (for an "as of" label and a stale mark) without linking any network code.
//
// The reader is deliberately small and forgiving: the file is written by another process, may be
// from an older or newer fetcher, and may be garbage. Unknown keys are ignored, a value of the wrong
// type is dropped on its own, and anything that is not a JSON object gives nil, never a crash.

/// What the fetcher last learned about one instrument.
import StatusModel

public struct FetchStatus: Sendable, Equatable {
    /// The symbol as the provider spells it (`AAPL`, `aapl.us`).
    public var symbol: String?
    /// The provider that delivered the data now in the files (`yahoo`, `stooq`, ...).
    public var provider: String?
    /// Unix time of the last successful fetch (data parsed and checked, files up to date).
    public var fetchedAt: Int64?
    /// Unix time of the last attempt, successful or not.
    public var attemptedAt: Int64?
    /// Time of the newest bar in the files, in the CSV's convention: an instant for intraday bars,
    /// the UTC midnight of the trading date for daily bars (see `PriceBar.time`).
    public var lastBarTime: Int64?
    /// The instant of the newest price (the provider's market time when it says, else the newest
    /// intraday bar): what an "as of" label shows, in the exchange's time zone.
    public var lastPriceTime: Int64?
    /// `PRE`, `REGULAR`, `POST` or `CLOSED` when the provider says (or its trading periods tell).
    public var marketState: String?
    /// How far the provider's prices lag the exchange, when it says (15 min is common).
    public var delaySeconds: Int?
    /// The current problem (nil once a fetch succeeds again), with the secrets already removed.
    public var lastError: String?
    /// Since when `lastError` has been the problem.
    public var errorSince: Int64?
    /// ISO code as the provider reports it; `GBp` means pence.
    public var currency: String?
    /// IANA name of the exchange's zone (`America/New_York`).
    public var exchangeTimeZone: String?
    /// The last regular-session price and the previous close, when the provider gives them.
    public var price: Double?
    public var previousClose: Double?

    public init() {}

    /// `directory/ID.status` for the instrument `id` (as in `[instrument ID]`). Characters that could
    /// leave the directory or confuse a shell become `_`.
    public static func path(forInstrument id: String, in directory: String) -> String {
        let safe = String(id.map { $0.isLetter || $0.isNumber || "._-^=".contains($0) ? $0 : "_" })
        let name = (safe.isEmpty || safe.hasPrefix(".") ? "_" + safe : safe) + ".status"
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// A status file is a few hundred bytes; anything much larger is not one.
    public static let maximumFileSize = 64 << 10

    /// Reads `path`; nil when it is missing, unreadable, too large or not a status object.
    public static func load(path: String) -> FetchStatus? {
        guard let bytes = try? FileBytes.read(path: path, limit: maximumFileSize) else { return nil }
        return parse(bytes)
    }

    /// Parses the JSON text; nil unless it is a JSON object.
    public static func parse(_ bytes: [UInt8]) -> FetchStatus? {
        var reader = FlatJSONReader(bytes: bytes)
        guard let fields = reader.readObject() else { return nil }
        var status = FetchStatus()
        func string(_ key: String) -> String? {
            if case .string(let s)? = fields[key] { return s }
            return nil
        }
        func integer(_ key: String) -> Int64? {
            if case .number(let n)? = fields[key], n.isFinite, abs(n) < 1e15 { return Int64(n) }
            return nil
        }
        func number(_ key: String) -> Double? {
            if case .number(let n)? = fields[key], n.isFinite { return n }
            return nil
        }
        status.symbol = string("symbol")
        status.provider = string("provider")
        status.fetchedAt = integer("fetched_at")
        status.attemptedAt = integer("attempted_at")
        status.lastBarTime = integer("last_bar_time")
        status.lastPriceTime = integer("last_price_time")
        status.marketState = string("market_state")
        status.delaySeconds = integer("delay_seconds").map { Int(clamping: $0) }
        status.lastError = string("last_error")
        status.errorSince = integer("error_since")
        status.currency = string("currency")
        status.exchangeTimeZone = string("exchange_time_zone")
        status.price = number("price")
        status.previousClose = number("previous_close")
        return status
    }

    public static func parse(text: String) -> FetchStatus? { parse(Array(text.utf8)) }

    /// The JSON the fetcher writes: one object, keys in a fixed order, absent values as null.
    public func json() -> String {
        func s(_ v: String?) -> String { v.map(FetchStatus.quoted) ?? "null" }
        func i(_ v: Int64?) -> String { v.map { String($0) } ?? "null" }
        func d(_ v: Double?) -> String { v.flatMap { $0.isFinite ? "\($0)" : nil } ?? "null" }
        let fields: [(String, String)] = [
            ("symbol", s(symbol)), ("provider", s(provider)), ("fetched_at", i(fetchedAt)),
            ("attempted_at", i(attemptedAt)), ("last_bar_time", i(lastBarTime)),
            ("last_price_time", i(lastPriceTime)), ("market_state", s(marketState)),
            ("delay_seconds", i(delaySeconds.map(Int64.init))), ("last_error", s(lastError)),
            ("error_since", i(errorSince)), ("currency", s(currency)),
            ("exchange_time_zone", s(exchangeTimeZone)), ("price", d(price)), ("previous_close", d(previousClose)),
        ]
        return "{\n" + fields.map { "  \"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n}\n"
    }

    /// `text` as a JSON string literal (also `ctl instruments` and the bridge's payloads use it):
    /// the status file's escaping, so every file the project writes escapes alike.
    public static func quoted(_ text: String) -> String { JSONValue.quoted(text) }
}

/// Just enough JSON for a flat object: top-level strings, numbers, booleans and null are kept;
/// nested arrays and objects are skipped (to a bounded depth). Any syntax error gives nil.
struct FlatJSONReader {
    enum Value: Equatable { case string(String), number(Double), bool(Bool), null, nested }

    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func readObject() -> [String: Value]? {
        skipSpace()
        if bytes.count >= index + 3, bytes[index] == 0xEF, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF { index += 3 }
        skipSpace()
        guard peek() == UInt8(ascii: "{") else { return nil }
        index += 1
        var fields: [String: Value] = [:]
        skipSpace()
        if peek() == UInt8(ascii: "}") { index += 1; return fields }
        while true {
            skipSpace()
            guard let key = readString() else { return nil }
            skipSpace()
            guard peek() == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = readValue(depth: 0) else { return nil }
            fields[key] = value
            skipSpace()
            guard let next = peek() else { return nil }
            index += 1
            if next == UInt8(ascii: "}") { return fields }
            guard next == UInt8(ascii: ",") else { return nil }
        }
    }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
    }

    mutating func readValue(depth: Int) -> Value? {
        skipSpace()
        guard let b = peek() else { return nil }
        switch b {
        case UInt8(ascii: "\""): return readString().map(Value.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Bounded so a hostile file of nested brackets cannot exhaust the stack.
            guard depth < 16 else { return nil }
            let close = b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipSpace()
            if peek() == close { index += 1; return .nested }
            while true {
                if b == UInt8(ascii: "{") {
                    skipSpace()
                    guard readString() != nil else { return nil }
                    skipSpace()
                    guard peek() == UInt8(ascii: ":") else { return nil }
                    index += 1
                }
                guard readValue(depth: depth + 1) != nil else { return nil }
                skipSpace()
                guard let next = peek() else { return nil }
                index += 1
                if next == close { return .nested }
                guard next == UInt8(ascii: ",") else { return nil }
            }
        default:
            return readNumber().map(Value.number)
        }
    }

    mutating func literal(_ word: String) -> Bool {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else { return false }
        index += w.count
        return true
    }

    mutating func readNumber() -> Double? {
        let start = index
        while let b = peek(), (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
            || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
        {
            index += 1
        }
        guard index > start, index - start < 40 else { return nil }
        return Double(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    mutating func readString() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        index += 1
        var out: [UInt8] = []
        while let b = peek() {
            index += 1
            switch b {
            case UInt8(ascii: "\""): return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let e = peek() else { return nil }
                index += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count,
                        let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                    else { return nil }
                    index += 4
                    // Surrogate halves alone are not characters; show them as U+FFFD.
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: out.append(e)
                }
            default:
                if b < 0x20 { return nil }
                out.append(b)
            }
        }
        return nil
    }
}

extension FetchStatus {
    /// A current problem counts for the wall once it has lasted this long: one failed fetch that
    /// the next retry mends is no news for someone walking past.
    public static let problemGrace: Int64 = 5 * 60

    /// `lastError` in a few words for the screen: `yahoo: ^GDAXI not found`, `yahoo unreachable`,
    /// `stooq: rate limited`; the fetcher's own words (shortened) when no rule fits. nil when fine.
    public var reason: String? {
        // Another process wrote the file: one line, and no word longer than a name can be.
        func line(_ s: String, _ limit: Int) -> String {
            let flat = String(s.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
            return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
        }
        guard var text = lastError.map({ line($0, 512) })?.trimmingSpaces, !text.isEmpty else { return nil }
        for slot in ["daily: ", "intraday: "] where text.hasPrefix(slot) { text.removeFirst(slot.count) }
        var provider = self.provider.map { line($0, 24) }
        if let colon = text.firstIndex(of: ":"), !text[..<colon].contains(" "), text.distance(from: text.startIndex, to: colon) <= 24 {
            provider = String(text[..<colon])
            text = String(text[text.index(after: colon)...]).trimmingSpaces
        }
        let who = provider ?? "the provider"
        if text.hasPrefix("HTTP 404") { return "\(who): \(symbol.map { line($0, 24) } ?? "the symbol") not found" }
        if text.hasPrefix("cannot connect") || text.hasPrefix("no complete answer") || text.hasPrefix("connection lost") {
            return "\(who) unreachable"
        }
        if text.hasPrefix("key refused") { return "\(who): key refused" }
        if text.hasPrefix("rate limited") { return "\(who): rate limited" }
        if text.hasPrefix("HTTP 5") { return "\(who): server error (\(text.prefix(8)))" }
        let limit = 48
        let short = text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
        return "\(who): \(short)"
    }

    /// The reason when the problem has lasted `problemGrace` at `now` (nil before, and when fine).
    public func reason(at now: Int64) -> String? {
        guard let reason, let since = errorSince ?? attemptedAt else { return nil }
        let (age, overflow) = now.subtractingReportingOverflow(since)
        return !overflow && age >= Self.problemGrace ? reason : nil
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
