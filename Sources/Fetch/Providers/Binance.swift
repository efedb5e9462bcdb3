import Feed

/// Binance's public klines, no key: `GET /api/v3/klines?symbol=BTCEUR&interval=1d|5m&limit=N`
/// answers `[[openTime ms, "open", "high", "low", "close", "volume", closeTime ms, ...], ...]`,
/// oldest first, the last one still open (developers.binance.com, Spot API, Market data
/// endpoints, Kline/Candlestick data; data-api.binance.vision serves the public market data
/// without an account). Errors are `{"code": -1121, "msg": "Invalid symbol."}` at 400; past the
/// request weight 429 with Retry-After, and 418 with Retry-After for an IP banned for going on.
public struct BinanceProvider: ExchangeCandles {
    public static let kind = "binance"
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    /// Binance's symbol: base and quote run together, `BTCEUR`.
    static func symbol(_ symbol: String) -> String {
        CryptoPair(symbol).map { $0.base + $0.quote } ?? symbol.uppercased()
    }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        let url = joinURL(settings.baseURL, "/api/v3/klines") + "?symbol=\(urlEncode(Self.symbol(request.symbol)))"
            + "&interval=\(request.slot == .daily ? "1d" : "5m")&limit=\(CryptoCandles.count(for: request, maximum: 1000))"
        return HTTPRequest(url: url, headers: ["Accept: application/json"])
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        let asked = Self.symbol(request.symbol)
        let error = CryptoCandles.errorMessage(response.body)
        // 418: banned for going on after 429s; as a rate limit, so the whole provider waits.
        if response.status == 418 {
            return .failure(.rateLimited(retryAfter: response.retryAfter(now: request.now), message: "HTTP 418: " + (error ?? "IP banned")))
        }
        if let problem = ResponseChecks.check(response, now: request.now, accepted: ["application/json"], message: { r in
            error.map { r.status == 400 && $0.lowercased().contains("invalid symbol") ? "\($0) (\(asked))" : $0 }
        }) {
            return .failure(problem)
        }
        if let error {
            // An error object at 200: -1003 is "too much request weight".
            if case .success(let e) = decodeJSON(CryptoCandles.ErrorBody.self, response.body), e.code == -1003 {
                return .failure(.rateLimited(retryAfter: response.retryAfter(now: request.now), message: error))
            }
            return .failure(.providerError(status: response.status, message: error))
        }
        let rows: [[JSONScalar]]
        switch decodeJSON([[JSONScalar]].self, response.body) {
        case .success(let r): rows = r
        case .failure(let p): return .failure(p)
        }
        let width = CryptoCandles.seconds(request.slot) * 1000
        let bars = CryptoCandles.bars(rows, slot: request.slot, empty: "no klines for \(asked) (an empty list)") { row throws(FetchProblem) in
            // [openTime ms, "open", "high", "low", "close", "volume", closeTime ms, ...]: a kline's
            // close time is the last millisecond of its interval, so it tells the interval.
            let open = try row.time(0, "open time"), close = try row.time(6, "close time")
            let span = close.subtractingReportingOverflow(open).partialValue &+ 1
            guard span == width else {
                throw .badData("kline \(row.index + 1) spans \(span) ms (open \(open), close \(close)): not \(request.slot == .daily ? "1d" : "5m") klines")
            }
            return CryptoCandles.Candle(time: open / 1000, open: try row.number(1, "open"), high: try row.number(2, "high"),
                                        low: try row.number(3, "low"), close: try row.number(4, "close"), volume: try row.number(5, "volume"))
        }
        return bars.map { CryptoCandles.data($0, slot: request.slot, currency: CryptoPair(request.symbol)?.quote, symbol: asked) }
    }
}
