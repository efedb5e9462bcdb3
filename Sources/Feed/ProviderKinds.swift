/// The provider kinds the fetcher has an adapter for, and what each needs: the one table the
/// fetcher's config, its adapters (`Fetch/Providers/`, one file per kind) and the daemon's config
/// check read. A new provider is a row here and a file there (a test checks the two agree).
public struct ProviderKind: Sendable, Equatable {
    /// The name in `kind =` and, for the built-in ones, the provider's own name (`providers = yahoo`).
    public let name: String
    /// Where requests go unless `base-url` says otherwise ("" when the user must say: http-csv).
    public let baseURL: String
    /// The documented free tier (Yahoo publishes none: a polite rate that stays clear of its 429s).
    public let rate: [RateLimit]
    /// Cannot work without a key.
    public let needsKey: Bool

    /// A provider of this name exists without a `[provider]` section (all but http-csv, which
    /// needs a URL only the user knows).
    public var isBuiltIn: Bool { !baseURL.isEmpty }

    public static let all: [ProviderKind] = [
        ProviderKind(name: "yahoo", baseURL: "https://query1.finance.yahoo.com",
                     rate: [RateLimit(count: 30, seconds: 60), RateLimit(count: 2000, seconds: 86_400)], needsKey: false),
        ProviderKind(name: "stooq", baseURL: "https://stooq.com",
                     rate: [RateLimit(count: 10, seconds: 60), RateLimit(count: 500, seconds: 86_400)], needsKey: true),
        ProviderKind(name: "alphavantage", baseURL: "https://www.alphavantage.co",
                     rate: [RateLimit(count: 5, seconds: 60), RateLimit(count: 25, seconds: 86_400)], needsKey: true),
        ProviderKind(name: "twelvedata", baseURL: "https://api.twelvedata.com",
                     rate: [RateLimit(count: 8, seconds: 60), RateLimit(count: 800, seconds: 86_400)], needsKey: true),
        ProviderKind(name: "http-csv", baseURL: "", rate: [RateLimit(count: 60, seconds: 60)], needsKey: false),
        // Keyless crypto, from the exchanges themselves (and CoinGecko's keyless tier).
        // Coinbase Exchange: public endpoints 10 requests/s per IP, bursts to 15
        // (docs.cdp.coinbase.com/exchange/rest-api/rate-limits).
        ProviderKind(name: "coinbase", baseURL: "https://api.exchange.coinbase.com",
                     rate: [RateLimit(count: 10, seconds: 1)], needsKey: false),
        // Kraken: a call counter of at most 15 that decays 0.33/s on the lowest tier
        // (docs.kraken.com, Spot REST rate limits): 15 calls in any 45 s never pass it.
        ProviderKind(name: "kraken", baseURL: "https://api.kraken.com",
                     rate: [RateLimit(count: 15, seconds: 45)], needsKey: false),
        // Binance: request weight 6000/min per IP, a klines call weighs 2 (developers.binance.com,
        // Spot API limits and Kline/Candlestick data); data-api.binance.vision is its market-data-only host.
        ProviderKind(name: "binance", baseURL: "https://data-api.binance.vision",
                     rate: [RateLimit(count: 3000, seconds: 60)], needsKey: false),
        // CoinGecko without a key: limited by IP, no number given (docs.coingecko.com, Errors & Rate
        // Limits); it used to say 5 to 15 calls/min, varying with global load: the low end.
        ProviderKind(name: "coingecko", baseURL: "https://api.coingecko.com/api/v3",
                     rate: [RateLimit(count: 5, seconds: 60)], needsKey: false),
    ]

    /// What an instrument uses when it names no provider.
    public static let defaultProviders = ["yahoo"]

    public static func named(_ name: String) -> ProviderKind? { all.first { $0.name == name } }
}
