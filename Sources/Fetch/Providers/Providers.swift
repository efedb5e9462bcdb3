// The provider adapters, one file per kind beside this one. Each turns a `FetchRequest` into an
// HTTP request and a response into checked `ProviderData`; none does I/O itself, so each is tested
// with recorded bodies alone. Here: the protocol, the table of adapters and what they share.

import Feed
import FoundationEssentials

/// How one configured provider is reached.
public struct ProviderSettings: Sendable, Equatable {
    /// The name in the config (`[provider NAME]`, `providers = NAME ...`).
    public var name: String
    /// Which adapter: one of `FetchSettings.providerKinds`.
    public var kind: String
    public var baseURL: String
    public var key: Secret?
    public var rate: [RateLimit]
    public var userAgent: String?
    /// Where the key came from, for messages (`/etc/tickerboard/keys/twelvedata`).
    public var keySource: String?

    public init(name: String, kind: String, baseURL: String? = nil, key: Secret? = nil, rate: [RateLimit]? = nil,
                userAgent: String? = nil) {
        self.name = name
        self.kind = kind
        self.baseURL = baseURL ?? ProviderSettings.defaultBaseURL(kind: kind)
        self.key = key
        self.rate = rate ?? ProviderSettings.defaultRate(kind: kind)
        self.userAgent = userAgent
    }

    public static func defaultBaseURL(kind: String) -> String { ProviderKind.named(kind)?.baseURL ?? "" }

    public static func defaultRate(kind: String) -> [RateLimit] {
        ProviderKind.named(kind)?.rate ?? [RateLimit(count: 60, seconds: 60)]
    }

    /// Kinds that cannot work without a key.
    public var needsKey: Bool { ProviderKind.named(kind)?.needsKey ?? false }
}

public protocol Provider: Sendable {
    /// The `ProviderKind` this adapter serves.
    static var kind: String { get }
    init(settings: ProviderSettings)
    var settings: ProviderSettings { get }
    func supports(_ slot: Slot) -> Bool
    func httpRequest(for request: FetchRequest) -> HTTPRequest
    func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem>
    /// Why this adapter cannot ask for `symbol` (the crypto ones need a pair, `BTC-EUR`), said
    /// by the config check of provider `name` (whose `NAME-symbol =` would set another); nil
    /// when it can.
    static func symbolProblem(_ symbol: String, name: String) -> String?
}

extension Provider {
    public var name: String { settings.name }
    public static func symbolProblem(_ symbol: String, name: String) -> String? { nil }
}

public enum Providers {
    /// Every adapter, one per `ProviderKind` (Providers/<Kind>.swift).
    public static let adapters: [any Provider.Type] = [
        YahooProvider.self, StooqProvider.self, AlphaVantageProvider.self, TwelveDataProvider.self, HTTPCSVProvider.self,
        CoinbaseProvider.self, KrakenProvider.self, BinanceProvider.self, CoinGeckoProvider.self,
    ]

    /// Why provider `name`'s adapter cannot ask for `symbol`; nil when it can (or the kind is unknown).
    public static func symbolProblem(_ settings: ProviderSettings, symbol: String) -> String? {
        adapters.first { $0.kind == settings.kind }?.symbolProblem(symbol, name: settings.name)
    }

    /// The adapter for `settings.kind`; nil for an unknown kind.
    public static func make(_ settings: ProviderSettings) -> (any Provider)? {
        adapters.first { $0.kind == settings.kind }.map { $0.init(settings: settings) }
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
func urlEncode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
        let c = Character(Unicode.Scalar(byte))
        if (c.isASCII && (c.isLetter || c.isNumber)) || "-._~".contains(c) {
            out.append(c)
        } else {
            let hex = String(byte, radix: 16, uppercase: true)
            out += "%" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return out
}

func joinURL(_ base: String, _ path: String) -> String {
    (base.hasSuffix("/") ? String(base.dropLast()) : base) + path
}

/// Decodes JSON with the toolchain's FoundationEssentials decoder; a failure names the spot.
func decodeJSON<T: Decodable>(_ type: T.Type, _ body: [UInt8]) -> Result<T, FetchProblem> {
    // Swift 6.0's decoder (Debian 13's, on a Pi) traps instead of throwing on bytes that are not
    // UTF-8 and on control characters in strings (a `try!` inside it): a damaged body must be
    // refused before it gets there.
    if let bad = firstInvalidUTF8(body) {
        return .failure(.notData("JSON: not UTF-8 at byte \(bad) (\(body.count) bytes)"))
    }
    if let bad = firstControlCharacter(body) {
        return .failure(.notData("JSON: control character \(body[bad]) at byte \(bad) (\(body.count) bytes)"))
    }
    do {
        return .success(try JSONDecoder().decode(T.self, from: Data(body)))
    } catch let error as DecodingError {
        let reason: String
        switch error {
        case .dataCorrupted(let c): reason = c.codingPath.isEmpty ? "not valid JSON (truncated or garbled?)" : "bad value at \(path(c.codingPath))"
        case .keyNotFound(let key, let c): reason = "no \"\(key.stringValue)\" at \(path(c.codingPath))"
        case .typeMismatch(_, let c): reason = "unexpected type at \(path(c.codingPath))"
        case .valueNotFound(_, let c): reason = "missing value at \(path(c.codingPath))"
        @unknown default: reason = "cannot decode"
        }
        return .failure(.notData("JSON: \(reason) (\(body.count) bytes)"))
    } catch {
        return .failure(.notData("JSON: cannot decode (\(body.count) bytes)"))
    }
}

/// The offset of the first byte that does not belong to valid UTF-8, or nil when all do.
func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var iterator = bytes.makeIterator()
    var codec = UTF8()
    var offset = 0
    while true {
        switch codec.decode(&iterator) {
        case .scalarValue(let scalar): offset += UTF8.width(scalar)
        case .emptyInput: return nil
        case .error: return offset
        }
    }
}

/// The offset of the first control character JSON does not allow: any inside a string, and outside
/// one any but the whitespace (tab, line feed, carriage return).
func firstControlCharacter(_ bytes: [UInt8]) -> Int? {
    var inString = false, escaped = false
    for (offset, byte) in bytes.enumerated() {
        if byte < 0x20 && (inString || (byte != 0x09 && byte != 0x0A && byte != 0x0D)) { return offset }
        if escaped { escaped = false } else if inString && byte == UInt8(ascii: "\\") { escaped = true }
        else if byte == UInt8(ascii: "\"") { inString.toggle() }
    }
    return nil
}

private func path(_ keys: [any CodingKey]) -> String {
    keys.isEmpty ? "the top" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
}

/// A coding key for objects keyed by data (dates, symbols).
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = "\(intValue)"; self.intValue = intValue }
}

/// Loads a zone for converting provider times; nil when the name is unknown here.
func zone(_ name: String?) -> ExchangeTimeZone? {
    guard let name, !name.isEmpty else { return nil }
    if name == "UTC" || name == "GMT" || name == "Etc/UTC" { return .utc }
    return try? ExchangeTimeZone(identifier: name)
}

/// Daily bars keep the calendar date the exchange names (see `PriceBar.time`).
/// Bars from rows of a local timestamp and five numbers as text (open, high, low, close, volume; a
/// missing one is nil), as Alpha Vantage and Twelve Data send them: daily stamps are trading dates,
/// intraday ones the exchange's wall clock. The first bad field fails the whole response.
func textBars(_ rows: some Sequence<(String, [String?])>, fields: [String], daily: Bool,
              zone: ExchangeTimeZone) -> Result<ProviderData, FetchProblem> {
    var times: [Int64] = []
    var columns: [[Double?]] = Array(repeating: [], count: fields.count)
    for (stamp, texts) in rows {
        guard let local = LocalTimestamp.parse(stamp) else {
            return .failure(.badData("bad timestamp \"\(ResponseChecks.oneLine(stamp, limit: 30))\""))
        }
        times.append(daily ? local.date.unixTimeAtMidnightUTC : zone.unixTime(for: local))
        for (i, text) in texts.enumerated() where i < fields.count {
            guard let text else { columns[i].append(nil); continue }
            guard let v = Double(text) else {
                return .failure(.badData("\(ResponseChecks.oneLine(stamp, limit: 30)): \(fields[i]) is \"\(ResponseChecks.oneLine(text, limit: 20))\", expected a number"))
            }
            columns[i].append(v)
        }
    }
    return ResponseChecks.bars(times: times, open: columns[0], high: columns[1], low: columns[2], close: columns[3],
                               volume: columns[4]).map { raw in
        let bars = ResponseChecks.sorted(raw)
        var data = ProviderData(bars: bars, interval: daily ? .daily : .intraday(seconds: 60))
        if daily, bars.count >= 2 { data.previousClose = bars[bars.count - 2].close }
        return data
    }
}

func toTradingDates(_ bars: [PriceBar], in zone: ExchangeTimeZone) -> [PriceBar] {
    bars.map { bar in
        var b = bar
        b.time = zone.localDate(atUnixTime: bar.time).unixTimeAtMidnightUTC
        return b
    }
}

/// Yahoo-layout (or Stooq) CSV bodies, through the same parser the daemon uses.
enum CSVBody {
    static func parse(_ raw: [UInt8], request: FetchRequest, provider: String) -> Result<ProviderData, FetchProblem> {
        var body = raw
        // A body cut off mid-line (no announced length, connection closed) would end in half a number;
        // the last line counts only when it is complete.
        if let last = body.last, last != 0x0A {
            guard let newline = body.lastIndex(of: 0x0A) else {
                return .failure(.notData("one line without an end, not a CSV (truncated?)"))
            }
            body.removeSubrange((newline + 1)...)
        }
        let series: PriceSeries
        let report: ParseReport
        do throws(FeedError) {
            (series, report) = try YahooCSV.parse(body, source: "\(provider) response")
        } catch {
            return .failure(.notData("\(error)"))
        }
        // Skipped rows with impossible values mean a damaged response; rows without a close
        // (`null`) are the usual holes and are just left out.
        for skipped in report.firstSkipped {
            switch skipped.reason {
            case .missingValue: continue
            default: return .failure(.badData("line \(skipped.line): \(skipped.reason)"))
            }
        }
        let isDaily = series.interval == .daily
        if isDaily != (request.slot == .daily) {
            return .failure(.badData("asked for \(request.slot) bars, the CSV has \(series.interval) bars"))
        }
        return .success(ProviderData(bars: series.bars, interval: series.interval))
    }
}
