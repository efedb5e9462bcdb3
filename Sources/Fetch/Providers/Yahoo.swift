import Feed
import FoundationEssentials

/// `GET /v8/finance/chart/SYMBOL?interval=1d&range=...`: no key, the exchange's zone and sessions.
public struct YahooProvider: Provider {
    public static let kind = "yahoo"
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
