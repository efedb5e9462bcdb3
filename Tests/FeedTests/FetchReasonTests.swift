import Feed
import Testing

/// The fetcher's problem in the few words the wall shows.
@Suite("The fetcher's problem, for the screen")
struct FetchReasonTests {
    private func status(_ error: String?, symbol: String? = "^GDAXI", since: Int64? = 1000) -> FetchStatus {
        var s = FetchStatus()
        s.symbol = symbol
        s.lastError = error
        s.errorSince = since
        return s
    }

    @Test("the fetcher's words become a few", arguments: [
        ("daily: yahoo: HTTP 404: No data found, symbol may be delisted", "yahoo: ^GDAXI not found"),
        ("intraday: yahoo: cannot connect: Could not resolve host: query1.finance.yahoo.com", "yahoo unreachable"),
        ("daily: stooq: no complete answer within 20 s", "stooq unreachable"),
        ("daily: twelvedata: key refused (HTTP 401): invalid api key", "twelvedata: key refused"),
        ("daily: alphavantage: rate limited (Retry-After 60 s)", "alphavantage: rate limited"),
        ("daily: yahoo: HTTP 503: Service Unavailable", "yahoo: server error (HTTP 503)"),
        ("daily: yahoo: an HTML page at HTTP 200, not data (a consent, login or anti-bot page?)",
         "yahoo: an HTML page at HTTP 200, not data (a consent, …"),
        ("bad\nline\u{7}with controls", "the provider: bad line with controls"),
    ])
    func words(error: String, expected: String) {
        #expect(status(error).reason == expected)
    }

    @Test("nothing wrong, nothing said; a problem counts once it has lasted the grace")
    func grace() {
        #expect(status(nil).reason == nil)
        #expect(status("  ").reason == nil)
        let down = status("daily: yahoo: cannot connect: refused", since: 1000)
        #expect(down.reason(at: 1000 + FetchStatus.problemGrace - 1) == nil)
        #expect(down.reason(at: 1000 + FetchStatus.problemGrace) == "yahoo unreachable")
        #expect(status("daily: yahoo: cannot connect", since: .min).reason(at: .max) == nil)   // no overflow trap
        let long = status(String(repeating: "x", count: 5000) + ": HTTP 404")
        #expect((long.reason?.count ?? 0) <= 80)
    }
}
