// The keyless crypto adapters (coinbase, kraken, binance, coingecko) on the providers' documented
// examples: Binance's and CoinGecko's from shared/data/providers, Coinbase's and Kraken's written
// in the documented shape in Fixtures/crypto (each sidecar names its page). Expected values are
// the fixtures' text read by hand; dates and instants were computed once with Python, as the
// comments show (`datetime.fromtimestamp(t, timezone.utc)`), never by running this code.

import Testing

@testable import Feed
@testable import Fetch

/// 2024-03-31 20:00 UTC: the daily fixtures' last candle (03-31) is today's, still open.
let cryptoEvening: Int64 = 1_711_915_200
/// 2024-04-01 14:57 UTC: the 5-minute fixtures' last candle (14:55) is the one in progress.
let cryptoAfternoon: Int64 = 1_711_983_420

func day(_ bar: PriceBar) -> String { CivilDate(unixTime: bar.time).description }

func cryptoParse(_ kind: String, _ body: [UInt8], symbol: String, slot: Slot, status: Int = 200,
                 headers: [String: String] = [:], now: Int64? = nil) -> Result<ProviderData, FetchProblem> {
    let request = FetchRequest(symbol: symbol, slot: slot, now: now ?? (slot == .daily ? cryptoEvening : cryptoAfternoon),
                               fileName: "X.csv")
    return provider(kind).parse(json(body, status: status, type: "application/json", headers: headers), for: request)
}

/// The facts every crypto answer carries: UTC, around the clock, the pair's quote currency.
func expectCryptoFacts(_ data: ProviderData, currency: String?, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(data.exchangeTimeZone == "UTC", sourceLocation: sourceLocation)
    #expect(data.tradesAroundTheClock, sourceLocation: sourceLocation)
    #expect(data.marketState == "REGULAR", sourceLocation: sourceLocation)
    #expect(data.currency == currency, sourceLocation: sourceLocation)
}

@Suite struct CryptoPairTests {
    @Test("the config's pair becomes each exchange's symbol") func symbolMapping() {
        #expect(CryptoPair("BTC-EUR") == CryptoPair("btc/eur"))
        #expect(CryptoPair("BTC-EUR")?.quote == "EUR")
        for bad in ["BTC", "BTC-EUR-X", "-EUR", "BTC-", "B-EUR", "BTC_EUR", "BT€-EUR"] { #expect(CryptoPair(bad) == nil, "\(bad)") }
        #expect(CoinbaseProvider.product("btc/eur") == "BTC-EUR")
        #expect(KrakenProvider.pair("BTC-EUR") == "XBTEUR")
        #expect(KrakenProvider.pair("DOGE-USD") == "XDGUSD")
        #expect(KrakenProvider.pair("ETH-BTC") == "ETHXBT")
        #expect(BinanceProvider.symbol("BTC-EUR") == "BTCEUR")
        #expect(BinanceProvider.symbol("eth/usdt") == "ETHUSDT")
        #expect(CoinGeckoProvider.coin("BTC-EUR")! == ("bitcoin", "eur"))
        #expect(CoinGeckoProvider.coin("ETH/USD")! == ("ethereum", "usd"))
        #expect(CoinGeckoProvider.coin("wrapped-bitcoin:EUR")! == ("wrapped-bitcoin", "eur"))
        #expect(CoinGeckoProvider.coin("XYZ-EUR") == nil)
        #expect(CoinGeckoProvider.coin("bit coin:eur") == nil)
    }

    @Test("the requests") func requests() {
        func url(_ kind: String, _ symbol: String, _ slot: Slot, newest: Int64? = nil, now: Int64 = cryptoEvening) -> String {
            provider(kind).httpRequest(for: FetchRequest(symbol: symbol, slot: slot, now: now, fileName: "X.csv", newestBarOnDisk: newest)).url
        }
        #expect(url("coinbase", "BTC-EUR", .daily) == "https://api.exchange.coinbase.com/products/BTC-EUR/candles?granularity=86400")
        #expect(url("coinbase", "eth/usd", .intraday) == "https://api.exchange.coinbase.com/products/ETH-USD/candles?granularity=300")
        #expect(url("kraken", "BTC-EUR", .daily) == "https://api.kraken.com/0/public/OHLC?pair=XBTEUR&interval=1440")
        // Since the newest candle on disk less one interval: it may have been in progress.
        #expect(url("kraken", "BTC-EUR", .intraday, newest: 1_711_983_000)
                == "https://api.kraken.com/0/public/OHLC?pair=XBTEUR&interval=5&since=1711982700")
        #expect(url("binance", "BTC-EUR", .daily) == "https://data-api.binance.vision/api/v3/klines?symbol=BTCEUR&interval=1d&limit=1000")
        // Two days on: the gap in days plus the newest on disk and the one in progress.
        #expect(url("binance", "BTC-EUR", .daily, newest: cryptoEvening - 2 * 86_400).hasSuffix("&limit=4"))
        #expect(url("binance", "BTC-EUR", .intraday, newest: cryptoEvening - 600).hasSuffix("interval=5m&limit=4"))
        // Keyless CoinGecko reaches back 365 days; a day asked for comes 5-minutely.
        #expect(url("coingecko", "BTC-EUR", .daily)
                == "https://api.coingecko.com/api/v3/coins/bitcoin/market_chart/range?vs_currency=eur&from=\(cryptoEvening - 364 * 86_400)&to=\(cryptoEvening)")
        #expect(url("coingecko", "usd-coin:eur", .intraday).contains("/coins/usd-coin/market_chart/range?vs_currency=eur&from=\(cryptoEvening - 86_340)&"))
        for kind in ["coinbase", "kraken", "binance", "coingecko"] {
            #expect(provider(kind).httpRequest(for: .daily("BTC-EUR")).headers == ["Accept: application/json"], "\(kind): no key")
        }
    }

    @Test("a config whose symbol is no pair is refused before any request") func configCheck() {
        func issues(_ conf: String) -> [String] {
            FetchConfig.parse("[data]\ndirectory = /tmp\n" + conf, file: "t.conf").1.filter(\.isError).map(\.message)
        }
        #expect(issues("[instrument BTC]\nsymbol = BTC-EUR\nproviders = coinbase kraken binance coingecko\ndaily = BTC.csv\n") == [])
        let noPair = issues("[instrument BTC]\nproviders = kraken yahoo\ndaily = BTC.csv\n")
        #expect(noPair == ["[instrument BTC] kraken needs a pair like BTC-EUR (base-quote; symbol = or kraken-symbol =), found \"BTC\""])
        #expect(issues("[instrument BTC]\nproviders = kraken\nkraken-symbol = XBT-EUR\ndaily = BTC.csv\n") == [])
        let unknown = issues("[instrument XYZ]\nsymbol = XYZ-EUR\nproviders = coinbase coingecko\ndaily = XYZ.csv\n")
        #expect(unknown.count == 1 && unknown[0].contains("coingecko has no id for XYZ") && unknown[0].contains("coingecko-symbol = ID:eur"), "\(unknown)")
        #expect(issues("[instrument XYZ]\nsymbol = XYZ-EUR\nproviders = coingecko\ncoingecko-symbol = xyz-token:eur\ndaily = XYZ.csv\n") == [])
        // A [provider] section of a crypto kind is checked alike.
        #expect(issues("[provider cb2]\nkind = coinbase\n[instrument E]\nproviders = cb2\ndaily = E.csv\n")
                == ["[instrument E] cb2 needs a pair like BTC-EUR (base-quote; symbol = or cb2-symbol =), found \"E\""])
    }
}

@Suite struct CoinbaseParserTests {
    @Test("daily candles newest first become bars oldest first") func daily() throws {
        let data = try cryptoParse("coinbase", try Fixtures.cryptoBytes("coinbase/candles_BTC-EUR_86400.json"), symbol: "BTC-EUR", slot: .daily).get()
        // [time, low, high, open, close, volume]; 1711670400 = 2024-03-29 00:00 UTC
        #expect(data.bars.map(day) == ["2024-03-29", "2024-03-30", "2024-03-31"])
        #expect(data.bars.map(\.close) == [64200.5, 64450.12, 65538.4])
        let first = data.bars[0]
        #expect((first.open, first.high, first.low, first.volume) == (64980, 65012.3, 63120.77, 1523.00412))
        #expect(data.bars[1].low == 63800, "a JSON integer price")
        #expect(data.interval == .daily && data.symbol == "BTC-EUR")
        #expect(data.price == 65538.4 && data.previousClose == 64450.12)
        expectCryptoFacts(data, currency: "EUR")
    }

    @Test("five-minute candles keep their instants and their gap") func intraday() throws {
        let data = try cryptoParse("coinbase", try Fixtures.cryptoBytes("coinbase/candles_BTC-EUR_300.json"), symbol: "BTC-EUR", slot: .intraday).get()
        // 14:40, 14:50, 14:55 UTC on 2024-04-01 (14:45 had no ticks)
        #expect(data.bars.map(\.time) == [1_711_982_400, 1_711_983_000, 1_711_983_300])
        #expect(data.bars.map(\.close) == [65001.3, 65020, 65058.75])
        #expect(data.interval == .intraday(seconds: 300))
        expectCryptoFacts(data, currency: "EUR")
    }

    @Test("every error shape") func errors() throws {
        let notFound = cryptoParse("coinbase", try Fixtures.cryptoBytes("coinbase/error_404_not_found.json"), symbol: "BTC-XYZ", slot: .daily, status: 404)
        #expect(notFound == .failure(.providerError(status: 404, message: "NotFound (no product BTC-XYZ on Coinbase?)")))
        let limited = cryptoParse("coinbase", try Fixtures.cryptoBytes("coinbase/error_429_rate_limit.json"), symbol: "BTC-EUR", slot: .daily,
                                  status: 429, headers: ["retry-after": "30"])
        #expect(limited == .failure(.rateLimited(retryAfter: 30, message: "Public rate limit exceeded")))
        let gateway = cryptoParse("coinbase", Array("<html><head><title>502 Bad Gateway</title></head></html>".utf8), symbol: "BTC-EUR",
                                  slot: .daily, status: 502)
        guard case .failure(.serverError(502, _)) = gateway else { Issue.record("\(gateway)"); return }
        #expect(cryptoParse("coinbase", Array("[]".utf8), symbol: "BTC-EUR", slot: .daily)
                == .failure(.badData("no candles for BTC-EUR (an empty list: no trades in the window?)")))
        let cut = Array(try Fixtures.cryptoBytes("coinbase/candles_BTC-EUR_86400.json").prefix(40))
        guard case .failure(.notData(let m)) = cryptoParse("coinbase", cut, symbol: "BTC-EUR", slot: .daily) else { Issue.record("cut"); return }
        #expect(m.hasPrefix("JSON:"))
        // A message object at 200 is the provider's words, not data.
        #expect(cryptoParse("coinbase", Array(#"{"message":"Invalid granularity"}"#.utf8), symbol: "BTC-EUR", slot: .daily)
                == .failure(.providerError(status: 200, message: "Invalid granularity")))
    }

    @Test("daily candles for intraday and the reverse are refused") func wrongSlot() throws {
        let daily = try Fixtures.cryptoBytes("coinbase/candles_BTC-EUR_86400.json")
        #expect(cryptoParse("coinbase", daily, symbol: "BTC-EUR", slot: .intraday)
                == .failure(.badData("asked for intraday bars, the closest are 24 hours apart: daily bars")))
        let minutes = try Fixtures.cryptoBytes("coinbase/candles_BTC-EUR_300.json")
        #expect(cryptoParse("coinbase", minutes, symbol: "BTC-EUR", slot: .daily)
                == .failure(.badData("a candle at t=1711983300 is off the 00:00 UTC grid: not daily candles")))
    }
}

@Suite struct KrakenParserTests {
    @Test("daily candles under Kraken's own name of the pair") func daily() throws {
        let data = try cryptoParse("kraken", try Fixtures.cryptoBytes("kraken/ohlc_XBTEUR_1440.json"), symbol: "BTC-EUR", slot: .daily).get()
        #expect(data.bars.map(day) == ["2024-03-29", "2024-03-30", "2024-03-31"])
        // [time, "open", "high", "low", "close", "vwap", "volume", count]: the strings as written
        #expect(data.bars.map(\.close) == [64200.5, 64450.1, 65538.4])
        #expect(data.bars.map(\.volume) == [1812.44871029, 1290.10277310, 966.51023378])
        #expect((data.bars[0].open, data.bars[0].high, data.bars[0].low) == (64980.0, 65012.3, 63120.7))
        #expect(data.symbol == "XXBTZEUR" && data.previousClose == 64450.1)
        expectCryptoFacts(data, currency: "EUR")
    }

    @Test("five-minute candles, the last one in progress") func intraday() throws {
        let data = try cryptoParse("kraken", try Fixtures.cryptoBytes("kraken/ohlc_XBTEUR_5.json"), symbol: "BTC-EUR", slot: .intraday).get()
        #expect(data.bars.map(\.time) == [1_711_982_400, 1_711_982_700, 1_711_983_000, 1_711_983_300])
        #expect(data.bars.map(\.close) == [65001.3, 65004.3, 65020.0, 65058.7])
        #expect(data.bars.last?.volume == 3.51200871)
        #expect(data.interval == .intraday(seconds: 300))
    }

    @Test("the documentation's example is one-minute candles: not taken for five-minute or daily ones") func docsExample() throws {
        let body = try Fixtures.cryptoBytes("kraken/ohlc_docs_example.json")
        // XXBTZUSD names XBT-USD (and BTC-USD); its second candle, 1688671260, is 60 s off the 300 s grid.
        #expect(cryptoParse("kraken", body, symbol: "XBT-USD", slot: .intraday)
                == .failure(.badData("a candle at t=1688671260 is off the 300 s grid: not intraday candles")))
        // 1688671200 = 2023-07-06 19:20 UTC, not a midnight.
        #expect(cryptoParse("kraken", body, symbol: "BTC-USD", slot: .daily)
                == .failure(.badData("a candle at t=1688671200 is off the 00:00 UTC grid: not daily candles")))
        #expect(cryptoParse("kraken", body, symbol: "BTC-EUR", slot: .daily)
                == .failure(.badData("the response is for \"XXBTZUSD\", not \"XBTEUR\"")))
    }

    @Test("errors come at 200 in the error array") func errors() throws {
        func parse(_ file: String) throws -> Result<ProviderData, FetchProblem> {
            cryptoParse("kraken", try Fixtures.cryptoBytes("kraken/" + file), symbol: "BTC-XYZ", slot: .daily)
        }
        let unknown = try parse("error_unknown_pair.json")
        #expect(unknown == .failure(.providerError(status: 200, message: "EQuery:Unknown asset pair (kraken has no such pair)")))
        #expect(try parse("error_rate_limit.json") == .failure(.rateLimited(retryAfter: nil, message: "EAPI:Rate limit exceeded")))
        #expect(try parse("error_service_unavailable.json") == .failure(.serverError(status: 200, message: "EService:Unavailable")))
        if case .failure(let p) = unknown { #expect(!p.affectsWholeProvider) }
        if case .failure(let p) = try parse("error_rate_limit.json") { #expect(p.affectsWholeProvider) }
        // The rate-limit page's other words: throttled until a time (60 s after now here).
        let throttled = cryptoParse("kraken", Array(#"{"error":["EService: Throttled: 1711983480"]}"#.utf8), symbol: "BTC-EUR", slot: .intraday)
        #expect(throttled == .failure(.rateLimited(retryAfter: 60, message: "EService: Throttled: 1711983480")))
        // Warnings beside a result do not stop it.
        var text = String(decoding: try Fixtures.cryptoBytes("kraken/ohlc_XBTEUR_1440.json"), as: UTF8.self)
        text = text.replacing(#"{"error":[]"#, with: #"{"error":["WGeneral:Deprecated"]"#)
        #expect(try cryptoParse("kraken", Array(text.utf8), symbol: "BTC-EUR", slot: .daily).get().bars.count == 3)
    }

    @Test("edge answers, empty, cut and bad values") func damaged() throws {
        let edge = cryptoParse("kraken", Array("error code: 520".utf8), symbol: "BTC-EUR", slot: .daily, status: 520)
        #expect(edge == .failure(.serverError(status: 520, message: "error code: 520")))
        let empty = cryptoParse("kraken", Array(#"{"error":[],"result":{"XXBTZEUR":[],"last":0}}"#.utf8), symbol: "BTC-EUR", slot: .daily)
        #expect(empty == .failure(.badData("no candles for XXBTZEUR (an empty list)")))
        let body = try Fixtures.cryptoBytes("kraken/ohlc_XBTEUR_1440.json")
        guard case .failure(.notData) = cryptoParse("kraken", Array(body.prefix(body.count / 2)), symbol: "BTC-EUR", slot: .daily) else {
            Issue.record("a cut body was accepted"); return
        }
        let text = String(decoding: body, as: UTF8.self).replacing(#""64200.5""#, with: #""64,200.5""#)
        #expect(cryptoParse("kraken", Array(text.utf8), symbol: "BTC-EUR", slot: .daily)
                == .failure(.badData("candle 1: close is \"64,200.5\", expected a number")))
    }
}

@Suite struct BinanceParserTests {
    /// shared/data/providers/binance/klines_docs_example.json (Binance's docs example, one kline).
    func docsExample() throws -> String { String(decoding: try Fixtures.bytes("binance/klines_docs_example.json"), as: UTF8.self) }

    @Test("the documentation's kline spans a week: not a daily bar") func docsExampleSpan() throws {
        // close - open + 1 = 1499644799999 - 1499040000000 + 1 = 604800000 ms, 7 days.
        #expect(cryptoParse("binance", Array(try docsExample().utf8), symbol: "BNB-BTC", slot: .daily, now: 1_499_100_000)
                == .failure(.badData("kline 1 spans 604800000 ms (open 1499040000000, close 1499644799999): not 1d klines")))
    }

    @Test("a one-day kline of the documented shape is a bar") func dailyKline() throws {
        // The same kline closing one day after it opened: 1499040000000 + 86400000 - 1 = 1499126399999.
        let text = try docsExample().replacing("1499644799999", with: "1499126399999")
        let data = try cryptoParse("binance", Array(text.utf8), symbol: "BNB-BTC", slot: .daily, now: 1_499_100_000).get()
        #expect(data.bars.map(day) == ["2017-07-03"])  // 1499040000 = 2017-07-03 00:00 UTC
        let bar = data.bars[0]
        #expect((bar.open, bar.high, bar.low, bar.close) == (0.01634790, 0.80000000, 0.01575800, 0.01577100))
        #expect(bar.volume == 148976.11427815)
        #expect(data.symbol == "BNBBTC")
        expectCryptoFacts(data, currency: "BTC")
    }

    @Test("every error shape") func errors() throws {
        let invalid = cryptoParse("binance", try Fixtures.cryptoBytes("binance/error_400_invalid_symbol.json"), symbol: "BTC-XYZ", slot: .daily, status: 400)
        #expect(invalid == .failure(.providerError(status: 400, message: "Invalid symbol. (BTCXYZ)")))
        let weight = cryptoParse("binance", try Fixtures.cryptoBytes("binance/error_429_request_weight.json"), symbol: "BTC-EUR", slot: .daily,
                                 status: 429, headers: ["retry-after": "31"])
        guard case .failure(.rateLimited(31, let m)) = weight else { Issue.record("\(weight)"); return }
        #expect(m.hasPrefix("Too much request weight used; current limit is 6000 request weight per 1 MINUTE."))
        let banned = cryptoParse("binance", try Fixtures.cryptoBytes("binance/error_418_ip_banned.json"), symbol: "BTC-EUR", slot: .daily,
                                 status: 418, headers: ["retry-after": "540"])
        guard case .failure(.rateLimited(540, let b)) = banned else { Issue.record("\(banned)"); return }
        #expect(b.hasPrefix("HTTP 418: Way too much request weight used; IP banned until 1711983600000."))
        // The same -1003 in a body at 200 is still a rate limit.
        let at200 = cryptoParse("binance", try Fixtures.cryptoBytes("binance/error_429_request_weight.json"), symbol: "BTC-EUR", slot: .daily)
        guard case .failure(.rateLimited(nil, _)) = at200 else { Issue.record("\(at200)"); return }
        let busy = cryptoParse("binance", Array(#"{"code":-1001,"msg":"Internal error; unable to process your request. Please try again."}"#.utf8),
                               symbol: "BTC-EUR", slot: .daily, status: 503)
        guard case .failure(.serverError(503, _)) = busy else { Issue.record("\(busy)"); return }
        #expect(cryptoParse("binance", Array("[]".utf8), symbol: "BTC-EUR", slot: .daily) == .failure(.badData("no klines for BTCEUR (an empty list)")))
        guard case .failure(.notData) = cryptoParse("binance", Array(try docsExample().utf8.prefix(100)), symbol: "BNB-BTC", slot: .daily) else {
            Issue.record("a cut body was accepted"); return
        }
    }
}

@Suite struct CoinGeckoParserTests {
    /// shared/data/providers/coingecko/market_chart_range_docs_example.json: CoinGecko's docs
    /// example, labelled ethereum in usd (its sidecar), points at 1711843200000, 1711929600000 and
    /// 1711983682000 ms.
    func docsExample() throws -> [UInt8] { try Fixtures.bytes("coingecko/market_chart_range_docs_example.json") }

    @Test("daily: a midnight point closes the day before, the last point is today so far") func daily() throws {
        let data = try cryptoParse("coingecko", try docsExample(), symbol: "ETH-USD", slot: .daily, now: 1_711_983_700).get()
        // 1711843200 = 2024-03-31 00:00 UTC -> 03-30; 1711929600 = 04-01 00:00 -> 03-31; 1711983682 = 04-01 15:01:22 -> 04-01
        #expect(data.bars.map(day) == ["2024-03-30", "2024-03-31", "2024-04-01"])
        #expect(data.bars.map(\.close) == [69702.3087473573, 71246.9514406015, 68887.7495158568])
        #expect(data.bars.allSatisfy { $0.open == $0.close && $0.high == $0.close && $0.low == $0.close && $0.volume == nil })
        #expect(data.price == 68887.7495158568 && data.priceTime == 1_711_983_682)
        #expect(data.previousClose == 71246.9514406015)
        expectCryptoFacts(data, currency: "USD")
    }

    @Test("intraday wants five-minute points: the daily example is refused, 5-minutely points snap to their bar") func intraday() throws {
        #expect(cryptoParse("coingecko", try docsExample(), symbol: "ETH-USD", slot: .intraday, now: 1_711_983_700)
                == .failure(.badData("asked for a day of 5-minute prices, the closest are 1440 minutes apart")))
        // Points 5 minutes apart as the keyless tier sends a day, the last one "now" (15:01:22 -> the 15:00 bar).
        let body = #"{"prices":[[1711982712345,65001.5],[1711983012345,65020.25],[1711983682000,65058.75]],"total_volumes":[]}"#
        let data = try cryptoParse("coingecko", Array(body.utf8), symbol: "BTC-EUR", slot: .intraday, now: 1_711_983_700).get()
        // 1711982712 -> 14:45:12 -> 14:45 (1711982700); 1711983012 -> 14:50:12 -> 14:50 (1711983000); 1711983682 -> 15:00 (1711983600)
        #expect(data.bars.map(\.time) == [1_711_982_700, 1_711_983_000, 1_711_983_600])
        #expect(data.bars.map(\.close) == [65001.5, 65020.25, 65058.75])
        #expect(data.interval == .intraday(seconds: 300) && data.priceTime == 1_711_983_682)
        expectCryptoFacts(data, currency: "EUR")
    }

    @Test("every error shape") func errors() throws {
        let limited = cryptoParse("coingecko", try Fixtures.cryptoBytes("coingecko/error_429_rate_limit.json"), symbol: "BTC-EUR", slot: .daily,
                                  status: 429, headers: ["retry-after": "119"])
        #expect(limited == .failure(.rateLimited(retryAfter: 119, message:
            "You've exceeded the Rate Limit. Please visit https://www.coingecko.com/en/api/pricing to subscribe to our API plans for higher rate limits.")))
        let unknown = cryptoParse("coingecko", try Fixtures.cryptoBytes("coingecko/error_404_coin_not_found.json"), symbol: "nocoin:eur", slot: .daily, status: 404)
        #expect(unknown == .failure(.providerError(status: 404, message:
            "coin not found (no CoinGecko id \"nocoin\": coingecko-symbol = ID:VS names it)")))
        // The recorded real 404 of a bad path (shared/data/providers).
        let path = cryptoParse("coingecko", try Fixtures.bytes("coingecko/market_chart_404_bad_path.json"), symbol: "BTC-EUR", slot: .daily, status: 404)
        #expect(path == .failure(.providerError(status: 404, message: "Incorrect path. Please check https://www.coingecko.com/api/")))
        let range = cryptoParse("coingecko", try Fixtures.cryptoBytes("coingecko/error_401_time_range.json"), symbol: "BTC-EUR", slot: .daily, status: 401)
        guard case .failure(.providerError(401, let m)) = range else { Issue.record("\(range)"); return }
        #expect(m.hasPrefix("Your request exceeds the allowed time range. Public API users are limited"))
        let down = cryptoParse("coingecko", Array("<!DOCTYPE html><html><title>503</title></html>".utf8), symbol: "BTC-EUR", slot: .daily, status: 503)
        guard case .failure(.serverError(503, _)) = down else { Issue.record("\(down)"); return }
        #expect(cryptoParse("coingecko", Array(#"{"prices":[],"market_caps":[],"total_volumes":[]}"#.utf8), symbol: "BTC-EUR", slot: .daily)
                == .failure(.badData("no prices for bitcoin (an empty chart)")))
        guard case .failure(.notData) = cryptoParse("coingecko", Array(try docsExample().prefix(120)), symbol: "BTC-EUR", slot: .daily) else {
            Issue.record("a cut body was accepted"); return
        }
        #expect(cryptoParse("coingecko", Array(#"{"prices":[[1711843200000,"n/a"]]}"#.utf8), symbol: "BTC-EUR", slot: .daily)
                == .failure(.badData("price 1 is not [milliseconds, price]: 1711843200000, \"n/a\"")))
    }
}
