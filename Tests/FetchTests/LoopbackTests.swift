// The fetcher end to end over real sockets: libcurl against a replay server on 127.0.0.1
// (replay_server.py, spawned per test with an ephemeral port) that serves the recorded responses
// and the failures a network gives. Each test looks at the data and status files afterwards.

import FoundationEssentials
import Glibc
import Testing

@testable import Feed
@testable import Fetch

/// One replay server process and its scratch directory.
final class ReplayServer {
    struct Rule: Encodable {
        var match: String
        var status = 200
        var content_type = "application/json;charset=utf-8"
        var body_file: String?
        var body: String?
        var headers: [String: String] = [:]
        var mode = "normal"
        var size: Int?
        /// Answer 429 "Edge: Too Many Requests" unless the User-Agent contains this (Yahoo's edge).
        var agent_contains: String?

        init(_ match: String, file: String? = nil, body: String? = nil, status: Int = 200, type: String = "application/json;charset=utf-8",
             headers: [String: String] = [:], mode: String = "normal", size: Int? = nil) {
            self.match = match
            self.body_file = file
            self.body = body
            self.status = status
            self.content_type = type
            self.headers = headers
            self.mode = mode
            self.size = size
        }
    }

    let directory: String
    let pid: pid_t
    let port: Int

    init() throws {
        directory = Fixtures.scratchDirectory()
        let script = Fixtures.parent(#filePath) + "/replay_server.py"
        Fixtures.write(directory + "/rules.json", "[]")
        let args = ["python3", script, "--rules", directory + "/rules.json", "--port-file", directory + "/port", "--log", directory + "/requests.log"]
        var pid: pid_t = 0
        var argv = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The test runner blocks signals in its threads and a spawned child inherits the mask: without
        // resetting it, the server would never see the SIGTERM that ends it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let spawned = posix_spawnp(&pid, "python3", nil, &attributes, &argv, environ)
        try #require(spawned == 0, "cannot start python3: \(String(cString: strerror(spawned)))")
        self.pid = pid
        // The server writes its port once it listens (via rename: never half a number).
        var port: Int?
        for _ in 0..<500 {
            if let bytes = Fixtures.read(directory + "/port"), let p = Int(String(decoding: bytes, as: UTF8.self)) {
                port = p
                break
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(20_000)
        }
        guard let port else {
            kill(pid, SIGKILL)
            throw ServerError.didNotStart
        }
        self.port = port
    }

    enum ServerError: Error { case didNotStart }

    deinit {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        Fixtures.cleanUp(directory + "/data")
        Fixtures.cleanUp(directory)
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func serve(_ rules: [Rule]) throws {
        let data = try JSONEncoder().encode(rules)
        Fixtures.write(directory + "/rules.json", String(decoding: data, as: UTF8.self))
    }

    /// The paths the server was asked for, in order.
    var requests: [String] {
        guard let bytes = Fixtures.read(directory + "/requests.log") else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { String($0.split(separator: " ", maxSplits: 1).last ?? "") }
    }
}

/// A data directory with a config pointing every provider at the server.
struct Scenario {
    let server: ReplayServer
    let data: String
    var config: FetchConfig
    var environment: [String: String] = [:]
    var clock: Int64 = 1_727_985_700  // 2024-10-03 16:01:40 New York

    init(server: ReplayServer, conf: String) throws {
        self.server = server
        data = server.directory + "/data"
        // A scratch directory of the expected name, so cleanUp accepts it.
        mkdir(data, 0o755)
        var text = "[data]\ndirectory = \(data)\n[fetch]\ntimeout = 2s\nmax-body = 1M\n"
        for kind in ["yahoo", "stooq", "alphavantage", "twelvedata", "coinbase", "kraken", "binance", "coingecko"] {
            text += "[provider \(kind)]\nbase-url = \(server.baseURL)\n"
        }
        text += "[provider fleet]\nkind = http-csv\nbase-url = \(server.baseURL)/fleet\n"
        text += conf
        let (config, issues) = FetchConfig.parse(text, file: "test.conf")
        try #require(!issues.contains { $0.isError }, "\(issues)")
        self.config = config
    }

    func fetcher(log: FetchLog = FetchLog { _, _ in }) -> Fetcher {
        Fetcher(config: config, mode: .write, environment: environment, log: log, random: { 0.5 })
    }

    func file(_ name: String) -> [UInt8]? { Fixtures.read(data + "/" + name) }
    func status(_ id: String) -> FetchStatus? { FetchStatus.load(path: data + "/\(id).status") }
    func put(_ name: String, _ text: String) { Fixtures.write(data + "/" + name, text) }
}

@Suite(.serialized) struct LoopbackTests {
    static let good = "Date,Open,High,Low,Close,Adj Close,Volume\n2023-08-01,30,31,29,30.5,30.5,100\n2023-08-02,30.5,31,30,30.75,30.75,200\n"

    /// A scenario whose WSU.DE daily file already holds two good days.
    func europe(_ rules: [ReplayServer.Rule], extra: String = "") throws -> (ReplayServer, Scenario) {
        let server = try ReplayServer()
        try server.serve(rules)
        let s = try Scenario(server: server, conf: "[instrument WSU]\nsymbol = WSU.DE\ndaily = WSU.csv\ntime-zone = Europe/Berlin\n" + extra)
        s.put("WSU.csv", Self.good)
        return (server, s)
    }

    func chart(_ name: String) throws -> String { try Fixtures.path("yahoo/" + name) }

    @Test("us stock european listing and crypto are written and merged") func usStockEuropeanListingAndCryptoAreWrittenAndMerged() throws {
        let server = try ReplayServer()
        try server.serve([
            .init("/chart/AAPL?interval=1m", file: try chart("chart_AAPL_1m_2024-10-02_regular.json")),
            .init("/chart/AAPL?interval=1d", file: try chart("chart_AAPL_1d_6mo_2025-10-29.json")),
            .init("/chart/WSU.DE", file: try chart("chart_WSU.DE_1d_2023-08-04_2023-08-09.json")),
            .init("/chart/BTC-USD", file: try chart("chart_BTC-USD_1d_2020-01-01_2020-01-03.json")),
        ])
        var s = try Scenario(server: server, conf: """
            [instrument AAPL]
            providers = yahoo
            daily = AAPL.csv
            intraday = AAPL-1m.csv
            [instrument WSU]
            symbol = WSU.DE
            daily = WSU.csv
            time-zone = Europe/Berlin
            [instrument BTC]
            symbol = BTC-USD
            daily = BTC.csv
            """)
        s.put("WSU.csv", Self.good)
        // The evening of the daily answer's last day: no bar may lie after tomorrow.
        s.clock = 1_761_768_000
        let report = s.fetcher().runOnce(clock: { s.clock })
        #expect(report.failed.isEmpty && report.deferred.isEmpty)
        #expect(report.succeeded.count == 4)

        let (aapl, _) = try YahooCSV.parse(try #require(s.file("AAPL.csv")), source: "AAPL.csv")
        #expect(aapl.count == 127 && aapl.interval == .daily)
        let (minutes, _) = try YahooCSV.parse(try #require(s.file("AAPL-1m.csv")), source: "AAPL-1m.csv")
        #expect(minutes.interval == .intraday(seconds: 60))
        #expect(minutes.last?.time == 1_727_985_600)
        let (wsu, _) = try YahooCSV.parse(try #require(s.file("WSU.csv")), source: "WSU.csv")
        #expect(wsu.bars.map { CivilDate(unixTime: $0.time).description } == ["2023-08-01", "2023-08-02", "2023-08-04", "2023-08-08"],
                "the history on disk is kept")
        let status = try #require(s.status("AAPL"))
        #expect(status.provider == "yahoo" && status.currency == "USD" && status.exchangeTimeZone == "America/New_York")
        #expect(status.lastBarTime == 1_727_985_600, "the intraday file's newest bar")
        #expect(status.lastError == nil && status.fetchedAt == s.clock)
        #expect(s.status("WSU")?.currency == "EUR")
        #expect(s.status("BTC")?.marketState == "REGULAR")

        // Same answers again: nothing changes on disk.
        let before = s.file("AAPL.csv")
        _ = s.fetcher().runOnce(clock: { s.clock + 60 })
        #expect(s.file("AAPL.csv") == before)
    }

    /// Each failure leaves the good file byte-identical and the status naming the problem.
    static let failures: [(String, ReplayServer.Rule, String)] = [
        ("slow body", .init("/chart/WSU.DE", body: String(repeating: " ", count: 40), mode: "slow"), "no complete answer"),
        ("accept and never answer", .init("/chart/WSU.DE", mode: "hang"), "no complete answer"),
        ("reset connection", .init("/chart/WSU.DE", mode: "reset"), "connection lost"),
        ("429 with Retry-After", .init("/chart/WSU.DE", body: "Edge: Too Many Requests", status: 429, type: "text/plain",
                                      headers: ["Retry-After": "120"]), "rate limited (Retry-After 120 s)"),
        ("500", .init("/chart/WSU.DE", body: "oops", status: 500, type: "text/plain"), "HTTP 500"),
        ("502", .init("/chart/WSU.DE", body: "<html><title>Bad Gateway</title></html>", status: 502, type: "text/html"), "HTTP 502"),
        ("503", .init("/chart/WSU.DE", body: "busy", status: 503, type: "text/plain"), "HTTP 503"),
        ("truncated body", .init("/chart/WSU.DE", file: "yahoo/chart_WSU.DE_1d_2023-08-04_2023-08-09.json", mode: "truncate"), "truncated"),
        ("oversize body", .init("/chart/WSU.DE", mode: "oversize"), "larger than 1048576 bytes"),
        ("HTML at 200", .init("/chart/WSU.DE", body: "<!DOCTYPE html><html><head><title>Yahoo consent</title></head></html>",
                              type: "text/html;charset=utf-8"), "an HTML page (\"Yahoo consent\")"),
        ("redirect loop", .init("/chart/WSU.DE", mode: "redirect-loop"), "more than 3 redirects"),
        ("wrong content type", .init("/chart/WSU.DE", file: "yahoo/chart_WSU.DE_1d_2023-08-04_2023-08-09.json", type: "text/csv"),
         "content type text/csv"),
        ("error JSON at 200", .init("/chart/WSU.DE", body: #"{"chart":{"result":null,"error":{"code":"Not Found","description":"No data found, symbol may be delisted"}}}"#),
         "No data found"),
        ("empty", .init("/chart/WSU.DE", body: ""), "empty response"),
        ("wrong symbol", .init("/chart/WSU.DE", file: "yahoo/chart_BTC-USD_1d_2020-01-01_2020-01-03.json"), "not \"WSU.DE\""),
        ("meta only", .init("/chart/WSU.DE", file: "yahoo/chart_^VXAPL_1d_2020-01-01_2020-01-03_index.json"), "not \"WSU.DE\""),
    ]

    @Test("failure leaves the file as it was", arguments: 0..<failures.count) func failureLeavesTheFileAsItWas(_ index: Int) throws {
        var (name, rule, expected) = Self.failures[index]
        if let file = rule.body_file { rule.body_file = try Fixtures.path(file) }
        let (server, s) = try europe([rule])
        let before = try #require(s.file("WSU.csv"))
        let fetcher = s.fetcher()
        let report = fetcher.runOnce(clock: { s.clock })
        #expect(report.failed == [JobID(instrument: "WSU", slot: .daily)], "\(name)")
        #expect(s.file("WSU.csv") == before, "\(name): the good file is byte-identical")
        let status = try #require(s.status("WSU"), "\(name): a status file")
        let error = status.lastError ?? ""
        #expect(error.hasPrefix("daily: yahoo: ") && error.contains(expected), "\(name): \(error)")
        #expect(status.errorSince == s.clock && status.fetchedAt == nil)
        #expect(server.requests.count >= 1)
        if name.hasPrefix("429") {
            #expect(fetcher.scheduler.blockedByBackoff(JobID(instrument: "WSU", slot: .daily), provider: "yahoo", now: s.clock + 119) != nil,
                    "Retry-After is honoured")
        }
        // The problem stays in the status until it clears, with its first time.
        _ = fetcher.perform(JobID(instrument: "WSU", slot: .daily), provider: "yahoo", now: s.clock + 600)
        #expect(s.status("WSU")?.errorSince == s.clock)
        #expect(s.file("WSU.csv") == before)
    }

    @Test("the error clears when data comes back") func theErrorClearsWhenDataComesBack() throws {
        let (server, s) = try europe([.init("/chart/WSU.DE", body: "busy", status: 503, type: "text/plain")])
        let fetcher = s.fetcher()
        _ = fetcher.runOnce(clock: { s.clock })
        #expect(s.status("WSU")?.lastError != nil)
        try server.serve([.init("/chart/WSU.DE", file: try chart("chart_WSU.DE_1d_2023-08-04_2023-08-09.json"))])
        _ = fetcher.perform(JobID(instrument: "WSU", slot: .daily), provider: "yahoo", now: s.clock + 3600)
        let status = try #require(s.status("WSU"))
        #expect(status.lastError == nil && status.errorSince == nil && status.fetchedAt == s.clock + 3600)
    }

    /// A bar dated 2100 was merged into the file (the chart collapsed onto it and it never went
    /// stale) and a price time in 2100 kept "as of 31 Dec" for good.
    @Test("bars and price times after tomorrow are left out, and an answer of nothing else is refused")
    func futureBarsAreLeftOut() throws {
        let server = try ReplayServer()
        let body = "Date,Open,High,Low,Close,Volume\n2024-10-01,10,11,9,10.5,100\n2024-10-02,10,11,9,10.75,100\n2100-01-01,1,1,1,1,1\n"
        try server.serve([.init("/fleet/", body: body, type: "text/csv")])
        let s = try Scenario(server: server, conf: "[instrument X]\nproviders = fleet\ndaily = X.csv\n")
        s.put("X.status", "{\"last_price_time\": 4102444800}")
        _ = s.fetcher().runOnce(clock: { s.clock })
        let (series, _) = try YahooCSV.parse(try #require(s.file("X.csv")), source: "X.csv")
        #expect(series.bars.map(\.close) == [10.5, 10.75])
        #expect((s.status("X")?.lastPriceTime ?? 0) <= s.clock + 36 * 3600, "the remembered 2100 is forgotten")
        try server.serve([.init("/fleet/", body: "Date,Open,High,Low,Close,Volume\n2100-01-01,1,1,1,1,1\n", type: "text/csv")])
        let report = s.fetcher().runOnce(clock: { s.clock + 3600 })
        #expect(report.failed.count == 1)
        #expect(s.status("X")?.lastError?.contains("dated after now") == true)
        #expect(try YahooCSV.parse(try #require(s.file("X.csv")), source: "X.csv").0.bars.count == 2)
    }

    /// A board boots at 1970 and NTP sets the clock later: at 1970 every bar of the answer lies
    /// in the future (held back, the file untouched, no trap in the calendars or the budgets), and
    /// once the clock is set the next pass fetches at once.
    @Test("a fetcher at 1970 holds back the answer and fetches as soon as the clock is set")
    func bootAt1970() throws {
        let server = try ReplayServer()
        try server.serve([.init("/fleet/", body: Self.good, type: "text/csv")])
        var s = try Scenario(server: server, conf: "[instrument X]\nproviders = fleet\ndaily = X.csv\ntime-zone = America/New_York\n")
        s.clock = 86_400 + 43_200
        let fetcher = s.fetcher()
        let early = fetcher.runOnce(clock: { s.clock })
        #expect(early.failed.count == 1 && s.file("X.csv") == nil)
        #expect(s.status("X")?.lastError?.contains("dated after now") == true)
        // NTP: the real time. The backoff from 1970 has long run out.
        let set: Int64 = 1_691_100_000
        #expect(fetcher.scheduler.next(now: set, jobs: fetcher.jobs) == .fetch(JobID(instrument: "X", slot: .daily), provider: "fleet"))
        let report = fetcher.runOnce(clock: { set })
        #expect(report.succeeded.count == 1)
        #expect(s.file("X.csv") != nil)
    }

    /// An http-csv answer carries no symbol: a fleet server that served another instrument's file
    /// overwrote the overlapping history (101 -> 5). Now it is held back and said.
    @Test("an answer that is another instrument's prices is held back and the file kept")
    func anotherInstrumentIsHeldBack() throws {
        let server = try ReplayServer()
        let body = "Date,Open,High,Low,Close,Volume\n2023-08-01,5,5,5,5,1\n2023-08-02,5.1,5.1,5.1,5.1,1\n2023-08-03,5.2,5.2,5.2,5.2,1\n"
        try server.serve([.init("/fleet/", body: body, type: "text/csv")])
        let s = try Scenario(server: server, conf: "[instrument X]\nproviders = fleet\ndaily = X.csv\n")
        s.put("X.csv", Self.good)
        let report = s.fetcher().runOnce(clock: { s.clock })
        #expect(report.failed.count == 1)
        #expect(s.file("X.csv") == Array(Self.good.utf8))
        #expect(s.status("X")?.lastError?.contains("another instrument") == true)
    }

    @Test("failover to the next provider") func failoverToTheNextProvider() throws {
        let server = try ReplayServer()
        try server.serve([
            .init("/chart/", body: "down", status: 503, type: "text/plain"),
            .init("/q/d/l/", file: try Fixtures.path("stooq/aapl_us_d_2025-01-08_partial_last_day.csv"), type: "text/csv"),
        ])
        var t = try Scenario(server: server, conf: "[instrument AAPL]\nproviders = yahoo stooq\nstooq-symbol = aapl.us\ndaily = AAPL.csv\n")
        t.clock = 1_736_380_800  // 2025-01-09, the day after the answer's last
        let report = t.fetcher().runOnce(clock: { t.clock })
        #expect(report.succeeded == [JobID(instrument: "AAPL", slot: .daily)])
        #expect(server.requests.map { $0.hasPrefix("/v8/") ? "yahoo" : "stooq" } == ["yahoo", "stooq"])
        #expect(server.requests[1].hasPrefix("/q/d/l/?s=aapl.us"))
        let status = try #require(t.status("AAPL"))
        #expect(status.provider == "stooq" && status.lastError == nil)
        let (series, _) = try YahooCSV.parse(try #require(t.file("AAPL.csv")), source: "AAPL.csv")
        #expect(series.count == 10165)
    }

    /// Keyless crypto (issue 52 item 5): Coinbase answers 429 with Retry-After, Kraken serves both
    /// files; once Coinbase's wait is over its 5-minute candles merge into Kraken's. The files'
    /// rows are the fixtures' text (Fixtures/crypto/kraken/ohlc_XBTEUR_1440.json) read by hand.
    @Test("a crypto pair fails over from a rate-limited exchange to the next, and both merge into one file")
    func cryptoFailover() throws {
        let server = try ReplayServer()
        try server.serve([
            .init("/products/", file: Fixtures.crypto("coinbase/error_429_rate_limit.json"), status: 429, headers: ["Retry-After": "120"]),
            .init("/0/public/OHLC?pair=XBTEUR&interval=1440", file: Fixtures.crypto("kraken/ohlc_XBTEUR_1440.json")),
            .init("/0/public/OHLC?pair=XBTEUR&interval=5", file: Fixtures.crypto("kraken/ohlc_XBTEUR_5.json")),
        ])
        var s = try Scenario(server: server, conf: """
            [instrument BTC]
            symbol = BTC-EUR
            providers = coinbase kraken
            daily = BTC.csv
            intraday = BTC-5m.csv
            session = 24/7
            """)
        s.clock = cryptoAfternoon
        let fetcher = s.fetcher()
        let report = fetcher.runOnce(clock: { s.clock })
        #expect(report.succeeded == [JobID(instrument: "BTC", slot: .daily), JobID(instrument: "BTC", slot: .intraday)], "\(report)")
        // Coinbase once (its 429 backs off the whole provider), then Kraken for both files.
        #expect(server.requests == ["/products/BTC-EUR/candles?granularity=86400", "/0/public/OHLC?pair=XBTEUR&interval=1440",
                                    "/0/public/OHLC?pair=XBTEUR&interval=5"])
        #expect(String(decoding: try #require(s.file("BTC.csv")), as: UTF8.self) == """
            Date,Open,High,Low,Close,Adj Close,Volume
            2024-03-29,64980,65012.3,63120.7,64200.5,64200.5,1812.44871029
            2024-03-30,64200.5,64999.9,63800,64450.1,64450.1,1290.1027731
            2024-03-31,64450.1,65780,64012.5,65538.4,65538.4,966.51023378

            """)
        let status = try #require(s.status("BTC"))
        #expect(status.provider == "kraken" && status.currency == "EUR" && status.exchangeTimeZone == "UTC")
        #expect(status.marketState == "REGULAR" && status.lastError == nil)
        let until = try #require(fetcher.scheduler.providerBackoff["coinbase"]?.until)
        #expect(until >= s.clock + 120, "coinbase waits its Retry-After, \(until - s.clock) s")

        // Coinbase is back: its candles replace Kraken's of the same 5 minutes, Kraken's 14:45 stays.
        try server.serve([.init("/products/BTC-EUR/candles?granularity=300", file: Fixtures.crypto("coinbase/candles_BTC-EUR_300.json"))])
        let result = fetcher.perform(JobID(instrument: "BTC", slot: .intraday), provider: "coinbase", now: s.clock + 180)
        guard case .success = result.outcome else { Issue.record("\(result)"); return }
        let (minutes, _) = try YahooCSV.parse(try #require(s.file("BTC-5m.csv")), source: "BTC-5m.csv")
        #expect(minutes.bars.map(\.time) == [1_711_982_400, 1_711_982_700, 1_711_983_000, 1_711_983_300])
        #expect(minutes.bars.map(\.close) == [65001.3, 65004.3, 65020, 65058.75])
        #expect(String(decoding: try #require(s.file("BTC-5m.csv")), as: UTF8.self).contains("\n2024-04-01 14:55:00+00:00,65020,65063.9,65011.02,65058.75,"))
        #expect(s.status("BTC")?.provider == "coinbase")
    }

    /// Issue 48 item 12: `user-agent =` was parsed and never sent. Public reports say Yahoo's edge
    /// answers "429 Edge: Too Many Requests" to agents it takes for scripts; the replay server does
    /// the same (`agent_contains`), so the agent is judged on the wire.
    @Test("the provider's user-agent goes on the wire; an edge 429 backs the provider off 15 min while the next one serves")
    func userAgentAndEdgeLimit() throws {
        let server = try ReplayServer()
        var yahoo = ReplayServer.Rule("/chart/", file: try chart("chart_WSU.DE_1d_2023-08-04_2023-08-09.json"))
        yahoo.agent_contains = "Mozilla/5.0"
        try server.serve([yahoo, .init("/q/d/l/", file: try Fixtures.path("stooq/aapl_us_d_2025-01-08_partial_last_day.csv"), type: "text/csv")])
        let agent = "Mozilla/5.0 (X11; Linux aarch64) tickerboard-wall"
        let s = try Scenario(server: server, conf: "[provider yahoo]\nuser-agent = \(agent)\n"
                             + "[instrument WSU]\nsymbol = WSU.DE\ndaily = WSU.csv\ntime-zone = Europe/Berlin\n")
        s.put("WSU.csv", Self.good)
        let report = s.fetcher().runOnce(clock: { s.clock })
        #expect(report.succeeded == [JobID(instrument: "WSU", slot: .daily)], "\(report)")
        let agents = String(decoding: Fixtures.read(server.directory + "/requests.log.agents") ?? [], as: UTF8.self)
        #expect(agents == agent + "\n", "the server saw: \(agents)")

        // Without it: curl's default agent meets the edge; stooq serves, yahoo waits 15 min at least.
        let server2 = try ReplayServer()
        try server2.serve([yahoo, .init("/q/d/l/", file: try Fixtures.path("stooq/aapl_us_d_2025-01-08_partial_last_day.csv"), type: "text/csv")])
        var t = try Scenario(server: server2, conf: "[instrument AAPL]\nproviders = yahoo stooq\nstooq-symbol = aapl.us\ndaily = AAPL.csv\n")
        t.clock = 1_736_380_800  // 2025-01-09, the day after the stooq answer's last
        let fetcher = t.fetcher()
        let second = fetcher.runOnce(clock: { t.clock })
        #expect(second.succeeded == [JobID(instrument: "AAPL", slot: .daily)])
        #expect(server2.requests.map { $0.hasPrefix("/v8/") ? "yahoo" : "stooq" } == ["yahoo", "stooq"])
        let until = try #require(fetcher.scheduler.providerBackoff["yahoo"]?.until)
        #expect(until >= t.clock + 900, "yahoo backed off \(until - t.clock) s")
        #expect(FetchProblem.rateLimited(retryAfter: 60, message: "Edge: Too Many Requests").retryAfter == 900)
        #expect(FetchProblem.rateLimited(retryAfter: 3600, message: "Edge: Too Many Requests").retryAfter == 3600)
        #expect(FetchProblem.rateLimited(retryAfter: 60, message: "API limit").retryAfter == 60)
    }

    @Test("twenty instruments at five AM inute") func twentyInstrumentsAtFiveAMinute() throws {
        let server = try ReplayServer()
        try server.serve([.init("/chart/", file: try chart("chart_WSU.DE_1d_2023-08-04_2023-08-09.json"))])
        var conf = "[provider yahoo]\nrate = 5/min\n"
        for i in 0..<20 { conf += "[instrument W\(i)]\nsymbol = WSU.DE\ndaily = W\(i).csv\n" }
        let s = try Scenario(server: server, conf: conf)
        let report = s.fetcher().runOnce(clock: { s.clock })
        #expect(report.succeeded.count == 5 && report.deferred.count == 15)
        #expect(server.requests.count == 5, "the server saw exactly the budget")
        // A second run within the minute finds the budget spent (it is kept in the state file).
        let again = s.fetcher().runOnce(clock: { s.clock + 30 })
        #expect(again.succeeded.isEmpty && again.deferred.count == 20)
        #expect(server.requests.count == 5)
        // A minute later the next five.
        let later = s.fetcher().runOnce(clock: { s.clock + 60 })
        #expect(later.succeeded.count == 5)
        #expect(server.requests.count == 10)
    }

    @Test("keys never reach the status or the log") func keysNeverReachTheStatusOrTheLog() throws {
        let server = try ReplayServer()
        try server.serve([.init("/query", body: "upstream exploded", status: 500, type: "text/plain")])
        var s = try Scenario(server: server, conf: "[instrument MSFT]\nproviders = alphavantage\nintraday = MSFT-1m.csv\n")
        let credentials = server.directory + "/credentials"
        mkdir(credentials, 0o700)
        Fixtures.write(credentials + "/alphavantage", "SUPERSECRETKEY42\n")
        s.environment = ["CREDENTIALS_DIRECTORY": credentials]
        final class Lines: @unchecked Sendable { var all: [String] = [] }
        let lines = Lines()
        _ = s.fetcher(log: FetchLog { _, line in lines.all.append(line) }).runOnce(clock: { s.clock })
        #expect(server.requests.first?.contains("apikey=SUPERSECRETKEY42") == true, "the key was used")
        let status = String(decoding: try #require(s.file("MSFT.status")), as: UTF8.self)
        #expect(status.contains("HTTP 500"))
        #expect(!status.contains("SUPERSECRET"))
        #expect(!lines.all.joined().contains("SUPERSECRET"))
        Fixtures.cleanUp(credentials)
    }

    @Test("the fleet pattern pulls files another fetcher wrote") func theFleetPatternPullsFilesAnotherFetcherWrote() throws {
        let server = try ReplayServer()
        let upstream = server.directory + "/upstream.csv"
        Fixtures.write(upstream, Self.good)
        try server.serve([.init("/fleet/WSU.csv", file: upstream, type: "text/csv")])
        let s = try Scenario(server: server, conf: "[instrument WSU]\nproviders = fleet\ndaily = WSU.csv\ntime-zone = Europe/Berlin\n")
        _ = s.fetcher().runOnce(clock: { s.clock })
        #expect(s.file("WSU.csv") == Array(Self.good.utf8))
        #expect(s.status("WSU")?.provider == "fleet")
    }
}
