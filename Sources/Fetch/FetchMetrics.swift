// What the fetcher says to Prometheus: `tickerboard-fetch.prom` in node_exporter's textfile format,
// beside the daemon's `tickerboard.prom` (issue 53 item 4). The requests, failures and rate-limit
// answers per provider are the fetcher's to count: the display daemon makes no request and links
// no network code, so they cannot be in its file.

import Feed

/// Counts since the fetcher started (counters: a restart begins them again, as Prometheus expects).
public struct ProviderCounts: Sendable, Equatable {
    public var requests = 0
    public var failures = 0
    /// Answers that asked us to slow down: HTTP 429, a 503 with Retry-After, a rate-limit message.
    public var rateLimited = 0

    public init(requests: Int = 0, failures: Int = 0, rateLimited: Int = 0) {
        self.requests = requests
        self.failures = failures
        self.rateLimited = rateLimited
    }
}

public struct FetchMetrics: Sendable, Equatable {
    public var providers: [String: ProviderCounts] = [:]

    public init() {}

    mutating func requested(_ provider: String) { providers[provider, default: ProviderCounts()].requests += 1 }

    mutating func failed(_ provider: String, _ problem: FetchProblem) {
        providers[provider, default: ProviderCounts()].failures += 1
        if case .rateLimited = problem { providers[provider, default: ProviderCounts()].rateLimited += 1 }
    }

    /// The file's text: every provider configured (`names`) with its counts, 0 when none yet, whether
    /// it is backing off now, and each file's last good fetch.
    public func text(names: [String], scheduler: Scheduler, version: String, now: Int64) -> String {
        var out = PrometheusText()
        let names = names.sorted()
        func perProvider(_ value: (ProviderCounts) -> Int) -> [(labels: String, value: Double?)] {
            names.map { (PrometheusText.labels([("provider", $0)]), Double(value(providers[$0] ?? ProviderCounts()))) }
        }
        out.family("tickerboard_fetch_build_info", "gauge", "The running version (always 1).",
                   [(PrometheusText.labels([("version", version)]), 1)])
        out.family("tickerboard_fetch_requests_total", "counter", "Requests sent to each provider since the fetcher started.",
                   perProvider(\.requests))
        out.family("tickerboard_fetch_failures_total", "counter",
                   "Requests to each provider that gave no usable answer (network, HTTP, refused data).", perProvider(\.failures))
        out.family("tickerboard_fetch_rate_limited_total", "counter",
                   "Answers of each provider that asked to slow down (HTTP 429, Retry-After, a rate-limit message).",
                   perProvider(\.rateLimited))
        out.family("tickerboard_fetch_provider_backing_off", "gauge", "1 while a provider is held back after a provider-wide failure.",
                   names.map { (PrometheusText.labels([("provider", $0)]), (scheduler.providerBackoff[$0]?.until ?? 0) > now ? 1 : 0) })
        out.family("tickerboard_fetch_last_success_timestamp_seconds", "gauge", "When each file was last fetched with a good answer.",
                   scheduler.lastSuccess.sorted { $0.key < $1.key }.map { key, time in
                       let parts = key.split(separator: "|", omittingEmptySubsequences: false)
                       return (PrometheusText.labels([("instrument", String(parts.first ?? "")), ("slot", parts.count > 1 ? String(parts[1]) : "")]),
                               Double(time))
                   })
        return out.text
    }
}
