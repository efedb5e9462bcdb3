// Each provider's parser on the recorded real responses (shared/data/providers; facts from the
// sidecars), on the documented error bodies, and on damaged copies of both.

import Testing

@testable import Feed
@testable import Fetch

@Suite struct YahooParserTests {
    let yahoo = provider("yahoo")

    func parse(_ file: String, _ request: FetchRequest, status: Int = 200) throws -> Result<ProviderData, FetchProblem> {
        yahoo.parse(json(try Fixtures.bytes("yahoo/" + file), status: status), for: request)
    }

    @Test("european daily skips the null bar and keeps local dates") func europeanDailySkipsTheNullBarAndKeepsLocalDates() throws {
        let data = try parse("chart_WSU.DE_1d_2023-08-04_2023-08-09.json", .daily("WSU.DE")).get()
        // Sidecar: 3 bars (08-04, 08-07, 08-08), the 08-07 one all null.
        #expect(data.bars.map { CivilDate(unixTime: $0.time).description } == ["2023-08-04", "2023-08-08"])
        #expect(data.currency == "EUR")
        #expect(data.exchangeTimeZone == "Europe/Berlin")
        #expect(data.bars[0].close == 34.45000076293945)
        #expect(data.regularSession != nil)
    }

    @Test("crypto is around the clock") func cryptoIsAroundTheClock() throws {
        let data = try parse("chart_BTC-USD_1d_2020-01-01_2020-01-03.json", .daily("BTC-USD")).get()
        #expect(data.bars.count == 3)
        #expect(data.tradesAroundTheClock)
        #expect(data.marketState == "REGULAR")
        #expect(CivilDate(unixTime: data.bars[0].time).description == "2020-01-01")
    }

    @Test("fx and long histories") func fxAndLongHistories() throws {
        #expect(try parse("chart_EURUSD=X_1d_2020-01-01_2020-01-03.json", .daily("EURUSD=X")).get().bars.count == 3)
        let tsla = try parse("chart_TSLA_1d_max_period1-0.json", .daily("TSLA")).get()
        #expect(tsla.bars.count == 3303)
        #expect(CivilDate(unixTime: tsla.bars.first!.time).description == "2010-06-29")
        #expect(CivilDate(unixTime: tsla.bars.last!.time).description == "2023-08-11")
        for name in ["chart_NVDA_1d_2021-02-01_2022-01-31_split.json", "chart_MSFT_1d_2021-02-01_2022-01-31_dividends.json"] {
            let symbol = name.contains("NVDA") ? "NVDA" : "MSFT"
            let data = try parse(name, .daily(symbol)).get()
            #expect(data.bars.count == 252, "\(name)")
            #expect(data.bars.allSatisfy { $0.adjustedClose != nil })
        }
    }

    @Test("daily live point becomes todays bar") func dailyLivePointBecomesTodaysBar() throws {
        // Sidecar: 127 bars, the last stamped 16:00:01 (the live point) on 2025-10-29.
        let data = try parse("chart_AAPL_1d_6mo_2025-10-29.json", .daily("AAPL")).get()
        #expect(data.bars.count == 127)
        #expect(CivilDate(unixTime: data.bars.last!.time).description == "2025-10-29")
        #expect(data.previousClose == data.bars[data.bars.count - 2].close)
    }

    @Test("intraday keeps instants and the regular session") func intradayKeepsInstantsAndTheRegularSession() throws {
        let data = try parse("chart_AAPL_1m_2024-10-02_regular.json", .intraday("AAPL")).get()
        #expect(data.interval == .intraday(seconds: 60))
        #expect(data.bars.first?.time == 1_727_875_800)  // 2024-10-02 09:30 EDT
        #expect(data.bars.last?.time == 1_727_985_600)
        #expect(data.previousClose == 226.78)
        let prepost = try parse("chart_TSLA_30m_2021-11-22_prepost.json", .intraday("TSLA")).get()
        #expect(prepost.bars.count == 30)
        #expect(prepost.bars.first?.time == 1_637_571_600)  // 04:00 EST: pre-market
    }

    @Test("empty windows are not data") func emptyWindowsAreNotData() throws {
        for (file, symbol, slot) in [("chart_AAPL_1m_2025-02-01_weekend_empty.json", "AAPL", Slot.intraday),
                                     ("chart_TSLA_1h_empty_period1_eq_period2.json", "TSLA", .intraday),
                                     ("chart_^VXAPL_1d_2020-01-01_2020-01-03_index.json", "^VXAPL", .daily)] {
            let request = slot == .daily ? FetchRequest.daily(symbol) : .intraday(symbol)
            #expect(throws: FetchProblem.badData("no bars in the response")) { try parse(file, request).get() }
        }
    }

    @Test("errors at their status carry yahoos words") func errorsAtTheirStatusCarryYahoosWords() throws {
        let delisted = try parse("chart_SIX_404_no_data_delisted.json", .daily("SIX"), status: 404)
        #expect(delisted == .failure(.providerError(status: 404, message: "Not Found: No data found, symbol may be delisted")))
        if case .failure(let p) = try parse("chart_BEKE_400_data_doesnt_exist.json", .daily("BEKE"), status: 400) {
            #expect(p.description.contains("Data doesn't exist"))
            #expect(!p.affectsWholeProvider)
        } else {
            Issue.record("a 400 was accepted")
        }
    }

    @Test("wrong symbol wrong slot and quote bodies are refused") func wrongSymbolWrongSlotAndQuoteBodiesAreRefused() throws {
        #expect(throws: FetchProblem.self) { try parse("chart_WSU.DE_1d_2023-08-04_2023-08-09.json", .daily("AAPL")).get() }
        #expect(throws: FetchProblem.self) { try parse("chart_AAPL_1m_2024-10-02_regular.json", .daily("AAPL")).get() }
        #expect(throws: FetchProblem.self) { try parse("quote_AAPL_PRE_2021-02-10.json", .daily("AAPL")).get() }
        #expect(throws: FetchProblem.self) { try parse("quote_SIX_unknown_symbol_empty_result.json", .daily("SIX")).get() }
    }

    @Test("rate limit and crumb errors") func rateLimitAndCrumbErrors() throws {
        let limited = yahoo.parse(HTTPResponse(status: 429, headers: ["content-type": "text/plain", "retry-after": "90"],
                                               body: Array("Edge: Too Many Requests".utf8)), for: .daily("AAPL"))
        #expect(limited == .failure(.rateLimited(retryAfter: 90, message: "Edge: Too Many Requests")))
        let crumb = #"{"finance":{"result":null,"error":{"code":"Unauthorized","description":"Invalid Crumb"}}}"#
        let refused = yahoo.parse(json(Array(crumb.utf8), status: 401), for: .daily("AAPL"))
        guard case .failure(.unauthorized(401, _)) = refused else { Issue.record("\(refused)"); return }
    }

    @Test("impossible prices reject the whole response") func impossiblePricesRejectTheWholeResponse() throws {
        var text = String(decoding: try Fixtures.bytes("yahoo/chart_WSU.DE_1d_2023-08-04_2023-08-09.json"), as: UTF8.self)
        text = text.replacing("\"close\":[34.45000076293945", with: "\"close\":[-1")
        let result = yahoo.parse(json(Array(text.utf8)), for: .daily("WSU.DE"))
        guard case .failure(.badData(let message)) = result else { Issue.record("\(result)"); return }
        #expect(message.contains("close is -1.0"))
        let zero = text.replacing("\"close\":[-1", with: "\"close\":[0")
        #expect(throws: FetchProblem.self) { try yahoo.parse(json(Array(zero.utf8)), for: .daily("WSU.DE")).get() }
    }

    @Test("ranges grow with the gap on disk") func rangesGrowWithTheGapOnDisk() {
        let now: Int64 = 1_700_000_000
        func range(_ slot: Slot, _ newest: Int64?) -> String {
            YahooProvider.range(for: FetchRequest(symbol: "X", slot: slot, now: now, fileName: "X.csv", newestBarOnDisk: newest))
        }
        #expect(range(.daily, nil) == "10y")
        #expect(range(.daily, now - 86_400) == "5d")
        #expect(range(.daily, now - 40 * 86_400) == "3mo")
        #expect(range(.daily, now - 3000 * 86_400) == "10y")
        #expect(range(.intraday, nil) == "5d")
        #expect(range(.intraday, now - 3600) == "1d")
        // A newest bar at the ends of time (a hostile file on disk) is old, not a trap.
        #expect(range(.daily, .min) == "10y")
        #expect(range(.intraday, .min) == "5d")
    }

    @Test("intraday timestamps at the ends of Int64 are refused or kept, never a trap")
    func extremeTimestamps() {
        let body = #"{"chart":{"result":[{"meta":{"currency":"USD","symbol":"X","exchangeTimezoneName":"America/New_York","#
            + #""regularMarketTime":9223372036854775807,"dataGranularity":"1m"},"#
            + #""timestamp":[-9223372036854775808,9223372036854775807],"#
            + #""indicators":{"quote":[{"open":[1,2],"high":[1,2],"low":[1,2],"close":[1,2],"volume":[1,1]}]}}],"error":null}}"#
        let result = yahoo.parse(json(Array(body.utf8)), for: FetchRequest(symbol: "X", slot: .intraday, now: 1_796_000_000,
                                                                           fileName: "X-1m.csv", newestBarOnDisk: nil))
        if case .success(let data) = result { #expect(data.bars.count <= 2) }
    }
}

@Suite struct StooqParserTests {
    let stooq = provider("stooq", key: "s3cretKEY")

    @Test("full history with todays partial bar") func fullHistoryWithTodaysPartialBar() throws {
        let body = try Fixtures.bytes("stooq/aapl_us_d_2025-01-08_partial_last_day.csv")
        let data = try stooq.parse(HTTPResponse(status: 200, headers: ["content-type": "text/csv"], body: body), for: .daily("aapl.us")).get()
        #expect(data.bars.count == 10165)
        #expect(CivilDate(unixTime: data.bars.last!.time).description == "2025-01-08")
        #expect(data.bars.last?.close == 241.29)
        #expect(data.previousClose == 242.21)
    }

    @Test("no volume column") func noVolumeColumn() throws {
        let body = try Fixtures.bytes("stooq/btcpln_d_no_volume_column.csv")
        let data = try stooq.parse(HTTPResponse(status: 200, headers: ["content-type": "text/csv"], body: body), for: .daily("btcpln")).get()
        #expect(data.bars.count == 3742)
        #expect(data.bars.allSatisfy { $0.volume == nil })
    }

    @Test("html at status 200 and no data") func htmlAtStatus200AndNoData() {
        let page = "<!DOCTYPE html><html><head><title>Stooq - get your apikey</title></head><body>...</body></html>"
        let html = stooq.parse(HTTPResponse(status: 200, headers: ["content-type": "text/html"], body: Array(page.utf8)), for: .daily("spy.us"))
        guard case .failure(.notData(let m)) = html else { Issue.record("\(html)"); return }
        #expect(m.contains("HTML page") && m.contains("get your apikey"))
        // Even when the server calls it CSV.
        let disguised = stooq.parse(HTTPResponse(status: 200, headers: ["content-type": "text/csv"], body: Array(page.utf8)), for: .daily("spy.us"))
        guard case .failure(.notData) = disguised else { Issue.record("\(disguised)"); return }
        let noData = stooq.parse(HTTPResponse(status: 200, headers: ["content-type": "text/plain"], body: Array("No data".utf8)), for: .daily("zzz.us"))
        guard case .failure(.providerError) = noData else { Issue.record("\(noData)"); return }
    }

    @Test("the key goes in the URL and nowhere else") func theKeyGoesInTheURLAndNowhereElse() {
        let request = stooq.httpRequest(for: .daily("aapl.us"))
        #expect(request.url.contains("apikey=s3cretKEY"))
        #expect(Secrets.redact("failed: \(request.url)", [Secret("s3cretKEY")]).contains("apikey=<key>"))
        #expect(!Secrets.redact("failed: \(request.url)", [Secret("s3cretKEY")]).contains("s3cret"))
    }

    @Test("a cut off last line is dropped") func aCutOffLastLineIsDropped() throws {
        let body = try Fixtures.bytes("stooq/aapl_us_d_2025-01-08_partial_last_day.csv")
        // Cut in the middle of the last row's close: "241.2" would be a wrong price.
        let cut = Array(body.prefix(body.count - 12))
        let data = try stooq.parse(HTTPResponse(status: 200, headers: [:], body: cut), for: .daily("aapl.us")).get()
        #expect(CivilDate(unixTime: data.bars.last!.time).description == "2025-01-07")
    }
}

@Suite struct AlphaVantageParserTests {
    let av = provider("alphavantage", key: "AVKEY1234")

    @Test("intraday newest first in US eastern") func intradayNewestFirstInUSEastern() throws {
        let body = try Fixtures.bytes("alphavantage/TIME_SERIES_INTRADAY_MSFT_1min_compact_2017-12-18.json")
        let data = try av.parse(json(body, type: "application/json"), for: .intraday("MSFT")).get()
        #expect(data.bars.count == 100)
        // Newest 2017-12-18 14:56:00 US/Eastern (EST, -05:00).
        #expect(data.bars.last?.time == Fixtures.newYork(2017, 12, 18, 14, 56))
        #expect(data.bars.first?.time == Fixtures.newYork(2017, 12, 18, 13, 17))
        #expect(data.bars.last?.close == 86.5)
        #expect(data.exchangeTimeZone == "America/New_York")
    }

    @Test("errors and limits at status 200") func errorsAndLimitsAtStatus200() {
        let cases: [(String, (FetchProblem) -> Bool)] = [
            (#"{"Note": "Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute and 500 calls per day."}"#,
             { if case .rateLimited = $0 { return true }; return false }),
            (#"{"Information": "Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day."}"#,
             { if case .rateLimited = $0 { return true }; return false }),
            ("{\n    \"Error Message\": \"Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for TIME_SERIES_DAILY.\"\n}",
             { if case .providerError = $0 { return true }; return false }),
            (#"{"Error Message": "the parameter apikey is invalid or missing. Please claim your free API key on (https://www.alphavantage.co/support/#api-key)."}"#,
             { if case .unauthorized = $0 { return true }; return false }),
        ]
        for (body, check) in cases {
            let result = av.parse(json(Array(body.utf8), type: "application/json"), for: .daily("MSFT"))
            guard case .failure(let p) = result, check(p) else { Issue.record("\(body): \(result)"); continue }
        }
    }

    /// Found by fuzz-providers: a zone name, series name or interval echoed from the response
    /// brought its newline into the one-line problem (and so into the log and the status file).
    @Test("echoed names stay on one line") func echoedNamesStayOnOneLine() {
        let responses: [(any Provider, String, FetchRequest)] = [
            (av, #"{"Meta Data":{"2. Symbol":"AAPL","6. Time Zone":"US/Easter\n"},"Time Series (Daily)":{"2024-11-03":{"1. open":"4"}}}"#, .daily("AAPL")),
            (av, #"{"Meta Data":{"2. Symbol":"AAPL","6. Time Zone":"US/Eastern"},"Time Series (Daily\n)":{"2024-11-03":{"4. close":"4"}}}"#, .intraday("AAPL")),
            (provider("twelvedata", key: "K"), #"{"meta":{"symbol":"AAPL","interval":"1day","exchange_timezone":"Mars/\nBase"},"values":[]}"#, .daily("AAPL")),
            (provider("twelvedata", key: "K"), #"{"meta":{"symbol":"AAPL","interval":"1\nmin","exchange_timezone":"America/New_York"},"values":[]}"#, .daily("AAPL")),
        ]
        for (p, body, request) in responses {
            let result = p.parse(json(Array(body.utf8), type: "application/json"), for: request)
            guard case .failure(let problem) = result else { Issue.record("\(body): \(result)"); continue }
            #expect(!"\(problem)".contains("\n"), "\(problem)")
        }
    }

    @Test("a quote is not AT ime series") func aQuoteIsNotATimeSeries() throws {
        let body = try Fixtures.bytes("alphavantage/GLOBAL_QUOTE_MSFT_2018-10-05.json")
        #expect(throws: FetchProblem.notData("no time series in the response")) {
            try av.parse(json(body, type: "application/json"), for: .daily("MSFT")).get()
        }
    }
}

@Suite struct TwelveDataParserTests {
    let td = provider("twelvedata", key: "TDKEY5678")

    @Test("daily series") func dailySeries() throws {
        let body = try Fixtures.bytes("twelvedata/time_series_IBM_1day_2021-07-01.json")
        let data = try td.parse(json(body, type: "application/json"), for: .daily("IBM")).get()
        #expect(data.bars.count == 30)
        #expect(CivilDate(unixTime: data.bars.last!.time).description == "2021-07-01")
        #expect(data.bars.last?.close == 146.84)
        #expect(data.currency == "USD")
        #expect(data.exchangeTimeZone == "America/New_York")
    }

    @Test("the key travels in AH eader not the URL") func theKeyTravelsInAHeaderNotTheURL() {
        let request = td.httpRequest(for: .daily("IBM"))
        #expect(!request.url.contains("TDKEY"))
        #expect(request.headers.contains("Authorization: apikey TDKEY5678"))
    }

    @Test("error objects whatever the status") func errorObjectsWhateverTheStatus() throws {
        let unauthorized = td.parse(json(try Fixtures.bytes("twelvedata/error_401_bad_apikey.json"), status: 200), for: .daily("IBM"))
        guard case .failure(.unauthorized) = unauthorized else { Issue.record("\(unauthorized)"); return }
        let bad = td.parse(json(try Fixtures.bytes("twelvedata/error_400_invalid_interval.json")), for: .daily("IBM"))
        guard case .failure(.providerError(400, _)) = bad else { Issue.record("\(bad)"); return }
        let missing = td.parse(json(try Fixtures.bytes("twelvedata/error_404_not_found.json"), status: 404), for: .daily("IBM"))
        guard case .failure(.providerError(404, let m)) = missing else { Issue.record("\(missing)"); return }
        #expect(m.contains("nothing found"))
        let credits = #"{"code":429,"message":"You have run out of API credits for the current minute.","status":"error"}"#
        guard case .failure(.rateLimited) = td.parse(json(Array(credits.utf8)), for: .daily("IBM")) else { Issue.record("429 in body"); return }
    }

    @Test("csv at AJSON endpoint is AW rong content type") func csvAtAJSONEndpointIsAWrongContentType() throws {
        let body = try Fixtures.bytes("twelvedata/time_series_IBM_1day_2021-07-01_csv.csv")
        let result = td.parse(HTTPResponse(status: 200, headers: ["content-type": "text/csv"], body: body), for: .daily("IBM"))
        #expect(result == .failure(.notData("content type text/csv, expected application/json")))
    }
}

@Suite struct HTTPCSVParserTests {
    @Test("reads what another fetcher wrote") func readsWhatAnotherFetcherWrote() throws {
        let zone = try ExchangeTimeZone(identifier: "America/New_York")
        let bars = [PriceBar(time: Fixtures.newYork(2024, 10, 2, 9, 30), open: 1, high: 2, low: 0.5, close: 1.5, volume: 10),
                    PriceBar(time: Fixtures.newYork(2024, 10, 2, 9, 31), open: 1.5, high: 2, low: 1, close: 1.75, volume: 3)]
        let file = DataFile.render(bars, slot: .intraday, zone: zone)
        let http = provider("http-csv")
        let data = try http.parse(HTTPResponse(status: 200, headers: ["content-type": "application/octet-stream"], body: file),
                                  for: .intraday("AAPL")).get()
        #expect(data.bars.map(\.time) == bars.map(\.time))
        #expect(data.bars.map(\.close) == [1.5, 1.75])
        #expect(http.httpRequest(for: .intraday("AAPL")).url == "http://127.0.0.1:9/AAPL-1m.csv")
    }
}

/// Damaged copies of every recorded body (cut at many points, bytes flipped): a parser may refuse
/// them but must never crash, and whatever it accepts must be drawable.
@Suite struct ProviderFuzzTests {
    static let cases: [(String, String, String, Slot)] = [
        ("yahoo", "yahoo/chart_WSU.DE_1d_2023-08-04_2023-08-09.json", "WSU.DE", .daily),
        ("yahoo", "yahoo/chart_TSLA_30m_2021-11-22_prepost.json", "TSLA", .intraday),
        ("yahoo", "yahoo/chart_BTC-USD_1d_2020-01-01_2020-01-03.json", "BTC-USD", .daily),
        ("alphavantage", "alphavantage/TIME_SERIES_INTRADAY_MSFT_1min_compact_2017-12-18.json", "MSFT", .intraday),
        ("twelvedata", "twelvedata/time_series_IBM_1day_2021-07-01.json", "IBM", .daily),
        ("twelvedata", "twelvedata/error_400_invalid_interval.json", "IBM", .daily),
        ("stooq", "stooq/btcpln_d_no_volume_column.csv", "btcpln", .daily),
        ("coinbase", "crypto/coinbase/candles_BTC-EUR_86400.json", "BTC-EUR", .daily),
        ("kraken", "crypto/kraken/ohlc_XBTEUR_5.json", "BTC-EUR", .intraday),
        ("binance", "binance/klines_docs_example.json", "BNB-BTC", .daily),
        ("coingecko", "coingecko/market_chart_range_docs_example.json", "ETH-USD", .daily),
    ]

    @Test("damaged bodies", arguments: 0..<cases.count) func damagedBodies(_ index: Int) throws {
        let (kind, file, symbol, slot) = Self.cases[index]
        let adapter = provider(kind)
        // crypto/: this repository's fixtures (Fixtures/crypto); the rest the shared recordings.
        let original = file.hasPrefix("crypto/") ? try Fixtures.cryptoBytes(String(file.dropFirst("crypto/".count))) : try Fixtures.bytes(file)
        let request = slot == .daily ? FetchRequest.daily(symbol) : .intraday(symbol)
        var generator = SplitMix64(seed: UInt64(index) &+ 0x5EED)
        let type = kind == "stooq" ? "text/csv" : "application/json"
        var variants: [[UInt8]] = []
        let step = max(1, original.count / 97)
        for cut in stride(from: 0, to: original.count, by: step) { variants.append(Array(original.prefix(cut))) }
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let at = Int(generator.next() % UInt64(bytes.count))
                bytes[at] = [UInt8(ascii: "-"), UInt8(ascii: "0"), UInt8(ascii: "\""), UInt8(ascii: ","), UInt8(ascii: "n"), 0xFF, 0][Int(generator.next() % 7)]
            }
            variants.append(bytes)
        }
        for body in variants {
            if case .success(let data) = adapter.parse(HTTPResponse(status: 200, headers: ["content-type": type], body: body), for: request) {
                #expect(!data.bars.isEmpty)
                #expect(data.bars.allSatisfy { $0.isFinite && $0.close > 0 && $0.low > 0 && $0.open > 0 && $0.high > 0 })
                #expect(zip(data.bars, data.bars.dropFirst()).allSatisfy { $0.time < $1.time })
            }
        }
    }
}

/// Swift 6.0's JSONDecoder (Debian 13's runtime, on a Pi) traps on bytes that are not UTF-8; the
/// check before it turns them into a refusal that names the byte, on every toolchain.
@Suite struct JSONBodyTests {
    @Test("invalid UTF 8 is refused before the decoder") func invalidUTF8IsRefusedBeforeTheDecoder() {
        let body = Array(#"{"chart": {"result": ["#.utf8) + [0xC3, 0x28] + Array(#"]}}"#.utf8)
        guard case .failure(let problem) = decodeJSON([String: [String: [String]]].self, body) else {
            Issue.record("decoded")
            return
        }
        #expect(problem == .notData("JSON: not UTF-8 at byte 22 (27 bytes)"))
    }

    @Test("control characters in strings are refused before the decoder") func controlCharactersInStringsAreRefusedBeforeTheDecoder() {
        let body = Array(#"{"a": "x"#.utf8) + [0x00] + Array(#"y", "b":"#.utf8) + [0x0A] + Array(#" "c\"\t"}"#.utf8)
        #expect(decodeJSON([String: String].self, body) == .failure(.notData("JSON: control character 0 at byte 8 (27 bytes)")))
        #expect(firstControlCharacter(Array("{\"a\":\n\t\"b\\\"\\\\\"}".utf8)) == nil)
        #expect(firstControlCharacter(Array("{\"a\": \"b\tc\"}".utf8)) == 8)
        #expect(firstControlCharacter([0x7B, 0x01, 0x7D]) == 1)
    }

    @Test("first invalid byte", arguments: [([UInt8]("abc".utf8), nil), ([0x61, 0xFF], 1), ([0xE2, 0x82], 0), ([UInt8]("€x".utf8) + [0x80], 4),
                      ([0xF0, 0x9F, 0x93, 0x88], nil), ([0xED, 0xA0, 0x80], 0)] as [([UInt8], Int?)])
    func firstInvalidByte(bytes: [UInt8], expected: Int?) {
        #expect(firstInvalidUTF8(bytes) == expected)
    }
}


@Suite struct ProviderTableTests {
    @Test("every provider kind has exactly one adapter, and every adapter serves a kind of the table")
    func kindsAndAdaptersAgree() {
        let kinds = ProviderKind.all.map(\.name)
        let adapters = Providers.adapters.map { $0.kind }
        #expect(kinds.count == Set(kinds).count && adapters.count == Set(adapters).count)
        #expect(Set(kinds) == Set(adapters), "kinds \(kinds), adapters \(adapters)")
        for kind in kinds {
            let provider = Providers.make(ProviderSettings(name: "p", kind: kind))
            #expect(provider.map { type(of: $0).kind } == kind)
            #expect(provider?.settings.rate == ProviderKind.named(kind)?.rate)
        }
        #expect(Providers.make(ProviderSettings(name: "p", kind: "nope")) == nil)
    }

    @Test("the built-in providers exist without a section; http-csv needs its URL from the config")
    func builtIns() {
        let config = FetchConfig()
        #expect(Set(config.providers.keys) == Set(ProviderKind.all.filter(\.isBuiltIn).map(\.name)))
        #expect(!config.providers.keys.contains("http-csv"))
        let (_, issues) = FetchConfig.parse("[provider fleet]\nkind = http-csv\n", file: "t.conf")
        #expect(issues.contains { $0.description.contains("needs base-url") }, "\(issues)")
    }
}
