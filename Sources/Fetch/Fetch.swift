// Fetch: the only part of Tickerboard that talks to the network. It asks market-data providers
// (Yahoo, Stooq, Alpha Vantage, Twelve Data, the crypto exchanges Coinbase, Kraken and Binance,
// CoinGecko, or any web server with CSV files) for bars, checks
// every response before trusting it, merges the new bars into the existing Yahoo-layout CSV files
// and replaces them atomically, and keeps a small status file per instrument. When to ask whom is
// decided by a pure scheduler (request budget, market hours, backoff); HTTP goes through libcurl.
//
// Rule one: never make data worse. A response that is not clearly good leaves the files as they
// were, byte for byte; the problem goes to the status file and the log.

import Feed

/// What a provider's response said, after parsing and checking.
public struct ProviderData: Sendable, Equatable {
    /// Bars in time order, every present price finite and positive.
    public var bars: [PriceBar]
    public var interval: BarInterval
    /// The symbol the response is about, as the provider spells it (checked against the request).
    public var symbol: String?
    public var currency: String?
    /// IANA zone of the exchange, when the provider says.
    public var exchangeTimeZone: String?
    public var marketState: String?
    public var delaySeconds: Int?
    public var price: Double?
    public var previousClose: Double?
    /// The instant of the newest price, when the provider says.
    public var priceTime: Int64?
    /// Around-the-clock instruments (crypto), when the provider tells.
    public var tradesAroundTheClock = false
    /// Today's (or the next) regular session as the provider reports it, unix seconds.
    public var regularSession: Range<Int64>?

    public init(bars: [PriceBar], interval: BarInterval) {
        self.bars = bars
        self.interval = interval
    }
}

/// Why a fetch produced nothing usable. The description is one line for the log and the status
/// file; it never contains a key (see `Secrets.redact`).
public enum FetchProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No HTTP answer: timeout, refused, reset, too large, redirect loop.
    case transport(TransportError)
    /// The provider asks us to slow down (HTTP 429, or a rate-limit message at 200).
    case rateLimited(retryAfter: Int?, message: String)
    /// 5xx: the provider is in trouble; try later.
    case serverError(status: Int, message: String)
    /// The key was refused (401/403 or the provider's own words).
    case unauthorized(status: Int, message: String)
    /// Another 4xx, or an error object in a 200 (unknown symbol, bad parameters).
    case providerError(status: Int, message: String)
    /// The body is not what the provider sends: HTML, a wrong content type, broken JSON or CSV.
    case notData(String)
    /// The response is well-formed but unusable: empty, wrong symbol, impossible prices.
    case badData(String)

    public var description: String {
        switch self {
        case .transport(let error): return "\(error)"
        case .rateLimited(let retryAfter, let message):
            return "rate limited" + (retryAfter.map { " (Retry-After \($0) s)" } ?? "") + (message.isEmpty ? "" : ": \(message)")
                + (isEdgeLimit ? " (the provider's edge: waiting at least 15 min)" : "")
        case .serverError(let status, let message): return "HTTP \(status)" + (message.isEmpty ? "" : ": \(message)")
        case .unauthorized(let status, let message):
            return "key refused (HTTP \(status))" + (message.isEmpty ? "" : ": \(message)")
        case .providerError(let status, let message): return "HTTP \(status): \(message)"
        case .notData(let message): return message
        case .badData(let message): return message
        }
    }

    /// Problems that say something about the provider as a whole (every instrument would see them),
    /// so the backoff applies to the provider, not only to this instrument.
    public var affectsWholeProvider: Bool {
        switch self {
        case .transport, .rateLimited, .serverError, .unauthorized: return true
        case .providerError, .notData, .badData: return false
        }
    }

    /// How long to wait at least: the server's `Retry-After`, when it sent one; an edge limit 15 min
    /// at least (Yahoo's "Edge: Too Many Requests" lasts that long or more: asking again each minute
    /// only extends it, while the next provider in `providers =` serves meanwhile).
    public var retryAfter: Int? {
        guard case .rateLimited(let seconds, _) = self else { return nil }
        return isEdgeLimit ? max(seconds ?? 0, Self.edgeBackoff) : seconds
    }

    public static let edgeBackoff = 15 * 60

    /// A 429 from the CDN in front of the provider rather than from its API (the body says "Edge:").
    public var isEdgeLimit: Bool {
        guard case .rateLimited(_, let message) = self else { return false }
        return message.lowercased().hasPrefix("edge")
    }
}

/// One request to one provider.
public struct FetchRequest: Sendable, Equatable {
    /// The symbol as this provider spells it.
    public var symbol: String
    public var slot: Slot
    /// Pre- and post-market bars, when the provider has them.
    public var extendedHours = false
    /// The newest bar already on disk, so a provider can ask for less than its full history.
    public var newestBarOnDisk: Int64?
    /// The current time (providers choose the smallest range that reaches back to the file's end).
    public var now: Int64
    /// The file name of this slot's data file, for `http-csv`.
    public var fileName: String

    public init(symbol: String, slot: Slot, now: Int64, fileName: String, extendedHours: Bool = false,
                newestBarOnDisk: Int64? = nil) {
        self.symbol = symbol
        self.slot = slot
        self.now = now
        self.fileName = fileName
        self.extendedHours = extendedHours
        self.newestBarOnDisk = newestBarOnDisk
    }
}
