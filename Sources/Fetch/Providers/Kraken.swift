import Feed

/// Kraken's public OHLC, no key: `GET /0/public/OHLC?pair=XBTEUR&interval=1440|5[&since=T]`
/// answers `{"error": [], "result": {"XXBTZEUR": [[time, "open", "high", "low", "close", "vwap",
/// "volume", count], ...], "last": T}}`, oldest first, at most the newest 720 candles, the last one
/// still in progress (docs.kraken.com, Spot REST, Get OHLC Data). The result is keyed by Kraken's
/// own name of the pair (XXBTZEUR for XBTEUR), and every error comes at HTTP 200 in `error`:
/// `EQuery:Unknown asset pair`, `EAPI:Rate limit exceeded`, `EService:Unavailable`.
public struct KrakenProvider: ExchangeCandles {
    public static let kind = "kraken"
    public let settings: ProviderSettings
    public init(settings: ProviderSettings) { self.settings = settings }

    /// Kraken's asset codes where they differ from the usual ones (its asset list: XBT, XDG).
    static func code(_ asset: String) -> String {
        switch asset {
        case "BTC": return "XBT"
        case "DOGE": return "XDG"
        default: return asset
        }
    }

    /// The pair as a request names it: `XBTEUR` for BTC-EUR.
    static func pair(_ symbol: String) -> String {
        CryptoPair(symbol).map { code($0.base) + code($0.quote) } ?? symbol.uppercased()
    }

    public func httpRequest(for request: FetchRequest) -> HTTPRequest {
        var url = joinURL(settings.baseURL, "/0/public/OHLC") + "?pair=\(urlEncode(Self.pair(request.symbol)))"
            + "&interval=\(CryptoCandles.seconds(request.slot) / 60)"
        // Only what is newer than the file's newest candle, which may have been in progress.
        if let newest = request.newestBarOnDisk, newest > CryptoCandles.seconds(request.slot) {
            url += "&since=\(newest - CryptoCandles.seconds(request.slot))"
        }
        return HTTPRequest(url: url, headers: ["Accept: application/json"])
    }

    struct Body: Decodable {
        var error: [String]?
        var result: Result?

        struct Result: Decodable {
            var pairs: [(name: String, rows: [[JSONScalar]])] = []
            var last: Int64?

            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: AnyKey.self)
                for key in c.allKeys {
                    if key.stringValue == "last" {
                        last = try? c.decode(Int64.self, forKey: key)
                    } else {
                        pairs.append((key.stringValue, try c.decode([[JSONScalar]].self, forKey: key)))
                    }
                }
            }
        }
    }

    /// Kraken's words for an error, as a problem: too many calls is a rate limit (`EService:
    /// Throttled: T` says until when), the service being down a server error, the rest (an unknown
    /// pair, bad arguments) this instrument's.
    static func problem(_ errors: [String], status: Int, now: Int64) -> FetchProblem {
        let said = ResponseChecks.oneLine(errors.joined(separator: "; "))
        let lower = said.lowercased()
        if lower.contains("throttled") {
            let until = errors.lazy.compactMap { Int64($0.split(separator: ":").last?.trimmingCharacters(in: " ") ?? "") }.first
            let wait = until.map { Int(max(0, min(86_400, $0.subtractingReportingOverflow(now).partialValue))) }
            return .rateLimited(retryAfter: wait, message: said)
        }
        if lower.contains("rate limit") || lower.contains("too many requests") { return .rateLimited(retryAfter: nil, message: said) }
        if lower.hasPrefix("eservice") { return .serverError(status: status, message: said) }
        if lower.contains("unknown asset pair") { return .providerError(status: status, message: said + " (\(Self.kind) has no such pair)") }
        return .providerError(status: status, message: said)
    }

    public func parse(_ response: HTTPResponse, for request: FetchRequest) -> Result<ProviderData, FetchProblem> {
        if let problem = ResponseChecks.check(response, now: request.now, accepted: ["application/json"],
                                              message: { CryptoCandles.errorMessage($0.body) }) {
            return .failure(problem)
        }
        let body: Body
        switch decodeJSON(Body.self, response.body) {
        case .success(let b): body = b
        case .failure(let p): return .failure(p)
        }
        // Warnings (W...) come beside a result; errors (E...) instead of one.
        let errors = (body.error ?? []).filter { !$0.hasPrefix("W") }
        if !errors.isEmpty { return .failure(Self.problem(errors, status: response.status, now: request.now)) }
        guard let result = body.result else { return .failure(.notData("no \"result\" and no \"error\" in the response")) }
        let asked = Self.pair(request.symbol)
        guard let (name, rows) = result.pairs.first(where: { Self.names($0.name, asked: request.symbol) }) else {
            let got = result.pairs.map(\.name).joined(separator: ", ")
            return .failure(got.isEmpty ? .badData("no pair in the result") : .badData("the response is for \"\(ResponseChecks.oneLine(got, limit: 40))\", not \"\(asked)\""))
        }
        let bars = CryptoCandles.bars(rows, slot: request.slot, empty: "no candles for \(name) (an empty list)") { row throws(FetchProblem) in
            // [time, "open", "high", "low", "close", "vwap", "volume", count]
            CryptoCandles.Candle(time: try row.time(0), open: try row.number(1, "open"), high: try row.number(2, "high"),
                                 low: try row.number(3, "low"), close: try row.number(4, "close"), volume: try row.number(6, "volume"))
        }
        return bars.map { CryptoCandles.data($0, slot: request.slot, currency: CryptoPair(request.symbol)?.quote, symbol: name) }
    }

    /// Does Kraken's key name the pair asked for? It may be the name asked (`XBTEUR`), Kraken's
    /// own with X/Z prefixes (`XXBTZEUR`) or the display form (`BTC/EUR`).
    static func names(_ key: String, asked symbol: String) -> Bool {
        let plain = key.uppercased().filter { $0 != "/" }
        guard let pair = CryptoPair(symbol) else { return plain == symbol.uppercased() }
        if plain == pair.base + pair.quote { return true }
        let base = code(pair.base), quote = code(pair.quote)
        return plain.hasSuffix(quote) && plain.dropLast(quote.count).hasSuffix(base)
            || (plain.hasSuffix(quote) && plain.dropLast(quote.count).dropLast().hasSuffix(base))
    }
}
