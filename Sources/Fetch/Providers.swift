// The provider adapters. Each turns a `FetchRequest` into an HTTP request and a response into
// checked `ProviderData`; none does I/O itself, so each is tested with recorded bodies alone.

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

    public static func defaultBaseURL(kind: String) -> String {
        switch kind {
        case "yahoo": return "https://query1.finance.yahoo.com"
        case "stooq": return "https://stooq.com"
        case "alphavantage": return "https://www.alphavantage.co"
        case "twelvedata": return "https://api.twelvedata.com"
        default: return ""
        }
    }

    /// The documented free tiers (Yahoo publishes none: a polite rate that stays clear of its 429s).
    public static func defaultRate(kind: String) -> [RateLimit] {
        switch kind {
        case "yahoo": return [RateLimit(count: 30, seconds: 60), RateLimit(count: 2000, seconds: 86_400)]
        case "stooq": return [RateLimit(count: 10, seconds: 60), RateLimit(count: 500, seconds: 86_400)]
        case "alphavantage": return [RateLimit(count: 5, seconds: 60), RateLimit(count: 25, seconds: 86_400)]
        case "twelvedata": return [RateLimit(count: 8, seconds: 60), RateLimit(count: 800, seconds: 86_400)]
        default: return [RateLimit(count: 60, seconds: 60)]
        }
    }

    /// Kinds that cannot work without a key.
    public var needsKey: Bool { kind == "alphavantage" || kind == "twelvedata" || kind == "stooq" }
}

public protocol Provider: Sendable {
    var settings: ProviderSettings { get }
    func supports(_ slot: Slot) -> Bool
    func httpRequest(for request: FetchRequest) -> HTTPRequest
    func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem>
}

extension Provider {
    public var name: String { settings.name }
}

public enum Providers {
    /// The adapter for `settings.kind`; nil for an unknown kind.
    public static func make(_ settings: ProviderSettings) -> (any Provider)? {
        switch settings.kind {
        case "yahoo": return YahooProvider(settings: settings)
        case "stooq": return StooqProvider(settings: settings)
        case "alphavantage": return AlphaVantageProvider(settings: settings)
        case "twelvedata": return TwelveDataProvider(settings: settings)
        case "http-csv": return HTTPCSVProvider(settings: settings)
        default: return nil
        }
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

// MARK: - Yahoo (chart v8)

/// `GET /v8/finance/chart/SYMBOL?interval=1d&range=...`: no key, the exchange's zone and sessions.
public struct YahooProvider: Provider {
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { true }

    /// The smallest range that reaches back to the newest bar on disk (full history the first time).
    static func range(for request: FetchRequest) -> String {
        guard let newest = request.newestBarOnDisk else { return request.slot == .daily ? "10y" : "5d" }
        // (times from a file or a clock at the ends of Int64 must not trap: such an age is "old")
        let (difference, overflow) = request.now.subtractingReportingOverflow(newest)
        let age = overflow ? Int64.max : difference
        if request.slot == .intraday { return age <= 20 * 3600 ? "1d" : "5d" }
        let day: Int64 = 86_400
        for (limit, range) in [(4 * day, "5d"), (27 * day, "1mo"), (88 * day, "3mo"), (178 * day, "6mo"),
                               (360 * day, "1y"), (725 * day, "2y"), (1820 * day, "5y")] where age <= limit {
            return range
        }
        return "10y"
    }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        let interval = request.slot == .daily ? "1d" : "1m"
        let url = joinURL(settings.baseURL, "/v8/finance/chart/\(urlEncode(request.symbol))")
            + "?interval=\(interval)&range=\(YahooProvider.range(for: request))"
            + "&includePrePost=\(request.extendedHours && request.slot == .intraday ? "true" : "false")&events=div%7Csplit"
        return HTTPRequest(url: url, headers: ["Accept: application/json"])
    }

    struct Chart: Decodable {
        struct Body: Decodable {
            var result: [Result]?
            var error: ErrorObject?
        }
        struct ErrorObject: Decodable {
            var code: String?
            var description: String?
        }
        struct Result: Decodable {
            var meta: Meta
            var timestamp: [Int64]?
            var indicators: Indicators?
        }
        struct Period: Decodable {
            var start: Int64
            var end: Int64
        }
        struct TradingPeriods: Decodable {
            var pre: Period?
            var regular: Period?
            var post: Period?
        }
        struct Meta: Decodable {
            var currency: String?
            var symbol: String?
            var instrumentType: String?
            var exchangeTimezoneName: String?
            var regularMarketPrice: Double?
            var regularMarketTime: Int64?
            var chartPreviousClose: Double?
            var previousClose: Double?
            var dataGranularity: String?
            var currentTradingPeriod: TradingPeriods?
        }
        struct Quote: Decodable {
            var open: [Double?]?
            var high: [Double?]?
            var low: [Double?]?
            var close: [Double?]?
            var volume: [Double?]?
        }
        struct AdjClose: Decodable { var adjclose: [Double?]? }
        struct Indicators: Decodable {
            var quote: [Quote]?
            var adjclose: [AdjClose]?
        }
        var chart: Body
    }

    static func errorMessage(_ response: HTTPResponse) -> String? {
        guard case .success(let c) = decodeJSON(Chart.self, response.body), let e = c.chart.error else { return nil }
        return ResponseChecks.oneLine([e.code, e.description].compactMap { $0 }.joined(separator: ": "))
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now, accepted: ["application/json", "text/javascript"],
                                              message: YahooProvider.errorMessage) {
            return .failure(problem)
        }
        let chart: Chart
        switch decodeJSON(Chart.self, response.body) {
        case .success(let c): chart = c
        case .failure(let p): return .failure(p)
        }
        if let e = chart.chart.error {
            return .failure(.providerError(status: response.status, message: ResponseChecks.oneLine(
                [e.code, e.description].compactMap { $0 }.joined(separator: ": "))))
        }
        guard let result = chart.chart.result?.first else { return .failure(.badData("no result in the chart response")) }
        let meta = result.meta
        if let wrong = ResponseChecks.checkSymbol(meta.symbol, asked: request.symbol) { return .failure(wrong) }
        let quote = result.indicators?.quote?.first
        var bars: [PriceBar]
        switch ResponseChecks.bars(times: result.timestamp ?? [], open: quote?.open, high: quote?.high, low: quote?.low,
                                   close: quote?.close, adjustedClose: result.indicators?.adjclose?.first?.adjclose,
                                   volume: quote?.volume) {
        case .success(let b): bars = ResponseChecks.sorted(b)
        case .failure(let p): return .failure(p)
        }
        let granularity = YahooProvider.seconds(ofGranularity: meta.dataGranularity) ?? (request.slot == .daily ? 86_400 : 60)
        let isDaily = granularity >= 86_400
        if isDaily != (request.slot == .daily) {
            return .failure(.badData("asked for \(request.slot) bars, got \(ResponseChecks.oneLine(meta.dataGranularity ?? "?", limit: 20)) bars"))
        }
        let tz = zone(meta.exchangeTimezoneName)
        if isDaily {
            guard let tz else { return .failure(.badData("unknown exchange time zone \"\(meta.exchangeTimezoneName ?? "")\"")) }
            bars = ResponseChecks.sorted(toTradingDates(bars, in: tz))
        } else if bars.count >= 2, let last = bars.last, last.time == meta.regularMarketTime,
            last.time.subtractingReportingOverflow(bars[bars.count - 2].time).partialValue % Int64(max(1, granularity)) != 0
        {
            // Yahoo appends the live price stamped with the quote time; off the bar grid it would stay
            // in the merged file as an extra point between two minutes.
            bars.removeLast()
        }
        var data = ProviderData(bars: bars, interval: isDaily ? .daily : .intraday(seconds: granularity))
        data.symbol = meta.symbol
        data.currency = meta.currency
        data.exchangeTimeZone = meta.exchangeTimezoneName
        data.price = meta.regularMarketPrice.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        data.priceTime = meta.regularMarketTime
        data.previousClose = meta.previousClose ?? (isDaily ? nil : meta.chartPreviousClose)
        if isDaily, bars.count >= 2 { data.previousClose = bars[bars.count - 2].close }
        data.tradesAroundTheClock = meta.instrumentType == "CRYPTOCURRENCY"
        if let regular = meta.currentTradingPeriod?.regular, regular.start < regular.end { data.regularSession = regular.start..<regular.end }
        data.marketState = YahooProvider.marketState(meta.currentTradingPeriod, now: request.now,
                                                     aroundTheClock: data.tradesAroundTheClock)
        return .success(data)
    }

    static func seconds(ofGranularity text: String?) -> Int? {
        guard let text else { return nil }
        let table: [String: Int] = ["1m": 60, "2m": 120, "5m": 300, "15m": 900, "30m": 1800, "60m": 3600, "90m": 5400,
                                    "1h": 3600, "1d": 86_400, "5d": 432_000, "1wk": 604_800, "1mo": 2_592_000, "3mo": 7_776_000]
        return table[text]
    }

    /// From the provider's trading periods: which part of the day `now` is in.
    static func marketState(_ periods: Chart.TradingPeriods?, now: Int64, aroundTheClock: Bool) -> String? {
        if aroundTheClock { return "REGULAR" }
        guard let periods, let regular = periods.regular else { return nil }
        // Plain comparisons, not ranges: a damaged response may have start > end.
        func within(_ p: Chart.Period?) -> Bool { p.map { $0.start <= now && now < $0.end } ?? false }
        if within(regular) { return "REGULAR" }
        if within(periods.pre) { return "PRE" }
        if within(periods.post) { return "POST" }
        return "CLOSED"
    }
}

// MARK: - Stooq (daily CSV)

/// `GET /q/d/l/?s=aapl.us&i=d&apikey=KEY`: daily bars only, no time zone or currency.
public struct StooqProvider: Provider {
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { slot == .daily }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        var url = joinURL(settings.baseURL, "/q/d/l/") + "?s=\(urlEncode(request.symbol.lowercased()))&i=d"
        if let newest = request.newestBarOnDisk {
            // Only the recent rows: less to download, and the history on disk is kept anyway.
            let from = CivilDate(unixTime: newest.subtractingReportingOverflow(7 * 86_400).overflow ? newest : newest - 7 * 86_400)
            url += "&d1=\(from.description.filter { $0 != "-" })"
        }
        if let key = settings.key { url += "&apikey=\(urlEncode(key.value))" }
        return HTTPRequest(url: url, headers: ["Accept: text/csv"])
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now,
                                              accepted: ["text/csv", "text/plain", "application/csv", "application/octet-stream"]) {
            return .failure(problem)
        }
        let text = ResponseChecks.firstLine(of: response.body)
        if text.lowercased().hasPrefix("no data") {
            return .failure(.providerError(status: response.status, message: "\"No data\": unknown symbol \(request.symbol)?"))
        }
        if text.lowercased().contains("exceeded the daily hits limit") {
            return .failure(.rateLimited(retryAfter: nil, message: text))
        }
        var body = response.body
        // stooq.pl writes Polish column names.
        let polish = [("Data", "Date"), ("Otwarcie", "Open"), ("Najwyzszy", "High"), ("Najnizszy", "Low"),
                      ("Zamkniecie", "Close"), ("Wolumen", "Volume")]
        if text.hasPrefix("Data,") {
            var header = text
            for (pl, en) in polish { header = header.replacing(pl, with: en) }
            let end = body.firstIndex(of: 0x0A) ?? body.count
            var lineEnd = end
            if lineEnd > 0, body[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            body = Array(header.utf8) + body[lineEnd...]
        }
        return CSVBody.parse(body, request: request, provider: settings.name).map { data in
            var d = data
            d.symbol = request.symbol
            if d.bars.count >= 2 { d.previousClose = d.bars[d.bars.count - 2].close }
            return d
        }
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

// MARK: - Alpha Vantage

/// `GET /query?function=TIME_SERIES_DAILY|TIME_SERIES_INTRADAY&symbol=...&apikey=KEY`. Every error
/// and limit arrives at HTTP 200 as `Note`, `Information` or `Error Message`.
public struct AlphaVantageProvider: Provider {
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { true }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        var url = joinURL(settings.baseURL, "/query") + "?symbol=\(urlEncode(request.symbol))"
        switch request.slot {
        case .daily: url += "&function=TIME_SERIES_DAILY&outputsize=compact"
        case .intraday:
            url += "&function=TIME_SERIES_INTRADAY&interval=1min&outputsize=compact&extended_hours=\(request.extendedHours)"
        }
        url += "&apikey=\(urlEncode(settings.key?.value ?? "demo"))"
        return HTTPRequest(url: url, headers: ["Accept: application/json"])
    }

    struct Body: Decodable {
        var meta: [String: String]?
        var series: [String: [String: String]]?
        var seriesName: String?
        var note: String?
        var information: String?
        var errorMessage: String?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            for key in c.allKeys {
                switch key.stringValue {
                case "Meta Data": meta = try c.decode([String: String].self, forKey: key)
                case "Note": note = try? c.decode(String.self, forKey: key)
                case "Information": information = try? c.decode(String.self, forKey: key)
                case "Error Message": errorMessage = try? c.decode(String.self, forKey: key)
                case let name where name.hasPrefix("Time Series"):
                    series = try c.decode([String: [String: String]].self, forKey: key)
                    seriesName = name
                default: continue
                }
            }
        }
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now, accepted: ["application/json", "text/json"]) {
            return .failure(problem)
        }
        let body: Body
        switch decodeJSON(Body.self, response.body) {
        case .success(let b): body = b
        case .failure(let p): return .failure(p)
        }
        if let note = body.note ?? body.information {
            let text = ResponseChecks.oneLine(note)
            let lower = text.lowercased()
            if lower.contains("rate limit") || lower.contains("call frequency") || lower.contains("requests per day") {
                return .failure(.rateLimited(retryAfter: nil, message: text))
            }
            if lower.contains("apikey") || lower.contains("api key") { return .failure(.unauthorized(status: 200, message: text)) }
            return .failure(.providerError(status: 200, message: text))
        }
        if let error = body.errorMessage {
            let text = ResponseChecks.oneLine(error)
            if text.lowercased().contains("apikey") { return .failure(.unauthorized(status: 200, message: text)) }
            return .failure(.providerError(status: 200, message: text))
        }
        guard let series = body.series, let meta = body.meta else { return .failure(.notData("no time series in the response")) }
        let symbol = meta.first { $0.key.hasSuffix("Symbol") }?.value
        if let wrong = ResponseChecks.checkSymbol(symbol, asked: request.symbol) { return .failure(wrong) }
        let zoneName = meta.first { $0.key.hasSuffix("Time Zone") }?.value
        guard let tz = zone(zoneName) else { return .failure(.badData("unknown time zone \"\(ResponseChecks.oneLine(zoneName ?? "", limit: 40))\"")) }
        let isDaily = body.seriesName?.contains("Daily") ?? false
        if isDaily != (request.slot == .daily) { return .failure(.badData("asked for \(request.slot) bars, got \(ResponseChecks.oneLine(body.seriesName ?? "?", limit: 40))")) }
        let names = ["1. open", "2. high", "3. low", "4. close", "5. volume"]
        let rows = series.lazy.map { (stamp, values) in (stamp, names.map { values[$0] }) }
        return textBars(rows, fields: names, daily: isDaily, zone: tz).map { data in
            var data = data
            data.symbol = symbol
            data.exchangeTimeZone = tz.identifier == "US/Eastern" ? "America/New_York" : tz.identifier
            return data
        }
    }
}

// MARK: - Twelve Data

/// `GET /time_series?symbol=...&interval=1day|1min&outputsize=...`, key in the Authorization
/// header (so it is in no URL). Errors are `{"code":..., "status":"error"}`, sometimes at 200.
public struct TwelveDataProvider: Provider {
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { true }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        let size = request.newestBarOnDisk == nil ? 5000 : (request.slot == .daily ? 30 : 500)
        let url = joinURL(settings.baseURL, "/time_series")
            + "?symbol=\(urlEncode(request.symbol))&interval=\(request.slot == .daily ? "1day" : "1min")&outputsize=\(size)&timezone=Exchange"
        var headers = ["Accept: application/json"]
        if let key = settings.key { headers.append("Authorization: apikey \(key.value)") }
        return HTTPRequest(url: url, headers: headers)
    }

    struct Body: Decodable {
        struct Meta: Decodable {
            var symbol: String?
            var interval: String?
            var currency: String?
            var exchange_timezone: String?
        }
        struct Value: Decodable {
            var datetime: String
            var open: String?
            var high: String?
            var low: String?
            var close: String?
            var volume: String?
        }
        var meta: Meta?
        var values: [Value]?
        var status: String?
        var code: Int?
        var message: String?
    }

    static func errorMessage(_ response: HTTPResponse) -> String? {
        guard case .success(let b) = decodeJSON(Body.self, response.body), let m = b.message else { return nil }
        return ResponseChecks.oneLine(m)
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now, accepted: ["application/json"],
                                              message: TwelveDataProvider.errorMessage) {
            return .failure(problem)
        }
        let body: Body
        switch decodeJSON(Body.self, response.body) {
        case .success(let b): body = b
        case .failure(let p): return .failure(p)
        }
        if body.status == "error" {
            let message = ResponseChecks.oneLine(body.message ?? "error")
            switch body.code ?? 400 {
            case 429: return .failure(.rateLimited(retryAfter: nil, message: message))
            case 401, 403: return .failure(.unauthorized(status: body.code ?? 401, message: message))
            case 500..<600: return .failure(.serverError(status: body.code ?? 500, message: message))
            default: return .failure(.providerError(status: body.code ?? 400, message: message))
            }
        }
        guard let meta = body.meta, let values = body.values else { return .failure(.notData("no meta/values in the response")) }
        if let wrong = ResponseChecks.checkSymbol(meta.symbol, asked: request.symbol) { return .failure(wrong) }
        guard let tz = zone(meta.exchange_timezone) else { return .failure(.badData("unknown time zone \"\(ResponseChecks.oneLine(meta.exchange_timezone ?? "", limit: 40))\"")) }
        let isDaily = meta.interval == "1day"
        if isDaily != (request.slot == .daily) { return .failure(.badData("asked for \(request.slot) bars, got \(ResponseChecks.oneLine(meta.interval ?? "?", limit: 20))")) }
        let rows = values.lazy.map { ($0.datetime, [$0.open, $0.high, $0.low, $0.close, $0.volume]) }
        return textBars(rows, fields: ["open", "high", "low", "close", "volume"], daily: isDaily, zone: tz).map { data in
            var data = data
            data.symbol = meta.symbol
            data.currency = meta.currency
            data.exchangeTimeZone = meta.exchange_timezone
            return data
        }
    }
}

// MARK: - http-csv (the fleet pattern)

/// `GET BASE/FILE` where FILE is the instrument's data file name (`AAPL.csv`, `AAPL-1m.csv`): any web
/// server holding Yahoo-layout CSV files, typically another Tickerboard's data directory.
public struct HTTPCSVProvider: Provider {
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { true }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        let name = request.fileName.split(separator: "/").last.map(String.init) ?? request.fileName
        var headers = ["Accept: text/csv"]
        if let key = settings.key { headers.append("Authorization: Bearer \(key.value)") }
        return HTTPRequest(url: joinURL(settings.baseURL, "/" + urlEncode(name)), headers: headers)
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now, accepted: [
            "text/csv", "text/plain", "application/csv", "text/comma-separated-values", "application/octet-stream",
            "binary/octet-stream",
        ]) {
            return .failure(problem)
        }
        return CSVBody.parse(response.body, request: request, provider: settings.name)
    }
}
