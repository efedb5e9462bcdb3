import Feed
import FoundationEssentials

/// `GET /time_series?symbol=...&interval=1day|1min&outputsize=...`, key in the Authorization
/// header (so it is in no URL). Errors are `{"code":..., "status":"error"}`, sometimes at 200.
public struct TwelveDataProvider: Provider {
    public static let kind = "twelvedata"
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
