import Feed

/// CoinGecko's keyless tier: `GET /coins/{id}/market_chart/range?vs_currency=eur&from=S&to=S`
/// answers `{"prices": [[ms, price], ...], "market_caps": [...], "total_volumes": [...]}`, oldest
/// first, the last point "now" (docs.coingecko.com, Coin Historical Chart Data within Time Range).
/// The spacing follows the range: 5 minutes within a day, hourly up to 90 days, daily (00:00 UTC)
/// beyond; keyless callers reach back 365 days at most. Prices only: a bar's open, high and low
/// are its close, and no volume (`total_volumes` is a rolling 24-hour sum in the quote currency,
/// not the bar's). Errors: 404 `{"error":"coin not found"}`, 429 `{"status":{"error_code":429,
/// "error_message":"You've exceeded the Rate Limit..."}}` with Retry-After.
///
/// The coin is CoinGecko's id (`bitcoin`), not its ticker: `BTC-EUR` is id `bitcoin` in `eur` from
/// the table below; `coingecko-symbol = ID:VS` (`coingecko-symbol = wrapped-bitcoin:eur`) names any
/// other, the id as the coin's CoinGecko page gives it ("API ID").
public struct CoinGeckoProvider: Provider {
    public static let kind = "coingecko"
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    public func supports(_ slot: Slot) -> Bool { true }

    /// CoinGecko's ids of common coins, by ticker.
    static let ids: [String: String] = [
        "BTC": "bitcoin", "ETH": "ethereum", "SOL": "solana", "XRP": "ripple", "ADA": "cardano", "DOGE": "dogecoin",
        "DOT": "polkadot", "LTC": "litecoin", "BCH": "bitcoin-cash", "LINK": "chainlink", "XLM": "stellar",
        "AVAX": "avalanche-2", "TRX": "tron", "BNB": "binancecoin", "ATOM": "cosmos", "XMR": "monero",
        "ETC": "ethereum-classic", "SHIB": "shiba-inu", "USDT": "tether", "USDC": "usd-coin",
    ]

    /// The coin id and the currency to price it in: `ID:VS`, or a pair whose base the table knows.
    static func coin(_ symbol: String) -> (id: String, vs: String)? {
        let parts = symbol.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2 {
            let id = parts[0].lowercased(), vs = parts[1].lowercased()
            let idOK = !id.isEmpty && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }
            let vsOK = (2...12).contains(vs.count) && vs.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            return idOK && vsOK ? (id, vs) : nil
        }
        guard let pair = CryptoPair(symbol), let id = ids[pair.base] else { return nil }
        return (id, pair.quote.lowercased())
    }

    public static func symbolProblem(_ symbol: String, name: String) -> String? {
        guard coin(symbol) == nil else { return nil }
        let who = name == kind ? name : "\(name) (\(kind))"
        if let pair = CryptoPair(symbol) {
            return "\(who) has no id for \(pair.base) in its table (\(ids.keys.sorted().joined(separator: " "))): "
                + "set \(name)-symbol = ID:\(pair.quote.lowercased()), the API id of the coin's CoinGecko page"
        }
        return "\(who) needs a pair like BTC-EUR or \(name)-symbol = ID:VS like bitcoin:eur, found \"\(symbol)\""
    }

    /// Keyless callers may reach back 365 days; a day's worth is 5-minutely.
    static func window(for request: FetchRequest) -> (from: Int64, to: Int64) {
        let back: Int64 = request.slot == .daily ? 364 * 86_400 : 86_400 - 60
        let (from, overflow) = request.now.subtractingReportingOverflow(back)
        return (overflow ? 0 : max(0, from), max(0, request.now))
    }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        let (id, vs) = Self.coin(request.symbol) ?? (request.symbol.lowercased(), "usd")
        let (from, to) = Self.window(for: request)
        let url = joinURL(settings.baseURL, "/coins/\(urlEncode(id))/market_chart/range")
            + "?vs_currency=\(urlEncode(vs))&from=\(from)&to=\(to)"
        return HTTPRequest(url: url, headers: ["Accept: application/json"])
    }

    struct Body: Decodable {
        var prices: [[JSONScalar]]?
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        let coin = Self.coin(request.symbol)
        // 401 without a key is not a refused key: error 10012 is a range past the keyless 365 days.
        if response.status == 401, case .success(let e) = decodeJSON(CryptoCandles.ErrorBody.self, response.body),
            e.nested?.status?.error_code == 10012
        {
            return .failure(.providerError(status: 401, message: CryptoCandles.errorMessage(response.body) ?? "error 10012"))
        }
        if let problem = ResponseChecks.check(response, now: request.now, accepted: ["application/json"], message: { r in
            CryptoCandles.errorMessage(r.body).map { said in
                r.status == 404 && said.lowercased().contains("not found")
                    ? "\(said) (no CoinGecko id \"\(coin?.id ?? request.symbol)\": coingecko-symbol = ID:VS names it)" : said
            }
        }) {
            return .failure(problem)
        }
        if let said = CryptoCandles.errorMessage(response.body) {
            return .failure(said.lowercased().contains("rate limit") ? .rateLimited(retryAfter: response.retryAfter(now: request.now), message: said)
                : .providerError(status: response.status, message: said))
        }
        let body: Body
        switch decodeJSON(Body.self, response.body) {
        case .success(let b): body = b
        case .failure(let p): return .failure(p)
        }
        guard let prices = body.prices else { return .failure(.notData("no \"prices\" in the response")) }
        guard !prices.isEmpty else { return .failure(.badData("no prices for \(coin?.id ?? request.symbol) (an empty chart)")) }
        var instants: [Int64] = [], closes: [Double?] = []
        for (i, point) in prices.enumerated() {
            guard point.count >= 2, let ms = point[0].integer, let price = point[1].double else {
                return .failure(.badData("price \(i + 1) is not [milliseconds, price]: \(point.prefix(3).map(\.described).joined(separator: ", "))"))
            }
            // From 1970 to the end of year 9999, as the data files can hold.
            guard (0..<253_402_300_800_000).contains(ms) else { return .failure(.badData("price \(i + 1) is at \(ms) ms, no time of a price")) }
            instants.append(ms / 1000)
            closes.append(price)
        }
        // A day asked for is 5-minutely; points an hour or more apart (but for the last, "now")
        // are another range's spacing, not the minutes of 1D.
        if request.slot == .intraday, instants.count >= 3 {
            let ordered = instants.sorted().dropLast()
            let closest = zip(ordered, ordered.dropFirst()).map { $1 &- $0 }.min() ?? 0
            if closest > 3600 {
                return .failure(.badData("asked for a day of 5-minute prices, the closest are \(closest / 60) minutes apart"))
            }
        }
        let newest = instants.last
        return ResponseChecks.bars(times: instants.map { Self.barTime($0, slot: request.slot) }, open: nil, high: nil, low: nil,
                                   close: closes).flatMap { raw in
            let bars = ResponseChecks.sorted(raw)
            var data = CryptoCandles.data(bars, slot: request.slot, currency: coin?.vs.uppercased(), symbol: request.symbol)
            data.price = closes.last.flatMap { $0 }
            data.priceTime = newest
            return .success(data)
        }
    }

    /// A point's bar (`t` from 1970 on): intraday, the 5-minute bar it falls in (the last point, "now", updates the
    /// newest bar until a later answer brings that bar's own point). Daily, a point at 00:00 UTC
    /// is the price the day before closed on (CoinGecko's daily points are taken at midnight), so
    /// it is that day's bar; the last point is today's so far.
    static func barTime(_ t: Int64, slot: Slot) -> Int64 {
        slot == .intraday ? t - t % CryptoCandles.intradaySeconds : CivilDate(unixTime: max(0, t - 1)).unixTimeAtMidnightUTC
    }
}
