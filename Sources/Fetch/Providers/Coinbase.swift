import Feed

/// Coinbase Exchange's public candles, no key:
/// `GET /products/BTC-EUR/candles?granularity=86400|300` answers the newest 300 candles as
/// `[[time, low, high, open, close, volume], ...]`, newest first (docs.cdp.coinbase.com, Exchange
/// REST API, Get product candles). Errors are 4xx with `{"message": "..."}` (404 `NotFound` for a
/// product that does not exist), 429 past the public limit.
public struct CoinbaseProvider: ExchangeCandles {
    public static let kind = "coinbase"
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    /// The product id: the pair as Coinbase writes it, `BTC-EUR`.
    static func product(_ symbol: String) -> String {
        CryptoPair(symbol).map { "\($0.base)-\($0.quote)" } ?? symbol.uppercased()
    }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        // Without start and end Coinbase answers the newest 300 candles: 300 days, or 25 hours of 5 minutes.
        let url = joinURL(settings.baseURL, "/products/\(urlEncode(Self.product(request.symbol)))/candles")
            + "?granularity=\(CryptoCandles.seconds(request.slot))"
        return HTTPRequest(url: url, headers: ["Accept: application/json"])
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        let product = Self.product(request.symbol)
        if let problem = ResponseChecks.check(response, now: request.now, accepted: ["application/json"], message: { r in
            CryptoCandles.errorMessage(r.body).map { r.status == 404 ? "\($0) (no product \(product) on Coinbase?)" : $0 }
        }) {
            return .failure(problem)
        }
        if let said = CryptoCandles.errorMessage(response.body) {
            return .failure(.providerError(status: response.status, message: said))
        }
        let rows: [[JSONScalar]]
        switch decodeJSON([[JSONScalar]].self, response.body) {
        case .success(let r): rows = r
        case .failure(let p): return .failure(p)
        }
        let bars = CryptoCandles.bars(rows, slot: request.slot, empty: "no candles for \(product) (an empty list: no trades in the window?)") {
            row throws(FetchProblem) in
            // [time, low, high, open, close, volume]
            CryptoCandles.Candle(time: try row.time(0), open: try row.number(3, "open"), high: try row.number(2, "high"),
                                 low: try row.number(1, "low"), close: try row.number(4, "close"), volume: try row.number(5, "volume"))
        }
        return bars.map { CryptoCandles.data($0, slot: request.slot, currency: CryptoPair(request.symbol)?.quote, symbol: product) }
    }
}
