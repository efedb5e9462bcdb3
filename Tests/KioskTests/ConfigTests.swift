import Chart
@testable import Commands
import DisplayModel
import InputModel
@testable import Kiosk
@testable import KioskCore
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

/// One broken input and the exact line `check-config` prints for it.
struct BrokenConfig: CustomTestStringConvertible, Sendable {
    var text: String
    var expected: String
    var testDescription: String { expected }
}

private func messages(_ text: String, file: String = "t.conf") -> [String] {
    Config.parse(text, file: file).1.map(\.description)
}

@Suite("Config")
struct ConfigTests {
    static let broken: [BrokenConfig] = [
        // File structure
        .init(text: "rotation = 90", expected: "t.conf:1: rotation: outside any section; put it under a header like [chart]"),
        .init(text: "[display", expected: "t.conf:1: expected a section header like [display], found a line of 8 characters beginning with \"display\" (the rest not shown)"),
        .init(text: "[display]\njust words", expected: "t.conf:2: expected \"key = value\", found a line of 10 characters (not shown: it may be no config text)"),
        .init(text: "[display]\n = 5", expected: "t.conf:2: a value without a key"),
        // [display]
        .init(text: "[display]\nbackend = x11", expected: "t.conf:2: backend: expected auto, kms or fbdev, found \"x11\""),
        .init(text: "[display]\ndevice = card0",
              expected: "t.conf:2: device: expected auto or a device path like /dev/dri/card0, found \"card0\""),
        .init(text: "[display]\nmode = big", expected: "t.conf:2: mode: expected WxH or WxH@Hz like 1920x1080@60 (at most 8192x8192, 1 to 1000 Hz), found \"big\""),
        .init(text: "# a comment\n[display]\nrotation = 45", expected: "t.conf:3: rotation: expected auto, 0, 90, 180 or 270, found \"45\""),
        .init(text: "[display]\nscale = 5", expected: "t.conf:2: scale: expected auto or a number from 0.25 to 4, found \"5\""),
        // [input]
        .init(text: "[input]\nenable = maybe", expected: "t.conf:2: enable: expected yes or no, found \"maybe\""),
        .init(text: "[input]\nseat = seat 0", expected: "t.conf:2: seat: expected a seat name like seat0, found \"seat 0\""),
        .init(text: "[input]\ncalibration = 1 0 0",
              expected: "t.conf:2: calibration: expected six numbers (a b c d e f of libinput's calibration matrix), found \"1 0 0\""),
        // [data]
        .init(text: "[data]\ndirectory = data", expected: "t.conf:2: directory: expected an absolute path, found \"data\""),
        .init(text: "[data]\nstale-after = soon",
              expected: "t.conf:2: stale-after: expected a duration like 3d, 12h or 90min (1s to 36500d), found \"soon\""),
        // [chart]
        .init(text: "[chart]\nranges = 1D 2W", expected: "t.conf:2: ranges: \"2W\" is not one of 1D 5D 1M 6M YTD 1Y 5Y MAX"),
        .init(text: "[chart]\nstart-range = 3M", expected: "t.conf:2: start-range: expected one of 1D 5D 1M 6M YTD 1Y 5Y MAX, found \"3M\""),
        .init(text: "[chart]\ncycle-interval = 1s",
              expected: "t.conf:2: cycle-interval: expected 0 (no cycling) or a duration from 2s to 24h, found \"1s\""),
        .init(text: "[chart]\ninstrument-interval = 3s",
              expected: "t.conf:2: instrument-interval: expected 0 or a duration from 5s to 7d, found \"3s\""),
        .init(text: "[chart]\nmorph-duration = 11s",
              expected: "t.conf:2: morph-duration: expected a duration from 0 to 10s, found \"11s\""),
        .init(text: "[chart]\nmorph-curve = cubic-bezier(2, 0, 0, 1)",
              expected: "t.conf:2: morph-curve: expected cubic-bezier(x1, y1, x2, y2) with x1 and x2 from 0 to 1 and y1 and y2 from -5 to 5, found \"cubic-bezier(2, 0, 0, 1)\""),
        .init(text: "[chart]\npalette = neon", expected: "t.conf:2: palette: expected standard or color-blind, found \"neon\""),
        .init(text: "[chart]\ndecimals = 7", expected: "t.conf:2: decimals: expected auto or a whole number from 0 to 6, found \"7\""),
        .init(text: "[chart]\ndecimal-separator = ;", expected: "t.conf:2: decimal-separator: expected auto, . or , found \";\""),
        .init(text: "[chart]\nlocale = Klingon",
              expected: "t.conf:2: locale: expected one of en-US en-GB en-CA en-AU en-IN de-DE de-AT fr-FR fr-CH it-IT sv-SE pt-BR ja-JP zh-CN zh-TW ko-KR, found \"Klingon\""),
        .init(text: "[chart]\ncolors = blue-up", expected: "t.conf:2: colors: expected auto (from the locale), green-up or red-up, found \"blue-up\""),
        .init(text: "[instrument X]\ncurrency = dollars",
              expected: "t.conf:2: currency: expected an ISO 4217 code like USD or EUR, GBp, ZAc, ILA for prices in pence or cents, or none for a bare number, found \"dollars\""),
        .init(text: "[chart]\ncurrency-position = left", expected: "t.conf:2: currency-position: expected auto, before or after, found \"left\""),
        // [power]
        .init(text: "[power]\nschedule = Mon-Fri",
              expected: "t.conf:2: schedule: expected \"Mon-Fri 07:00-22:00\" clauses separated by commas, found \"Mon-Fri\""),
        .init(text: "[power]\nschedule = Funday 07:00-22:00",
              expected: "t.conf:2: schedule: \"Funday\" is not a day or day range like Mon-Fri"),
        .init(text: "[power]\nschedule = Mon 25:00-26:00",
              expected: "t.conf:2: schedule: \"25:00-26:00\" is not a time range like 07:00-22:00"),
        .init(text: "[power]\nschedule = Mon 07:00-07:00",
              expected: "t.conf:2: schedule: \"07:00-07:00\" is not a time range like 07:00-22:00"),
        .init(text: "[power]\nblank-after-idle = -5",
              expected: "t.conf:2: blank-after-idle: expected 0 (never) or a duration like 10min (at most 7d), found \"-5\""),
        .init(text: "[power]\ncec = maybe",
              expected: "t.conf:2: cec: expected off, on, auto (when the box has a /dev/cec* adapter) or a device such as /dev/cec0, found \"maybe\""),
        .init(text: "[power]\ncec = /dev/../etc/passwd",
              expected: "t.conf:2: cec: expected off, on, auto (when the box has a /dev/cec* adapter) or a device such as /dev/cec0, found \"/dev/../etc/passwd\""),
        // [burn-in]
        .init(text: "[burn-in]\nshift = 20", expected: "t.conf:2: shift: expected pixels from 0 to 16, found \"20\""),
        .init(text: "[burn-in]\nperiod = 5s", expected: "t.conf:2: period: expected a duration from 10s to 7d, found \"5s\""),
        // [tape]
        .init(text: "[tape]\nposition = side",
              expected: "t.conf:2: position: expected off, full (the tape alone), bottom or top (a band beside the chart), found \"side\""),
        .init(text: "[tape]\nspeed = 5", expected: "t.conf:2: speed: expected pixels per second from 10 to 2000, found \"5\""),
        .init(text: "[tape]\nspeed = nan", expected: "t.conf:2: speed: expected pixels per second from 10 to 2000, found \"nan\""),
        .init(text: "[tape]\nspan = both", expected: "t.conf:2: span: expected all (one tape across the outputs in order) or off, found \"both\""),
        // [instrument NAME]
        .init(text: "[instrument AAPL]\ntime-zone = ../etc/passwd",
              expected: "t.conf:2: time-zone: \"../etc/passwd\" is not an IANA time zone name like Europe/Berlin"),
        .init(text: "[instrument AAPL]\nprice = open", expected: "t.conf:2: price: expected close or adjusted, found \"open\""),
        .init(text: "[instrument AAPL]\nexchange = XNYSE",
              expected: "t.conf:2: exchange: expected a market identifier code (ISO 10383) of XNYS, XNAS, XETR, XLON, XPAR, XAMS, XSWX, XTKS, XHKG, XASX, XTSE, 24/7, found \"XNYSE\""),
        .init(text: "[chart]\nbaseline-1d = open", expected: "t.conf:2: baseline-1d: expected previous-close or first, found \"open\""),
        .init(text: "[chart]\nextended-hours = maybe", expected: "t.conf:2: extended-hours: expected show, dim or hide, found \"maybe\""),
    ]

    @Test("each broken input gives exactly its message, as an error", arguments: broken)
    func brokenInput(_ c: BrokenConfig) {
        let (_, issues) = Config.parse(c.text, file: "t.conf")
        #expect(issues.map(\.description) == [c.expected])
        #expect(issues.allSatisfy { $0.severity == .error })
    }

    @Test("a bad value keeps the default for that key and the good keys around it apply")
    func badValueKeepsDefault() {
        let (config, issues) = Config.parse("[display]\nrotation = 45\nscale = 2\n", file: "t.conf")
        #expect(issues.count == 1)
        #expect(config.rotation == Config().rotation)
        #expect(config.scale == 2)
    }

    /// Issue 49 item 4: `mode = auto` drives at most 1920x1080 unless told otherwise.
    @Test("[display] max-size and mode = preferred: the cap on what auto drives")
    func maxSize() {
        #expect(Config.parse("", file: "t.conf").0.maxModeSize == ModeRequest(width: 1920, height: 1080))
        #expect(Config.parse("[display]\nmax-size = 1280x720\n", file: "t.conf").0.maxModeSize == ModeRequest(width: 1280, height: 720))
        #expect(Config.parse("[display]\nmax-size = none\n", file: "t.conf").0.maxModeSize == nil)
        let preferred = Config.parse("[display]\nmode = preferred\n", file: "t.conf").0
        #expect(preferred.mode == nil && preferred.maxModeSize == nil)
        let (_, issues) = Config.parse("[display]\nmax-size = 1920x1080@60\n", file: "t.conf")
        #expect(issues.map(\.description) == ["t.conf:2: max-size: expected WxH like 1920x1080 (the largest mode mode = auto drives) or none, found \"1920x1080@60\""])
    }

    /// Issue 48 item 10: a copied `[instrument X]` block left unrenamed merged silently and one
    /// instrument vanished. Within one file it is a warning naming both lines; across drop-ins the
    /// merge stays the documented way to change a section.
    @Test("a section named twice in one file is a warning naming both lines; across drop-ins it merges quietly")
    func repeatedSection() {
        let text = "[instrument A]\ndaily = a.csv\n[instrument B]\ndaily = b.csv\n[instrument A]\nname = Other\n[output first]\nscene = chart\n[output first]\nscene = tape\n"
        let (config, issues) = Config.parse(text, file: "t.conf")
        #expect(config.instruments.map(\.id) == ["A", "B"])
        #expect(issues.map(\.description) == [
            "t.conf:5: [instrument A] again (first at line 1): the two sections merge into one and the later keys win; give this one a name of its own if it is another",
            "t.conf:9: [output first] again (first at line 7): the two sections merge into one and the later keys win; give this one a name of its own if it is another",
        ])
        #expect(issues.allSatisfy { $0.severity == .warning })
        let (_, dropIn) = Config.parse([("[instrument A]\ndaily = a.csv\n", "main.conf"), ("[instrument A]\nname = Other\n", "conf.d/10.conf")])
        #expect(dropIn.isEmpty, "\(dropIn)")
    }

    @Test("unknown keys and sections are warnings with a did-you-mean")
    func unknownKeys() {
        let text = """
            [chart]
            cycle-intervall = 8
            frobnicate = 1
            [displya]
            rotation = 90
            scale = 2
            [instrument X]
            curency = EUR
            """
        let (config, issues) = Config.parse(text, file: "t.conf")
        #expect(issues.allSatisfy { $0.severity == .warning })
        #expect(issues.map(\.description) == [
            "t.conf:2: cycle-intervall: unknown key, ignored (did you mean \"cycle-interval\"?)",
            "t.conf:3: frobnicate: unknown key, ignored",
            // Once per unknown section, not once per key in it.
            "t.conf:5: rotation: unknown section [displya], its keys are ignored (did you mean \"display\"?)",
            "t.conf:8: curency: unknown key, ignored (did you mean \"currency\"?)",
        ])
        #expect(config.rotation == nil)
        #expect(config.cycleSeconds == 8)
    }

    @Test("the fetcher's keys and sections are accepted and checked, not reported as unknown")
    func fetcherKeys() {
        let good = """
            [instrument AAPL]
            symbol = AAPL
            providers = yahoo stooq
            stooq-symbol = aapl.us
            daily = AAPL.csv
            [provider stooq]
            key-file = /etc/tickerboard/keys/stooq
            rate = 10/min 500/day
            [provider fleet]
            kind = http-csv
            base-url = https://prices.example.com/data
            [fetch]
            intraday-interval = 1min
            """
        let (config, issues) = Config.parse(good, file: "f.conf")
        #expect(issues.isEmpty, "\(issues)")
        #expect(config.instruments.first?.dailyFile == "AAPL.csv")
        let bad = """
            [instrument AAPL]
            providers = yahoo!
            [provider stooq]
            rate = lots
            kee-file = /x
            [fetch]
            daily-interval = soon
            """
        let (_, problems) = Config.parse(bad, file: "f.conf")
        #expect(problems.map(\.line) == [2, 4, 5, 7])
        #expect(problems.map(\.severity) == [.error, .error, .warning, .error])
        #expect(problems[2].message.contains("did you mean \"key-file\""))
    }

    @Test("session = 24/7 alone is the around-the-clock calendar in UTC; a time-zone line keeps its zone")
    func aroundTheClockZone() {
        let (plain, issues) = Config.parse("[instrument BTC]\ndaily = BTC.csv\nsession = 24/7", file: "t.conf")
        #expect(issues.isEmpty)
        #expect(plain.instruments[0].timeZone == "UTC")
        #expect(plain.instruments[0].calendar?.mic == "24/7")
        let (zoned, _) = Config.parse("[instrument BTC]\ndaily = BTC.csv\nsession = 24/7\ntime-zone = Europe/Berlin", file: "t.conf")
        #expect(zoned.instruments[0].timeZone == "Europe/Berlin")
        #expect(zoned.instruments[0].calendar?.mic == "24/7")
        let (stock, _) = Config.parse("[instrument AAPL]\ndaily = AAPL.csv", file: "t.conf")
        #expect(stock.instruments[0].timeZone == "America/New_York")
    }

    @Test("currency = none (or XXX) is a bare number; three letters ISO 4217 does not list are a warning")
    func currencyNoneAndUnknown() {
        let (c, issues) = Config.parse("[instrument DAX]\ndaily = DAX.csv\ncurrency = none", file: "t.conf")
        #expect(issues.isEmpty)
        #expect(c.priceFormat(currencyCode: c.instruments[0].currency).price(23874.12) == "23,874.12")
        var de = c
        de.locale = NumberLocale(identifier: "de-DE")!
        #expect(de.priceFormat(currencyCode: "XXX").price(23874.12) == "23.874,12")
        #expect(messages("[instrument X]\ncurrency = EUE") == ["t.conf:2: currency: \"EUE\" is not an ISO 4217 code; prices show it as their symbol (none or XXX: a bare number, as for an index)"])
        #expect(messages("[instrument X]\ncurrency = CHF").isEmpty)
        #expect(messages("[instrument X]\ncurrency = GBp").isEmpty)
    }

    @Test("a line that does not parse is never echoed: a shadow line, an API key, a password; a known key is named")
    func noEcho() {
        // Issue 54 item 19: a drop-in linked to ../keys/twelvedata (inside the config's directory)
        // printed the key in full; a shadow line or "password hunter2" of plain characters too.
        #expect(messages("root:$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyzABCDE:19000:0:99999:7:::")
                == ["t.conf:1: expected \"key = value\", found a line of 77 characters (not shown: it may be no config text)"])
        #expect(messages("daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin")
                == ["t.conf:1: expected \"key = value\", found a line of 47 characters (not shown: it may be no config text)"])
        #expect(messages("sk_live_SECRETKEY1234567890")
                == ["t.conf:1: expected \"key = value\", found a line of 27 characters (not shown: it may be no config text)"])
        #expect(messages("password hunter2")
                == ["t.conf:1: expected \"key = value\", found a line of 16 characters (not shown: it may be no config text)"])
        // A key this program knows, written without "=": named, its value still not shown.
        #expect(messages("[chart]\ncycle-interval 3s")
                == ["t.conf:2: expected \"key = value\", found a line of 17 characters beginning with \"cycle-interval\" (the rest not shown)"])
        #expect(messages(String(repeating: "w", count: 100)).first?.count ?? 0 < 120)
    }

    @Test("did-you-mean ties are broken alphabetically, so the hint is stable")
    func didYouMeanIsDeterministic() {
        for _ in 0..<20 {
            #expect(Config.didYouMean("ab", ["ac", "aa", "ad"]) == " (did you mean \"aa\"?)")
        }
        #expect(Config.didYouMean("zzzzzz", ["display"]) == "")
    }

    @Test("a full file: sections, comments, CRLF, BOM, quotes, case-insensitive section and key names")
    func fullFile() throws {
        let text = "\u{FEFF}# Tickerboard\r\n[Display]\r\nMode = 1280x800@60\r\nrotation = 180\r\n\r\n"
            + "; another comment\r\n[chart]\r\nranges = 1M, 1Y 5Y 1M\r\nstart-range = 1Y\r\ncycle-interval = 12s\r\n"
            + "morph-curve = ease\r\ncurrency-symbol = \" EUR\"\r\n[power]\r\nblank-after-idle = 10min\r\n"
            + "[burn-in]\r\nshift = 3\r\nperiod = 5min\r\n[data]\r\nstale-after = 2d\r\n"
        let (config, issues) = Config.parse(text, file: "t.conf")
        #expect(issues.isEmpty, "\(issues)")
        #expect(config.mode?.width == 1280 && config.mode?.height == 800)
        #expect(config.rotation == 180)
        #expect(config.ranges == [.oneMonth, .oneYear, .fiveYears])
        #expect(config.startRange == .oneYear)
        #expect(config.cycleSeconds == 12)
        #expect(config.currencySymbol == " EUR")
        #expect(config.blankAfterIdleSeconds == 600)
        #expect(config.burnInShift == 3 && config.burnInPeriodSeconds == 300)
        #expect(config.staleAfterSeconds == 2 * 86_400)
    }

    @Test("instruments: one section each, names keep their case, repeated sections merge (with a warning within one file)")
    func instruments() {
        let text = """
            [data]
            directory = /srv/prices
            [instrument AAPL]
            name = Apple Inc.
            daily = AAPL.csv
            time-zone = America/New_York
            [instrument SAP.DE]
            daily = /data/SAP.csv
            intraday = SAP-1m.csv
            time-zone = Europe/Berlin
            currency = EUR
            price = adjusted
            [instrument AAPL]
            intraday = AAPL-1m.csv
            """
        let (config, issues) = Config.parse(text, file: "t.conf")
        #expect(issues.map(\.line) == [13] && issues.allSatisfy { $0.severity == .warning }, "\(issues)")
        #expect(config.instruments.map(\.id) == ["AAPL", "SAP.DE"])
        let apple = config.instruments[0]
        #expect(apple.name == "Apple Inc." && apple.dailyFile == "AAPL.csv" && apple.intradayFile == "AAPL-1m.csv")
        let sap = config.instruments[1]
        #expect(sap.timeZone == "Europe/Berlin" && sap.currency == "EUR" && sap.adjusted)
        let sources = DataSources.sources(for: config)
        #expect(sources.map(\.path) == ["/srv/prices/AAPL.csv", "/srv/prices/AAPL-1m.csv", "/data/SAP.csv",
                                        "/srv/prices/SAP-1m.csv"])
        #expect(sources[2].priceField == .adjustedClose)
    }

    @Test("an instrument section without a name is an error")
    func instrumentWithoutName() {
        #expect(messages("[instrument  ]\nname = x") != [])
    }

    @Test("schedules: day ranges, several clauses, past midnight, wrapping weeks, always")
    func schedules() throws {
        func schedule(_ text: String) throws -> PowerSchedule {
            let (config, issues) = Config.parse("[power]\nschedule = \(text)", file: "t.conf")
            try #require(issues.isEmpty, "\(issues)")
            return config.schedule
        }
        let office = try schedule("Mon-Fri 07:00-22:00, Sat 09:00-18:00")
        #expect(office.onMinutes[0] == [])
        #expect(office.onMinutes[1] == [420..<1320])
        #expect(office.onMinutes[5] == [420..<1320])
        #expect(office.onMinutes[6] == [540..<1080])
        #expect(office.isOn(weekday: 3, minute: 420) && !office.isOn(weekday: 3, minute: 1320))

        // Past midnight: Friday and Saturday evenings run into the next morning.
        let bar = try schedule("Fri-Sat 18:00-02:00")
        #expect(bar.onMinutes[5] == [1080..<1440])
        #expect(bar.onMinutes[6] == [0..<120, 1080..<1440])
        #expect(bar.onMinutes[0] == [0..<120])
        #expect(bar.isOn(weekday: 0, minute: 119) && !bar.isOn(weekday: 0, minute: 120))

        // A day range that wraps the week, and an end at midnight exactly (no empty range after it).
        let weekend = try schedule("Sat-Mon 20:00-00:00")
        #expect(weekend.onMinutes[6] == [1200..<1440])
        #expect(weekend.onMinutes[0] == [1200..<1440])
        #expect(weekend.onMinutes[1] == [1200..<1440])
        #expect(weekend.onMinutes[2] == [])

        #expect(try schedule("Mon-Sun 00:00-24:00").isAlwaysOn)
        #expect(try schedule("always").isAlwaysOn)
        #expect(try schedule("monday 08:00-09:00").onMinutes[1] == [480..<540])
    }

    @Test("durations and curves")
    func durations() {
        #expect(parseDuration("8") == 8)
        #expect(parseDuration("1.5s") == 1.5)
        #expect(parseDuration("90min") == 5400)
        #expect(parseDuration("2 h") == 7200)
        #expect(parseDuration("3d") == 259_200)
        #expect(parseDuration("500ms") == 0.5)
        #expect(parseDuration("-1") == nil)
        #expect(parseDuration("nan") == nil)
        #expect(parseCurve("cubic-bezier(0.64, 0, 0, 1)") == CubicBezier(0.64, 0, 0, 1))
        #expect(parseCurve("0.64,0,0,1") == CubicBezier(0.64, 0, 0, 1))
        #expect(parseCurve("cubic-bezier(0.5, 0, 1.5, 1)") == nil)
    }

    // MARK: Reload

    @Test("reload: a file with an error keeps the running config, whole")
    func reloadKeepsOldConfigOnError() {
        let (running, _) = Config.parse("[chart]\ncycle-interval = 20s\n[display]\nrotation = 90", file: "t.conf")
        // The broken file also changes a good key; none of it may be applied.
        let broken = "[chart]\ncycle-interval = 5s\n[display]\nrotation = 45"
        let (partial, issues) = Config.parse(broken, file: "t.conf")
        #expect(issues.contains { $0.severity == .error })
        #expect(partial.cycleSeconds == 5, "parse applies what it can, which is why reload must not use it")

        let outcome = ConfigReload.reload(current: running, text: broken, file: "t.conf")
        #expect(!outcome.applied && !outcome.changed)
        #expect(outcome.config == running)
        #expect(outcome.config.cycleSeconds == 20 && outcome.config.rotation == 90)
        #expect(outcome.summary == "reload: t.conf has 1 error(s); keeping the running configuration")
        #expect(outcome.issues.map(\.description) == ["t.conf:4: rotation: expected auto, 0, 90, 180 or 270, found \"45\""])
    }

    @Test("reload: warnings alone apply the new file")
    func reloadAppliesWithWarnings() {
        let running = Config()
        let outcome = ConfigReload.reload(current: running, text: "[chart]\ncycle-interval = 5s\ncolour = red",
                                          file: "t.conf")
        #expect(outcome.applied && outcome.changed)
        #expect(outcome.config.cycleSeconds == 5)
        #expect(outcome.summary == "reload: t.conf loaded (1 warning(s))")
        let same = ConfigReload.reload(current: outcome.config, text: "[chart]\ncycle-interval = 5s", file: "t.conf")
        #expect(same.applied && !same.changed)
    }

    @Test("reload from a missing file keeps the running config and names the file")
    func reloadMissingFile() {
        var running = Config()
        running.rotation = 270
        let path = "/tmp/tickerboard-test-\(getpid())-no-such.conf"
        let outcome = ConfigReload.reload(current: running, path: path)
        #expect(!outcome.applied)
        #expect(outcome.config.rotation == 270)
        #expect(outcome.issues.map(\.description) == ["\(path):0: cannot open: No such file or directory"])
    }

    @Test("the shipped assets/tickerboard.conf parses without a single issue and matches the defaults")
    func shippedConfig() throws {
        let path = TestRoot.path + "/assets/tickerboard.conf"
        let (config, issues) = Config.load(path: path)
        #expect(issues.isEmpty, "\(issues)")
        // Everything in it is commented out: it documents the defaults, it does not change them.
        #expect(config == Config())
        // ... and uncommenting every key still parses cleanly: the documented values are valid.
        guard case .success(let text) = readTextFile(path) else { Issue.record("cannot read \(path)"); return }
        var uncommented: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#[") || (line.hasPrefix("#") && !line.hasPrefix("# ") && line.contains("=")) {
                uncommented.append(String(line.dropFirst()))
            } else {
                uncommented.append(String(line))
            }
        }
        let (full, fullIssues) = Config.parse(uncommented.joined(separator: "\n"), file: path)
        #expect(fullIssues.isEmpty, "\(fullIssues)")
        #expect(full.outputs.map(\.name) == [.first, .second])
        #expect(full.cycleSeconds == Config().cycleSeconds)
        #expect(full.burnInShift == Config().burnInShift)
        #expect(full.schedule == Config().schedule)
    }
}

/// The repository root, from this file's path (Tests/KioskTests/ConfigTests.swift).
enum TestRoot {
    static var path: String {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }
}
