import Feed
import FoundationEssentials

/// `GET /query?function=TIME_SERIES_DAILY|TIME_SERIES_INTRADAY&symbol=...&apikey=KEY`. Every error
/// and limit arrives at HTTP 200 as `Note`, `Information` or `Error Message`.
public struct AlphaVantageProvider: Provider {
    public static let kind = "alphavantage"
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
