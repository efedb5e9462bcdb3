// Merging, the written layout (read back by the daemon's own parser), the status file, the config
// and the keys.

import Glibc
import Testing

@testable import Feed
@testable import Fetch

@Suite struct MergeTests {
    let zone = try! ExchangeTimeZone(identifier: "America/New_York")

    func day(_ y: Int, _ m: Int, _ d: Int, close: Double) -> PriceBar {
        PriceBar(time: CivilDate(year: y, month: m, day: d)!.unixTimeAtMidnightUTC, open: close, high: close, low: close, close: close)
    }

    @Test("history is kept and the new bar wins") func historyIsKeptAndTheNewBarWins() {
        let old = [day(2020, 1, 2, close: 1), day(2020, 1, 3, close: 2), day(2024, 1, 2, close: 3)]
        let new = [day(2024, 1, 2, close: 30), day(2024, 1, 3, close: 4)]
        let merged = DataFile.merge(existing: old, new: new, slot: .daily, sessions: 5, zone: zone)
        #expect(merged.map(\.close) == [1, 2, 30, 4])
    }

    @Test("intraday keeps the last sessions") func intradayKeepsTheLastSessions() {
        var bars: [PriceBar] = []
        for d in 1...8 {
            for minute in 0..<3 {
                let t = Fixtures.newYork(2024, 10, d, 9, 30 + minute)
                bars.append(PriceBar(time: t, open: 1, high: 1, low: 1, close: Double(d)))
            }
        }
        let merged = DataFile.merge(existing: Array(bars.prefix(12)), new: Array(bars.dropFirst(12)), slot: .intraday,
                                    sessions: 5, zone: zone)
        #expect(Set(merged.map(\.close)) == [4, 5, 6, 7, 8])
        #expect(merged.count == 15)
    }

    /// A bar after 9999-12-31 was written as `+292277026596-12-04`, and two 300,000-row answers
    /// merged into a file over the reader's 500,000 rows: files the reader refused, never replaced
    /// again. The merge keeps what can be read back; the check refuses anything else.
    @Test("what is merged is always what the reader takes back: years 1-9999, at most its row limit")
    func mergeStaysReadable() throws {
        let far = PriceBar(time: Int64.max / 2, open: 1, high: 1, low: 1, close: 1)
        let merged = DataFile.merge(existing: [day(2024, 1, 2, close: 3)], new: [far], slot: .daily, sessions: 5, zone: zone)
        #expect(merged.map(\.close) == [3])
        let start = CivilDate(year: 1000, month: 1, day: 1)!.unixTimeAtMidnightUTC
        let many = (0..<300_000).map { PriceBar(time: start + Int64($0) * 86_400, open: 1, high: 1, low: 1, close: Double($0 % 100 + 1)) }
        let more = (300_000..<600_000).map { PriceBar(time: start + Int64($0) * 86_400, open: 1, high: 1, low: 1, close: 2) }
        let big = DataFile.merge(existing: many, new: more, slot: .daily, sessions: 5, zone: zone)
        #expect(big.count == YahooCSV.maximumRows)
        #expect(big.last?.time == more.last?.time)
        let bytes = DataFile.render(big, slot: .daily, zone: zone)
        #expect(DataFile.unreadable(bytes, rows: big.count) == nil)
        // What the layout cannot carry is named before any rename.
        let broken = DataFile.render([day(2024, 1, 2, close: 3), far], slot: .daily, zone: zone)
        #expect(DataFile.unreadable(broken, rows: 2)?.contains("line 3") == true)
    }

    @Test("the daemon reads what is written") func theDaemonReadsWhatIsWritten() throws {
        let daily = [PriceBar(time: CivilDate(year: 2024, month: 3, day: 1)!.unixTimeAtMidnightUTC, open: 34.25,
                              high: Double(Float(34.55)), low: 34.1, close: 34.45, adjustedClose: 34.4, volume: 1251)]
        let (series, report) = try YahooCSV.parse(DataFile.render(daily, slot: .daily, zone: zone), source: "X.csv")
        #expect(report.isClean)
        #expect(series.interval == .daily)
        #expect(series.bars[0].time == daily[0].time)
        #expect(series.bars[0].high == 34.55, "a single-precision price is written as the price it stands for")
        #expect(series.bars[0].adjustedClose == 34.4 && series.bars[0].volume == 1251)

        // Intraday across the DST change: the offsets follow the zone.
        let intraday = [Fixtures.newYork(2024, 11, 1, 15, 59), Fixtures.newYork(2024, 11, 4, 9, 30)].map {
            PriceBar(time: $0, open: 1.5, high: 1.5, low: 1.5, close: 1.5)
        }
        let text = String(decoding: DataFile.render(intraday, slot: .intraday, zone: zone), as: UTF8.self)
        #expect(text.contains("2024-11-01 15:59:00-04:00") && text.contains("2024-11-04 09:30:00-05:00"))
        let (back, _) = try YahooCSV.parse(text: text, source: "X-1m.csv")
        #expect(back.bars.map(\.time) == intraday.map(\.time))
        #expect(back.bars.allSatisfy { $0.adjustedClose == 1.5 }, "Adj Close repeats the close when the source has none")
    }

    @Test("replacing is atomic and leaves no temporary file") func replacingIsAtomicAndLeavesNoTemporaryFile() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        try DataFile.replaceAtomically(path: dir + "/A.csv", bytes: Array("one\n".utf8))
        try DataFile.replaceAtomically(path: dir + "/A.csv", bytes: Array("two\n".utf8))
        #expect(Fixtures.read(dir + "/A.csv") == Array("two\n".utf8))
        var names: [String] = []
        let d = opendir(dir)!
        while let e = readdir(d) {
            names.append(withUnsafePointer(to: e.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) })
        }
        closedir(d)
        #expect(Set(names) == [".", "..", "A.csv"])
    }

    @Test("an existing file we cannot read is never replaced") func anExistingFileWeCannotReadIsNeverReplaced() {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        Fixtures.write(dir + "/A.csv", "Symbol,Price\nAAPL,1\n")
        guard case .failure = DataFile.readExisting(path: dir + "/A.csv") else { Issue.record("a foreign file was accepted"); return }
        Fixtures.write(dir + "/B.csv", "")
        #expect(DataFile.readExisting(path: dir + "/B.csv") == .success(nil))
        #expect(DataFile.readExisting(path: dir + "/none.csv") == .success(nil))
    }
}

@Suite struct StatusFileTests {
    @Test("round trip") func roundTrip() {
        var s = FetchStatus()
        s.symbol = "AAPL"
        s.provider = "yahoo"
        s.fetchedAt = 1_727_985_700
        s.lastBarTime = 1_727_985_600
        s.lastPriceTime = 1_727_985_601
        s.marketState = "CLOSED"
        s.delaySeconds = 900
        s.lastError = "intraday: yahoo: \"quoted\"\nand a new line"
        s.currency = "GBp"
        s.exchangeTimeZone = "Europe/London"
        s.price = 225.67
        s.previousClose = 226.78
        #expect(FetchStatus.parse(text: s.json()) == s)
    }

    @Test("garbage never crashes and never invents values") func garbageNeverCrashesAndNeverInventsValues() {
        for text in ["", "null", "[1,2]", "{", "{\"provider\": }", "{\"provider\": \"yahoo\"", "\u{FEFF}{}", "{\"a\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}"] {
            let status = FetchStatus.parse(text: text)
            #expect(status == nil || status == FetchStatus(), "\(text)")
        }
        let mixed = FetchStatus.parse(text: #"{"provider": 7, "fetched_at": "soon", "price": 1e999, "currency": "USD", "extra": {"x": [1, {"y": null}]}, "stale": true}"#)
        #expect(mixed?.provider == nil && mixed?.fetchedAt == nil && mixed?.price == nil)
        #expect(mixed?.currency == "USD")
        var generator = SplitMix64(seed: 42)
        var s = FetchStatus()
        s.provider = "yahoo"
        s.lastError = "x"
        let good = Array(s.json().utf8)
        for _ in 0..<500 {
            var bytes = good
            for _ in 0..<3 { bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            _ = FetchStatus.parse(bytes)
            _ = FetchStatus.parse(Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count)))))
        }
    }

    @Test("paths stay in the directory") func pathsStayInTheDirectory() {
        #expect(FetchStatus.path(forInstrument: "AAPL", in: "/var/lib/tickerboard") == "/var/lib/tickerboard/AAPL.status")
        #expect(FetchStatus.path(forInstrument: "../etc/x", in: "/d") == "/d/_.._etc_x.status")
        #expect(FetchStatus.path(forInstrument: "S&P 500", in: "/d/") == "/d/S_P_500.status")
    }
}

@Suite struct FetchConfigTests {
    let text = """
        [data]
        directory = /srv/prices
        [instrument AAPL]
        name = Apple
        daily = AAPL.csv
        intraday = AAPL-1m.csv
        providers = yahoo stooq
        stooq-symbol = aapl.us
        [instrument BTC]
        symbol = BTC-USD
        daily = BTC.csv
        session = 24/7
        [instrument SHOWN-ONLY]
        daily = mine.csv
        [provider fleet]
        kind = http-csv
        base-url = https://prices.example.com/data
        rate = 120/min
        [provider twelvedata]
        key-file = /etc/tickerboard/keys/twelvedata
        rate = 8/min 800/day
        [fetch]
        intraday-interval = 2min
        [chart]
        palette = standard
        """

    @Test("reads the fetcher keys and skips the daemons") func readsTheFetcherKeysAndSkipsTheDaemons() {
        let (config, issues) = FetchConfig.parse(text, file: "t.conf")
        #expect(issues.isEmpty, "\(issues)")
        #expect(config.dataDirectory == "/srv/prices")
        #expect(config.instruments.map(\.id) == ["AAPL", "BTC"], "an instrument without symbol or providers is not fetched")
        #expect(config.instruments[0].providers == ["yahoo", "stooq"])
        #expect(config.instruments[0].symbol(for: "stooq") == "aapl.us")
        #expect(config.instruments[0].symbol(for: "yahoo") == "AAPL")
        #expect(config.instruments[1].providers == ["yahoo"])
        #expect(config.instruments[1].session == .always)
        #expect(config.providers["fleet"]?.baseURL == "https://prices.example.com/data")
        #expect(config.providers["twelvedata"]?.rate == [RateLimit(count: 8, seconds: 60), RateLimit(count: 800, seconds: 86_400)])
        #expect(config.keyFiles["twelvedata"] == "/etc/tickerboard/keys/twelvedata")
        #expect(config.policy.intradayInterval == 120)
    }

    @Test("mistakes name the line") func mistakesNameTheLine() {
        let bad = """
            [instrument X]
            providers = yahoo nosuch
            daily = X.csv
            [provider odd]
            base-url = ftp://x
            [instrument Y]
            symbol = Y
            rate = 5/min
            """
        let (_, issues) = FetchConfig.parse(bad, file: "b.conf")
        let text = issues.map(\.description)
        #expect(text.contains { $0.hasPrefix("b.conf:1:") && $0.contains("no provider \"nosuch\"") })
        #expect(text.contains { $0.hasPrefix("b.conf:5:") && $0.contains("base-url") })
        #expect(text.contains { $0.hasPrefix("b.conf:4:") && $0.contains("needs kind") })
        #expect(text.contains { $0.hasPrefix("b.conf:6:") && $0.contains("no file") })
    }

    @Test("an [fx PAIR] with a symbol is fetched into its daily file like an instrument") func fxPairs() throws {
        let (config, issues) = FetchConfig.parse("""
            [fx USDEUR]
            daily = USDEUR.csv
            symbol = EUR=X
            [fx EUR/PLN]
            daily = EURPLN.csv
            providers = yahoo stooq
            stooq-symbol = eurpln
            [fx GBPEUR]
            daily = GBPEUR.csv
            """, file: "t.conf")
        #expect(issues.isEmpty, "\(issues)")
        // GBPEUR names no symbol or provider: the owner fills its file another way.
        #expect(config.instruments.map(\.id) == ["fx-USDEUR", "fx-EURPLN"])
        let usd = try #require(config.instruments.first)
        #expect(usd.symbol == "EUR=X" && usd.dailyFile == "USDEUR.csv" && usd.intradayFile == nil)
        #expect(usd.timeZone == "Europe/London")
        let pln = try #require(config.instruments.last)
        #expect(pln.symbol(for: "yahoo") == "EURPLN=X" && pln.symbol(for: "stooq") == "eurpln")
    }

        @Test("key syntax is shared with the daemons check") func keySyntaxIsSharedWithTheDaemonsCheck() {
        #expect(FetchSettings.checkInstrumentKey("providers", "yahoo, stooq") == .ok)
        #expect(FetchSettings.checkInstrumentKey("yahoo-symbol", "^GSPC") == .ok)
        #expect(FetchSettings.checkInstrumentKey("colour", "red") == .unknown)
        #expect(FetchSettings.checkProviderKey(name: "x", "rate", "five") != .ok)
        #expect(FetchSettings.parseRate("5/10s") == [RateLimit(count: 5, seconds: 10)])
        #expect(FetchSettings.checkFetchKey("max-body", "8M") == .ok)
    }
}

@Suite struct SecretTests {
    @Test("keys come from credentials or AP rivate file") func keysComeFromCredentialsOrAPrivateFile() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        Fixtures.write(dir + "/twelvedata", "CREDKEY123\n")
        let fromCredentials = Secrets.load(provider: "twelvedata", keyFile: nil, environment: ["CREDENTIALS_DIRECTORY": dir])
        #expect(try fromCredentials.get()?.value == "CREDKEY123")
        Fixtures.write(dir + "/key", "  FILEKEY456  \n")
        chmod(dir + "/key", 0o644)
        guard case .failure(let e) = Secrets.load(provider: "stooq", keyFile: dir + "/key", environment: [:]) else {
            Issue.record("a world-readable key file was accepted"); return
        }
        #expect(e.description.contains("chmod 600") && !e.description.contains("FILEKEY"))
        chmod(dir + "/key", 0o600)
        #expect(try Secrets.load(provider: "stooq", keyFile: dir + "/key", environment: [:]).get()?.value == "FILEKEY456")
        #expect("\(Secret("FILEKEY456"))" == "<key>")
    }

    @Test("a key file must be the private file itself") func aKeyFileMustBeThePrivateFileItself() throws {
        let dir = Fixtures.scratchDirectory()
        defer { Fixtures.cleanUp(dir) }
        Fixtures.write(dir + "/key", "FILEKEY456\n")
        chmod(dir + "/key", 0o600)
        // a link (whose target's mode says nothing about who can swap the link), a FIFO (which
        // must not block the fetcher), a directory and an oversized file are refused with the path
        symlink(dir + "/key", dir + "/link")
        mkfifo(dir + "/fifo", 0o600)
        mkdir(dir + "/dir", 0o700)
        Fixtures.write(dir + "/big", String(repeating: "k", count: 5000))
        chmod(dir + "/big", 0o600)
        for (name, words) in [("link", "symbolic link"), ("fifo", "not a regular file"), ("dir", "not a regular file"),
                              ("big", "larger than 4096")] {
            guard case .failure(let e) = Secrets.load(provider: "stooq", keyFile: dir + "/" + name, environment: [:]) else {
                Issue.record("\(name) was accepted as a key file"); continue
            }
            #expect(e.description.contains(dir + "/" + name) && e.description.contains(words), "\(name): \(e)")
            #expect(!e.description.contains("FILEKEY"))
        }
        #expect(try Secrets.load(provider: "stooq", keyFile: dir + "/key", environment: [:]).get()?.value == "FILEKEY456")
    }

    @Test("redaction covers encoded forms") func redactionCoversEncodedForms() {
        let key = Secret("a+b/c=d")
        let text = "GET https://x/q?apikey=\(urlEncode(key.value)) failed; key a+b/c=d"
        let redacted = Secrets.redact(text, [key])
        #expect(!redacted.contains("a+b") && !redacted.contains("a%2Bb"))
    }

    /// Echoed lower-cased (`ab%2b%2fkey…`), fully percent-encoded, upper-cased, or short: none leaves.
    @Test("redaction ignores letter case and encoding, and covers short keys and unknown key parameters")
    func redactionIgnoresCase() {
        let key = Secret("Ab+/Key9Z")
        let echoes = ["apikey=ab%2b%2fkey9z", "APIKEY=AB%2B%2FKEY9Z", "key ab+/key9z", "%41%62%2B%2F%4B%65%79%39%5A",
                      "%41%62%2b%2f%4b%65%79%39%5a"]
        for echo in echoes {
            let redacted = Secrets.redact("error: \(echo) invalid", [key])
            #expect(!redacted.lowercased().contains("key9z") && !redacted.lowercased().contains("%4b%65"), "\(echo) -> \(redacted)")
        }
        #expect(Secrets.redact("token xyz: bad", [Secret("xyz")]) == "token <key>: bad")
        // Another key the provider echoed in a URL: the parameter's value goes, the rest stays.
        #expect(Secrets.redact("GET https://api.example/q?symbol=AAPL&apiKey=OTHER123&x=1 failed", [])
                == "GET https://api.example/q?symbol=AAPL&apiKey=<key>&x=1 failed")
        #expect(Secrets.redact("the monkey=1 stays", []) == "the monkey=1 stays")
    }
}

/// `Retry-After` as a date was never honoured: the spaces that separate its fields were stripped
/// before parsing. RFC 9110 asks recipients to take all three date forms.
@Suite struct RetryAfterTests {
    func after(_ value: String, now: Int64 = 784_111_717) -> Int? {
        HTTPResponse(status: 429, headers: ["retry-after": value], body: []).retryAfter(now: now)
    }

    @Test("Retry-After takes seconds and all three HTTP date forms, bounded to a day")
    func retryAfterForms() {
        // 784111777 is Sun, 06 Nov 1994 08:49:37 GMT; now is a minute before it.
        #expect(after("120") == 120)
        #expect(after(" 120 ") == 120)
        #expect(after("Sun, 06 Nov 1994 08:49:37 GMT") == 60)
        #expect(after("Sunday, 06-Nov-94 08:49:37 GMT") == 60)
        #expect(after("Sun Nov  6 08:49:37 1994") == 60)
        #expect(after("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_200_000) == 0)   // in the past: now
        #expect(after("99999999999999999999999") == 86_400)
        #expect(after("Fri, 31 Dec 9999 23:59:59 GMT", now: .min) == 86_400)
        #expect(after("Sun, 06 Nov 1994 08:49:37 GMT", now: .max) == 0)
        for bad in ["-5", "soon", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 99999 08:49:37 GMT", ""] {
            #expect(after(bad) == nil, "\(bad)")
        }
    }
}

/// What is a number but not this instrument's price is held back, the file kept.
@Suite struct PlausibilityTests {
    func days(_ closes: [Double], from day: Int = 1) -> [PriceBar] {
        closes.enumerated().map { i, c in
            PriceBar(time: CivilDate(year: 2024, month: 3, day: day + i)!.unixTimeAtMidnightUTC, open: c, high: c, low: c, close: c)
        }
    }

    @Test("a 1000x jump, a 309-digit price and another instrument's history are held back; a split's re-based history is not")
    func plausibility() {
        let old = days([100, 101, 102, 101])
        #expect(Plausibility.problem(new: days([101, 102, 101, 103], from: 1), existing: old) == nil)
        #expect(Plausibility.problem(new: days([103_000], from: 5), existing: old)?.contains("x1019.8") == true)
        #expect(Plausibility.problem(new: days([1e308], from: 5), existing: old)?.contains("no market's price") == true)
        #expect(Plausibility.problem(new: days([5e-324], from: 5), existing: old)?.contains("no market's price") == true)
        #expect(Plausibility.problem(new: days([1e308], from: 5), existing: []) != nil)
        // Stooq and http-csv carry no symbol: another instrument's 5s over our 101s.
        #expect(Plausibility.problem(new: days([5, 5.1, 5.2, 5.1, 5.3]), existing: old)?.contains("another instrument") == true)
        // Even one that moves in step with ours, at a factor no split has.
        #expect(Plausibility.problem(new: days([5.3, 5.353, 5.406, 5.353]), existing: old)?.contains("another instrument") == true)
        // A 4:1 split: the provider's whole history divided by four, the next day in line with it.
        #expect(Plausibility.problem(new: days([25, 25.25, 25.5, 25.25, 25.6]), existing: old) == nil)
        // One shared day cannot tell a split from another instrument.
        #expect(Plausibility.problem(new: days([25.25, 25.6], from: 4), existing: old) != nil)
        // Nothing on disk yet: any quotable first answer is taken.
        #expect(Plausibility.problem(new: days([0.0004, 0.0005]), existing: []) == nil)
    }

    /// Issue 54 item 14: only the first new bar was compared with the file, and a first fetch not at
    /// all: `…100, 100, 100000` was merged and the wall showed +99,900 %.
    @Test("every step from the file's last close through the new bars is judged, and a first answer's last year")
    func everyStep() {
        let old = days([100, 101, 102, 101])
        #expect(Plausibility.problem(new: days([100, 100, 100_000], from: 5), existing: old)?.contains("x1000") == true)
        #expect(Plausibility.problem(new: days([100, 100, 100_000]), existing: [])?.contains("x1000") == true)
        #expect(Plausibility.problem(new: days([100, 99, 2], from: 5), existing: old)?.contains("x0.02") == true)
        // A first answer's old history is not judged: bitcoin's 2010 (0.008 to 0.08 within days).
        let early = [0.008, 0.08, 0.07].enumerated().map { i, c in
            PriceBar(time: CivilDate(year: 2010, month: 7, day: 12 + i)!.unixTimeAtMidnightUTC, open: c, high: c, low: c, close: c)
        }
        #expect(Plausibility.problem(new: early + days([60_000, 61_000]), existing: []) == nil)
    }
}
