// tickerboard-fetch.prom: the counts per provider and the text, against a file written by hand from
// the exposition format's rules (https://prometheus.io/docs/instrumenting/exposition_formats/: one
// HELP and one TYPE line per family, `name{label="value"} number`, counters ending in _total).

import Testing

@testable import Feed
@testable import Fetch

@Suite struct FetchMetricsTests {
    @Test func countsAndText() {
        var m = FetchMetrics()
        // yahoo: three requests, one answered 429, one lost on the way; stooq: one good request.
        m.requested("yahoo"); m.requested("yahoo"); m.requested("yahoo")
        m.failed("yahoo", .rateLimited(retryAfter: 60, message: "Too Many Requests"))
        m.failed("yahoo", .transport(.timedOut(seconds: 30)))
        m.requested("stooq")
        var scheduler = Scheduler(limits: [:])
        scheduler.providerBackoff["yahoo"] = Backoff(failures: 2, until: 1_700_000_100)
        scheduler.lastSuccess["AAPL|daily"] = 1_700_000_000
        scheduler.lastSuccess["AAPL|intraday"] = 1_699_999_940
        let text = m.text(names: ["yahoo", "stooq", "twelvedata"], scheduler: scheduler, version: "0.1.0", now: 1_700_000_050)
        #expect(text == """
            # HELP tickerboard_fetch_build_info The running version (always 1).
            # TYPE tickerboard_fetch_build_info gauge
            tickerboard_fetch_build_info{version="0.1.0"} 1
            # HELP tickerboard_fetch_requests_total Requests sent to each provider since the fetcher started.
            # TYPE tickerboard_fetch_requests_total counter
            tickerboard_fetch_requests_total{provider="stooq"} 1
            tickerboard_fetch_requests_total{provider="twelvedata"} 0
            tickerboard_fetch_requests_total{provider="yahoo"} 3
            # HELP tickerboard_fetch_failures_total Requests to each provider that gave no usable answer (network, HTTP, refused data).
            # TYPE tickerboard_fetch_failures_total counter
            tickerboard_fetch_failures_total{provider="stooq"} 0
            tickerboard_fetch_failures_total{provider="twelvedata"} 0
            tickerboard_fetch_failures_total{provider="yahoo"} 2
            # HELP tickerboard_fetch_rate_limited_total Answers of each provider that asked to slow down (HTTP 429, Retry-After, a rate-limit message).
            # TYPE tickerboard_fetch_rate_limited_total counter
            tickerboard_fetch_rate_limited_total{provider="stooq"} 0
            tickerboard_fetch_rate_limited_total{provider="twelvedata"} 0
            tickerboard_fetch_rate_limited_total{provider="yahoo"} 1
            # HELP tickerboard_fetch_provider_backing_off 1 while a provider is held back after a provider-wide failure.
            # TYPE tickerboard_fetch_provider_backing_off gauge
            tickerboard_fetch_provider_backing_off{provider="stooq"} 0
            tickerboard_fetch_provider_backing_off{provider="twelvedata"} 0
            tickerboard_fetch_provider_backing_off{provider="yahoo"} 1
            # HELP tickerboard_fetch_last_success_timestamp_seconds When each file was last fetched with a good answer.
            # TYPE tickerboard_fetch_last_success_timestamp_seconds gauge
            tickerboard_fetch_last_success_timestamp_seconds{instrument="AAPL",slot="daily"} 1700000000
            tickerboard_fetch_last_success_timestamp_seconds{instrument="AAPL",slot="intraday"} 1699999940

            """)
        // Once the backoff is over the gauge says so; the counters stay.
        #expect(m.text(names: ["yahoo"], scheduler: scheduler, version: "0.1.0", now: 1_700_000_100)
            .contains("tickerboard_fetch_provider_backing_off{provider=\"yahoo\"} 0\n"))
    }

    @Test func labelEscapes() {
        // The format's three escapes, and nothing else (a tab stays a tab).
        #expect(PrometheusText.label("a\\b\"c\nd\te") == "\"a\\\\b\\\"c\\nd\te\"")
    }
}
