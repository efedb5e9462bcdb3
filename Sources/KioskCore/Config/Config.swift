import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Text

/// One instrument of the watchlist.
public struct InstrumentConfig: Equatable, Sendable {
    public var id: String
    public var name: String?
    public var dailyFile: String?
    public var intradayFile: String?
    public var timeZone = "America/New_York"
    /// `exchange = MIC` (ISO 10383); nil: the exchange of the time zone, if it has one.
    public var exchange: String?
    /// `session = 24/7` (a fetcher key): the instrument trades around the clock (crypto).
    public var aroundTheClock = false
    public var currency = "USD"
    public var adjusted = false
    /// `quantity`, `cost`, `cost-total`, `lot` (issue 36): empty when the instrument is only watched.
    public var holding = Holding()
    /// The config line of each key set in the section (for `FILE:LINE: key:` messages).
    public var lines: [String: Int] = [:]
    /// The drop-in a key was set in (absent: the main file).
    public var files: [String: String] = [:]

    /// Where `key` was set: its file (the drop-in's, else `mainFile`) and line (0: not set).
    public func location(of key: String, mainFile: String) -> (file: String, line: Int) {
        (files[key] ?? mainFile, lines[key] ?? 0)
    }

    /// The trading calendar: the configured exchange, else the one of the time zone.
    public var calendar: ExchangeCalendar? {
        exchange.flatMap(ExchangeCalendar.named) ?? (aroundTheClock ? .alwaysOpen : ExchangeCalendar.forTimeZone(timeZone))
    }
}

/// The screen's weekly light: per weekday (0 = Sunday) minute ranges of local time, each with a
/// level in percent (100 on, 1-99 dimmed, 0 off). Ranges are kept in the order the clauses gave
/// them and a later one wins where they overlap; a minute no range covers is off.
public struct PowerSchedule: Equatable, Sendable {
    public struct Span: Equatable, Sendable {
        public var minutes: Range<Int>
        public var level: Int
        public init(_ minutes: Range<Int>, level: Int = 100) {
            self.minutes = minutes
            self.level = level
        }
    }

    public var spans: [[Span]]
    public static let always = PowerSchedule(spans: Array(repeating: [Span(0..<1440)], count: 7))
    public static let never = PowerSchedule(spans: Array(repeating: [], count: 7))

    public init(spans: [[Span]] = Array(repeating: [Span(0..<1440)], count: 7)) { self.spans = spans }

    /// The ranges with a level above 0, as given (before later ranges override earlier ones).
    /// Set: those ranges at full level.
    public var onMinutes: [[Range<Int>]] {
        get { spans.map { $0.filter { $0.level > 0 }.map(\.minutes) } }
        set { spans = newValue.map { $0.map { Span($0) } } }
    }

    /// Full level every minute of the week.
    public var isAlwaysOn: Bool {
        (0..<7).allSatisfy { day in boundaries(weekday: day).allSatisfy { level(weekday: day, minute: $0) == 100 } }
    }

    /// No light at any minute of the week.
    public var isNeverOn: Bool {
        (0..<7).allSatisfy { day in boundaries(weekday: day).allSatisfy { level(weekday: day, minute: $0) == 0 } }
    }

    /// Every minute of `weekday` at which a range begins or ends, with 0, ascending (below 1440).
    public func boundaries(weekday: Int) -> [Int] {
        var set: Set<Int> = [0]
        for span in spans[((weekday % 7) + 7) % 7] { set.insert(span.minutes.lowerBound); set.insert(span.minutes.upperBound) }
        return set.filter { $0 < 1440 }.sorted()
    }

    /// The level at `minute` of the day on `weekday`: the last range that covers it, else 0.
    public func level(weekday: Int, minute: Int) -> Int {
        spans[((weekday % 7) + 7) % 7].last { $0.minutes.contains(minute) }?.level ?? 0
    }

    /// True when the screen should be lit at `minute` of the day on `weekday`.
    public func isOn(weekday: Int, minute: Int) -> Bool { level(weekday: weekday, minute: minute) > 0 }
}

/// The daemon's configuration, with the shipped defaults. Built from a file by `Config.load`.
/// The watchlist overview in the unattended show.
public enum WatchlistMode: String, Equatable, Sendable {
    /// One instrument's chart at a time, as before.
    case off
    /// The overview once per round through the instruments, for `instrument-interval`.
    case cycle
    /// The overview is the screen; a tap opens an instrument until the touch pause ends.
    case only
}

public struct Config: Equatable, Sendable {
    // [display]
    public var displayBackend = DisplayBackends.Choice.auto
    public var displayDevice: String?
    public var connector: String?
    public var mode: ModeRequest?
    /// The largest mode `mode = auto` drives (nil: the connector's preferred mode however large:
    /// `mode = preferred` or `max-size = none`).
    public var maxModeSize: ModeRequest? = ModePolicy.defaultMaxSize
    /// Clockwise degrees; nil ("auto") follows the connector's panel-orientation property.
    public var rotation: Int?
    public var scale: Double?
    /// `[display] safe-area`: percent of the width and the height kept free on each side (a TV
    /// that overscans crops its edges); everything is drawn inside, the background fills the rest.
    public var safeArea = 0.0
    /// Threads that draw each frame (horizontal bands); nil ("auto") uses the machine's processors.
    public var renderThreads: Int? = 1
    // [input]
    public var inputEnabled = true
    public var seat = "seat0"
    public var calibration: [Double]?
    /// `[input] output`: the output the touchscreen is on when the daemon drives several (an
    /// `[output]` section's name, or a connector name); nil: udev's WL_OUTPUT, else the first.
    public var inputOutput: OutputConfig.Name?
    // [data]
    public var dataDirectory = "/var/lib/tickerboard"
    public var staleAfterSeconds = 3 * 86_400
    public var instruments: [InstrumentConfig] = []
    /// `[mqtt]`: the Home Assistant bridge's settings (tickerboard-mqtt reads them; the daemon checks them).
    public var mqtt = MQTTSettings()
    // [portfolio] and [fx PAIR]
    public var portfolio = PortfolioConfig()
    public var fxPairs: [FXPairConfig] = []
    // [alert NAME]
    public var alerts: [AlertConfig] = []
    // [chart]
    public var ranges: [ChartRange] = ChartRange.standard
    public var startRange: ChartRange = .oneMonth
    public var cycleSeconds = 8.0
    public var instrumentCycleSeconds = 60.0
    public var touchPauseSeconds = 30.0
    /// Whether the watchlist overview is a screen of the unattended show (`[chart] watchlist`).
    public var watchlist = WatchlistMode.off
    public var morph = MorphTiming.standard
    public var paletteName = "standard"
    public var timeAxis = TimeAxis.trading
    /// `baseline-1d` and `extended-hours`.
    public var rangeOptions = RangeOptions()
    /// Separators, grouping, symbol position and the up colour come from the locale; the keys
    /// below override one fact each (nil: the locale's, or for `decimals` the currency's minor
    /// units, with more decimals for sub-unit prices).
    public var locale = NumberLocale.enUS
    public var decimals: Int?
    public var groupingSeparator: String?
    public var decimalSeparator: String?
    public var currencySymbol: String?
    public var currencyAfter: Bool?
    public var trend: NumberLocale.Trend?
    // [power]
    public var schedule = PowerSchedule.always
    public var blankAfterIdleSeconds = 0.0
    /// HDMI-CEC: the TV to standby with the screen, woken with it (`CECPower`).
    public var cec = CECSetting.auto
    /// `follow-markets = on`: the screen is also on from `lead` before a watched exchange opens to
    /// `trail` after it closes (MarketHours); the schedule, when none is set, is then "never".
    public var followMarkets = false
    public var marketLeadSeconds = 30.0 * 60
    public var marketTrailSeconds = 30.0 * 60
    /// `night-palette = on`: below full level the screen uses the palette's night variant.
    public var nightPalette = false
    /// `light-sensor`: off, auto (the first IIO illuminance sensor) or an iio:deviceN directory.
    public var lightSensor = LightSensorSetting.off
    /// The line of each `[power]` key that was set (messages, and whether `schedule` was given).
    public var powerLines: [String: Int] = [:]
    /// The file of each `[power]` key that was set (a drop-in's, or the main file).
    public var powerFiles: [String: String] = [:]
    // [burn-in]
    public var burnInShift = 2
    public var burnInPeriodSeconds = 180.0
    // [tape]
    /// Where the ticker tape goes (off: no tape).
    public var tapePosition = TapePosition.off
    /// The crawl's speed in pixels per second.
    public var tapeSpeed = 120.0
    /// `span = all`: one tape across every output in the order given (needs two outputs; one
    /// output shows the tape as without it).
    public var tapeSpan = false
    /// `[tape] sort` and `[chart] watchlist-sort`: movers first (see `MoverOrder`).
    public var tapeSort = MoveSort.config
    public var watchlistSort = MoveSort.config
    /// `[chart] countdown`: the header's market line counts down to the close or the open.
    public var countdown = false
    /// `[chart] stats`: the day's range, the 52-week range and the volume under the change.
    public var stats = StatsMode.off
    /// `[chart] clock`: the time of day at the name line's right, the wall's own or the exchange's.
    public var clock = ClockMode.off
    // [output NAME]
    /// The outputs in the order of their sections (the order a spanning tape runs in); empty:
    /// one screen as `[display]` says (`effectiveOutputs`).
    public var outputs: [OutputConfig] = []
    /// Where `[display]` and `[tape]` keys were set, as "section.key" (messages that concern them
    /// together with `[output]` sections).
    public var keyLines: [String: Int] = [:]
    public var keyFiles: [String: String] = [:]

    public init() {}

    public static let defaultPath = "/etc/tickerboard/tickerboard.conf"

    /// How prices in `currencyCode` read: the currency's symbol and minor units, the locale's
    /// separators and symbol position, then each override that is set.
    public func priceFormat(currencyCode: String) -> PriceFormat {
        let currency = Currency(code: currencyCode) ?? Currency(code: "USD")!
        var f = PriceFormat(currency: currency, locale: locale)
        if let decimals { f.decimals = decimals; f.significantDigits = nil }
        if let groupingSeparator { f.groupingSeparator = groupingSeparator }
        if let decimalSeparator { f.decimalSeparator = decimalSeparator }
        if let currencySymbol { f.currencySymbol = currencySymbol }
        if let currencyAfter {
            f.symbolPosition = currencyAfter ? .after : .before
            // A symbol moved to the other side is set apart from the number as the locale sets it apart.
            if !currency.isSubunit, currencyAfter != (locale.symbolPosition == .after) { f.symbolSpacing = locale.symbolSpacing }
        }
        return f
    }

    /// Which colour is up: the `colors` key, else the locale's convention.
    public var effectiveTrend: NumberLocale.Trend { trend ?? locale.trend }

    /// The chart's colours: the palette with up and down as the trend convention has them.
    public var palette: ChartPalette {
        (ScreenModel.palette(named: paletteName) ?? .standard).trending(effectiveTrend)
    }

    /// Parses `text` (from `file`, for messages). Errors leave the default in place for that key;
    /// the caller decides whether errors are fatal (startup, check-config) or keep the old config (reload).
    public static func parse(_ text: String, file: String) -> (Config, [ConfigIssue]) {
        parse([(text, file)])
    }

    /// The main file and then its drop-ins (`conf.d/*.conf`), in order: each file's sections start
    /// afresh, a later key wins over an earlier one, and sections of the same name merge (an
    /// `[instrument X]` in a drop-in adds to or changes the main file's X). Every issue names the
    /// file it is in.
    public static func parse(_ sources: [(text: String, file: String)]) -> (Config, [ConfigIssue]) {
        let (config, issues) = parseAll(sources)
        return (config, ConfigIssue.summarized(issues))
    }

    private static func parseAll(_ sources: [(text: String, file: String)]) -> (Config, [ConfigIssue]) {
        let mainFile = sources.first?.file ?? ""
        // At most `ConfigSources.totalLines` lines in all (issue 54: thirty drop-ins of a megabyte of
        // unknown keys held 657 MB and printed 2.7 million warnings). The rest is not read, and says so.
        let (bounded, over) = ConfigSources.limitLines(sources)
        let cut = over.map { ConfigIssue(file: $0.file, line: $0.line, key: "", message: $0.message, severity: .error) }
        let parsed = bounded.map { ConfigFile(text: $0.text, file: $0.file) }
        var config = Config()
        var issues = parsed.flatMap(\.issues) + (cut.map { [$0] } ?? [])
        var reportedSections: Set<String> = []
        for header in parsed.flatMap(\.headers) where header.section.hasPrefix("output ") {
            issues += declareOutput(header, mainFile: mainFile, to: &config)
        }
        // One file naming an instrument or output twice: the two merge into one, and what the
        // second was meant to be vanishes (a copied block left unrenamed). Across drop-ins the
        // merge is the documented way to change a section, so only repeats within a file count.
        for file in parsed {
            var first: [String: Int] = [:]
            for header in file.headers where header.section.hasPrefix("instrument ") || header.section.hasPrefix("output ") {
                let name = header.section.split(separator: " ", maxSplits: 1).map { $0.trimmingWhitespace() }.joined(separator: " ")
                if let line = first[name] {
                    issues.append(ConfigIssue(file: header.file, line: header.line, key: "",
                                              message: "[\(name)] again (first at line \(line)): the two sections merge into one and "
                                                  + "the later keys win; give this one a name of its own if it is another",
                                              severity: .warning))
                } else {
                    first[name] = header.line
                }
            }
        }
        for entry in parsed.flatMap(\.entries) {
            let file = entry.file
            func fail(_ message: String) {
                issues.append(ConfigIssue(file: file, line: entry.line, key: entry.key, message: message, severity: .error))
            }
            func warn(_ message: String) {
                issues.append(ConfigIssue(file: file, line: entry.line, key: entry.key, message: message, severity: .warning))
            }
            if entry.section.hasPrefix("instrument ") || entry.section.hasPrefix("instrument.") {
                let id = String(entry.section.dropFirst("instrument ".count)).trimmingWhitespace()
                if id.isEmpty { fail("an [instrument NAME] section needs a name"); continue }
                if id.count > Limits.nameLength { fail("an instrument name has at most \(Limits.nameLength) characters"); continue }
                if !config.instruments.contains(where: { $0.id == id }), config.instruments.count >= Limits.instruments {
                    fail("more than \(Limits.instruments) [instrument] sections"); continue
                }
                var inst = config.instruments.first { $0.id == id } ?? InstrumentConfig(id: id)
                let lineKey = entry.key == "file" ? "daily" : entry.key == "timezone" ? "time-zone" : entry.key
                inst.lines[lineKey] = entry.line
                inst.files[lineKey] = file == mainFile ? nil : file
                switch entry.key {
                case "name":
                    guard entry.value.count <= Limits.nameLength else {
                        fail("expected a name of at most \(Limits.nameLength) characters"); continue
                    }
                    inst.name = entry.value
                case "daily", "file": inst.dailyFile = entry.value
                case "intraday": inst.intradayFile = entry.value
                case "time-zone", "timezone":
                    if ExchangeTimeZone.isValidIdentifier(entry.value) { inst.timeZone = entry.value } else {
                        fail("\"\(entry.value)\" is not an IANA time zone name like Europe/Berlin")
                    }
                case "exchange":
                    if let calendar = ExchangeCalendar.named(entry.value) { inst.exchange = calendar.mic } else {
                        fail("expected a market identifier code (ISO 10383) of \(ExchangeCalendar.all.map(\.mic).joined(separator: ", ")), found \"\(entry.value)\"")
                    }
                case "currency":
                    if let currency = Currency(code: entry.value) {
                        inst.currency = entry.value
                        if !currency.isISO4217 {
                            warn("\"\(entry.value)\" is not an ISO 4217 code; prices show it as their symbol (none or XXX: a bare number, as for an index)")
                        }
                    } else {
                        fail("expected an ISO 4217 code like USD or EUR, GBp, ZAc, ILA for prices in pence or cents, or none for a bare number, found \"\(entry.value)\"")
                    }
                case "price":
                    switch entry.value.lowercased() {
                    case "close": inst.adjusted = false
                    case "adj close", "adjusted", "adj-close": inst.adjusted = true
                    default: fail("expected close or adjusted, found \"\(entry.value)\"")
                    }
                case "quantity", "cost", "cost-total", "lot":
                    _ = applyHoldingKey(entry.key, entry.value, line: entry.line, file: file, to: &inst.holding, fail: fail, warn: warn)
                default:
                    // tickerboard-fetch's keys (symbol, providers, ...): checked here, used by the fetcher.
                    switch FetchSettings.checkInstrumentKey(entry.key, entry.value) {
                    case .ok:
                        if entry.key == "session" { inst.aroundTheClock = FetchSettings.parseSession(entry.value) == .always }
                    case .invalid(let message): fail(message)
                    case .unknown:
                        warn(unknownKeyMessage(entry.key, known: instrumentKeys))
                    }
                }
                if let i = config.instruments.firstIndex(where: { $0.id == id }) { config.instruments[i] = inst } else {
                    config.instruments.append(inst)
                }
                continue
            }
            if entry.section == "portfolio" {
                applyPortfolioKey(entry.key, entry.value, line: entry.line, to: &config, fail: fail, warn: warn)
                continue
            }
            if entry.section.hasPrefix("fx ") {
                applyFXEntry(section: entry.section, entry.key, entry.value, line: entry.line,
                             file: file == mainFile ? nil : file, to: &config, fail: fail, warn: warn)
                continue
            }
            if entry.section.hasPrefix("alert ") {
                applyAlertEntry(section: entry.section, entry.key, entry.value, line: entry.line,
                                file: file == mainFile ? nil : file, to: &config, fail: fail, warn: warn)
                continue
            }
            if entry.section.hasPrefix("output ") {
                applyOutputEntry(section: entry.section, entry.key, entry.value, line: entry.line,
                                 file: file == mainFile ? nil : file, to: &config, fail: fail, warn: warn)
                continue
            }
            if FetchSettings.isFetchSection(entry.section) {
                checkFetchEntry(entry.section, entry.key, entry.value, fail: fail, warn: warn)
                continue
            }
            if entry.section == "mqtt" {
                // tickerboard-mqtt's section: checked here, used by the bridge.
                switch config.mqtt.apply(entry.key, entry.value) {
                case .ok: break
                case .invalid(let message): fail(message)
                case .unknown: warn(unknownKeyMessage(entry.key, known: MQTTSettings.keys))
                }
                continue
            }
            guard let keys = schema[entry.section] else {
                // Once per section, not once per key in it.
                if reportedSections.insert(entry.section).inserted {
                    warn("unknown section [\(entry.section)], its keys are ignored"
                         + didYouMean(entry.section, Array(schema.keys) + ["instrument NAME", "provider NAME", "fetch", "portfolio", "fx PAIR", "alert NAME", "output NAME"]))
                }
                continue
            }
            guard let apply = keys[entry.key] else {
                warn(unknownKeyMessage(entry.key, known: Array(keys.keys)))
                continue
            }
            if entry.section == "power" {
                config.powerLines[entry.key] = entry.line
                config.powerFiles[entry.key] = file
            }
            if entry.section == "display" || entry.section == "tape" {
                config.keyLines[entry.section + "." + entry.key] = entry.line
                config.keyFiles[entry.section + "." + entry.key] = file
            }
            if let message = apply(&config, entry.value) { fail(message) }
        }
        if config.followMarkets, MarketHours.followedExchanges(of: config).isEmpty {
            issues.append(ConfigIssue(file: config.powerFiles["follow-markets"] ?? mainFile,
                                      line: config.powerLines["follow-markets"] ?? 0, key: "follow-markets",
                                      message: "no instrument trades on an exchange with hours (24/7 ones never turn the screen on); the schedule alone decides",
                                      severity: .warning))
        }
        // An exchange without a time-zone line brings its own zone (`exchange = XTKS` is enough);
        // `session = 24/7` alone means the around-the-clock calendar, whose days are UTC's.
        for i in config.instruments.indices {
            if config.instruments[i].aroundTheClock, config.instruments[i].exchange == nil,
               config.instruments[i].lines["time-zone"] == nil {
                config.instruments[i].timeZone = ExchangeCalendar.alwaysOpen.timeZoneIdentifier
            }
            guard let mic = config.instruments[i].exchange, let calendar = ExchangeCalendar.named(mic) else { continue }
            if let line = config.instruments[i].lines["time-zone"] {
                // Sessions are the exchange's hours in the instrument's zone: another zone shifts them.
                if config.instruments[i].timeZone != calendar.timeZoneIdentifier, !calendar.isAlwaysOpen {
                    issues.append(ConfigIssue(file: config.instruments[i].files["time-zone"] ?? mainFile, line: line, key: "time-zone",
                                              message: "\(config.instruments[i].timeZone) is not the zone of \(calendar.mic) (\(calendar.timeZoneIdentifier)); its sessions are read in this zone",
                                              severity: .warning))
                }
            } else {
                config.instruments[i].timeZone = calendar.timeZoneIdentifier
            }
        }
        issues += checkHoldings(config, mainFile: mainFile)
        issues += checkAlerts(config, mainFile: mainFile)
        issues += checkOutputs(config, mainFile: mainFile)
        return (config, issues)
    }

    /// `[provider NAME]` and `[fetch]` belong to tickerboard-fetch; the syntax check is shared (Feed).
    static func checkFetchEntry(_ section: String, _ key: String, _ value: String,
                                fail: (String) -> Void, warn: (String) -> Void) {
        let check: FetchKeyCheck
        let known: [String]
        if section == "fetch" {
            check = FetchSettings.checkFetchKey(key, value)
            known = FetchSettings.fetchKeys
        } else if let name = FetchSettings.providerName(ofSection: section) {
            check = FetchSettings.checkProviderKey(name: name, key, value)
            known = FetchSettings.providerKeys
        } else {
            fail("[\(section)]: a provider name is letters, digits, - and _")
            return
        }
        switch check {
        case .ok: break
        case .invalid(let message): fail(message)
        case .unknown: warn(unknownKeyMessage(key, known: known))
        }
    }

    /// Every section of the file and its keys, in the order the shipped config shows them: what the
    /// unknown-key messages offer and what `check-config --keys` lists (the manual page
    /// tickerboard.conf(5) is checked against it). Sections with a name are written `instrument NAME`.
    public static var sectionKeys: [(section: String, keys: [String])] {
        let named: [String: [String]] = ["instrument NAME": instrumentKeys, "portfolio": portfolioKeys, "fx PAIR": fxKeys,
                                         "alert NAME": AlertConfig.keys, "provider NAME": FetchSettings.providerKeys,
                                         "fetch": FetchSettings.fetchKeys, "output NAME": OutputConfig.keys, "mqtt": MQTTSettings.keys]
        let order = ["display", "input", "data", "instrument NAME", "portfolio", "fx PAIR", "alert NAME", "provider NAME", "fetch",
                     "chart", "power", "burn-in", "tape", "output NAME", "mqtt"]
        let all = order + schema.keys.filter { !order.contains($0) }.sorted()
        return all.compactMap { name in (named[name] ?? schema[name].map { Array($0.keys).sorted() }).map { (name, $0) } }
    }
    static let instrumentKeys = ["name", "daily", "intraday", "time-zone", "exchange", "currency", "price",
                                 "quantity", "cost", "cost-total", "lot"] + FetchSettings.instrumentKeys
    static let portfolioKeys = ["currency", "show", "tiles"]
    static let fxKeys = ["daily", "time-zone"] + FetchSettings.instrumentKeys

    static func unknownKeyMessage(_ key: String, known: [String]) -> String {
        "unknown key, ignored" + didYouMean(key, known)
    }

    static func didYouMean(_ word: String, _ candidates: [String]) -> String {
        // Ties go to the alphabetically first name, so the hint does not depend on dictionary order.
        // A name whose length alone puts it out of reach is not measured: a file of long unknown
        // keys must not cost length² per key.
        let reach = max(2, word.count / 3)
        let best = candidates.filter { abs($0.count - word.count) <= reach }
            .map { ($0, editDistance(word, $0)) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best, best.1 <= reach else { return "" }
        return " (did you mean \"\(best.0)\"?)"
    }

    typealias Setter = @Sendable (inout Config, String) -> String?

    static let schema: [String: [String: Setter]] = [
        "display": [
            "backend": { c, v in
                let choices = DisplayBackends.Choice.configurable
                guard let choice = DisplayBackends.Choice(rawValue: v.lowercased()), choices.contains(choice) else {
                    return "expected \(DisplayBackends.Choice.names(choices)), found \"\(v)\""
                }
                c.displayBackend = choice; return nil
            },
            "device": { c, v in
                if v.lowercased() == "auto" { c.displayDevice = nil; return nil }
                guard v.hasPrefix("/dev/") else { return "expected auto or a device path like /dev/dri/card0, found \"\(v)\"" }
                c.displayDevice = v; return nil
            },
            "connector": { c, v in c.connector = v.lowercased() == "auto" ? nil : v; return nil },
            "mode": { c, v in
                if v.lowercased() == "auto" { c.mode = nil; return nil }
                if v.lowercased() == "preferred" { c.mode = nil; c.maxModeSize = nil; return nil }
                // Bounded: headless mode draws a picture of this size, and a KMS mode is never larger.
                guard let m = ModeRequest(v), m.width <= Limits.modeSide, m.height <= Limits.modeSide,
                      m.refreshHz.map({ $0.isFinite && $0 >= 1 && $0 <= 1000 }) ?? true else {
                    return "expected WxH or WxH@Hz like 1920x1080@60 (at most \(Limits.modeSide)x\(Limits.modeSide), 1 to 1000 Hz), found \"\(v)\""
                }
                c.mode = m; return nil
            },
            "max-size": { c, v in
                if v.lowercased() == "none" { c.maxModeSize = nil; return nil }
                guard let m = ModeRequest(v), m.refreshHz == nil, m.width <= Limits.modeSide, m.height <= Limits.modeSide else {
                    return "expected WxH like 1920x1080 (the largest mode mode = auto drives) or none, found \"\(v)\""
                }
                c.maxModeSize = m; return nil
            },
            "rotation": { c, v in
                if v.lowercased() == "auto" { c.rotation = nil; return nil }
                guard let r = Int(v), [0, 90, 180, 270].contains(r) else { return "expected auto, 0, 90, 180 or 270, found \"\(v)\"" }
                c.rotation = r; return nil
            },
            "scale": { c, v in
                if v.lowercased() == "auto" { c.scale = nil; return nil }
                guard let s = Double(v), s >= 0.25, s <= 4 else { return "expected auto or a number from 0.25 to 4, found \"\(v)\"" }
                c.scale = s; return nil
            },
            "safe-area": { c, v in
                var text = Substring(v)
                if text.hasSuffix("%") { text = text.dropLast() }
                while text.hasSuffix(" ") { text = text.dropLast() }
                guard let p = Double(text), p >= 0, p <= Limits.safeAreaPercent else {
                    return "expected a percentage from 0 to \(Int(Limits.safeAreaPercent)) % (of each side kept free for a TV that overscans), found \"\(v)\""
                }
                c.safeArea = p; return nil
            },
            "render-threads": { c, v in
                if v.lowercased() == "auto" { c.renderThreads = nil; return nil }
                guard let n = Int(v), n >= 1, n <= Limits.renderThreads else {
                    return "expected auto or a number of threads from 1 to \(Limits.renderThreads), found \"\(v)\""
                }
                c.renderThreads = n; return nil
            },
        ],
        "input": [
            "enable": { c, v in
                guard let b = parseBool(v) else { return "expected yes or no, found \"\(v)\"" }
                c.inputEnabled = b; return nil
            },
            "seat": { c, v in
                guard !v.isEmpty, v.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    return "expected a seat name like seat0, found \"\(v)\""
                }
                c.seat = v; return nil
            },
            "output": { c, v in
                guard let name = OutputConfig.Name(v) else {
                    return "expected first, second or a connector name like HDMI-A-1 (the output the touchscreen is on), found \"\(v)\""
                }
                c.inputOutput = name; return nil
            },
            "calibration": { c, v in
                let words = v.split(whereSeparator: { $0 == " " || $0 == "," })
                let parts = words.compactMap { Double($0) }
                guard words.count == 6, parts.count == 6 else {
                    return "expected six numbers (a b c d e f of libinput's calibration matrix), found \"\(v)\""
                }
                // libinput takes floats; a real panel's matrix is within a few units of the identity.
                guard parts.allSatisfy({ $0.isFinite && abs($0) <= 1000 }) else {
                    return "expected six numbers from -1000 to 1000 (libinput's calibration matrix), found \"\(v)\""
                }
                c.calibration = parts; return nil
            },
        ],
        "data": [
            "directory": { c, v in
                guard v.hasPrefix("/") else { return "expected an absolute path, found \"\(v)\"" }
                c.dataDirectory = v; return nil
            },
            "stale-after": { c, v in
                guard let s = parseDuration(v), s >= 1, s <= Limits.longestDuration else {
                    return "expected a duration like 3d, 12h or 90min (1s to 36500d), found \"\(v)\""
                }
                c.staleAfterSeconds = Int(s); return nil
            },
        ],
        "chart": [
            "ranges": { c, v in
                var out: [ChartRange] = []
                for word in v.split(whereSeparator: { $0 == " " || $0 == "," }) {
                    guard let r = ChartRange(label: String(word)) else { return "\"\(word)\" is not one of \(ChartRange.labels)" }
                    if !out.contains(r) { out.append(r) }
                }
                guard !out.isEmpty else { return "expected at least one of \(ChartRange.labels)" }
                c.ranges = out; return nil
            },
            "start-range": { c, v in
                guard let r = ChartRange(label: v) else { return "expected one of \(ChartRange.labels), found \"\(v)\"" }
                c.startRange = r; return nil
            },
            "cycle-interval": { c, v in
                guard let s = parseDuration(v), s == 0 || (s >= 2 && s <= 86_400) else {
                    return "expected 0 (no cycling) or a duration from 2s to 24h, found \"\(v)\""
                }
                c.cycleSeconds = s; return nil
            },
            "instrument-interval": { c, v in
                guard let s = parseDuration(v), s == 0 || (s >= 5 && s <= 7 * 86_400) else {
                    return "expected 0 or a duration from 5s to 7d, found \"\(v)\""
                }
                c.instrumentCycleSeconds = s; return nil
            },
            "touch-pause": { c, v in
                guard let s = parseDuration(v), s >= 0, s <= 86_400 else { return "expected a duration like 30s, found \"\(v)\"" }
                c.touchPauseSeconds = s; return nil
            },
            "morph-duration": { c, v in
                guard let s = parseDuration(v), s >= 0, s <= 10 else { return "expected a duration from 0 to 10s, found \"\(v)\"" }
                c.morph.duration = s; return nil
            },
            "morph-curve": { c, v in
                guard let curve = parseCurve(v) else {
                    return "expected cubic-bezier(x1, y1, x2, y2) with x1 and x2 from 0 to 1 and y1 and y2 from -5 to 5, found \"\(v)\""
                }
                c.morph.curve = curve; return nil
            },
            "baseline-1d": { c, v in
                guard let base = DayBaseline(rawValue: v.lowercased()) else {
                    return "expected previous-close or first, found \"\(v)\""
                }
                c.rangeOptions.dayBaseline = base; return nil
            },
            "extended-hours": { c, v in
                guard let mode = ExtendedHoursDisplay(rawValue: v.lowercased()) else {
                    return "expected show, dim or hide, found \"\(v)\""
                }
                c.rangeOptions.extendedHours = mode; return nil
            },
            "watchlist": { c, v in
                guard let mode = WatchlistMode(rawValue: v.lowercased()) else {
                    return "expected off, cycle (once per round through the instruments) or only, found \"\(v)\""
                }
                c.watchlist = mode; return nil
            },
            "countdown": { c, v in
                guard let b = parseBool(v) else { return "expected on or off (\"closes in 42 min\" in the market line), found \"\(v)\"" }
                c.countdown = b; return nil
            },
            "stats": { c, v in
                guard let mode = StatsMode(rawValue: v.lowercased()) else {
                    return "expected off, range (the day's and the 52-week range) or full (and the volume), found \"\(v)\""
                }
                c.stats = mode; return nil
            },
            "clock": { c, v in
                guard let mode = ClockMode(rawValue: v.lowercased()) else {
                    return "expected off, local (the wall's time zone) or exchange (the instrument's exchange's), found \"\(v)\""
                }
                c.clock = mode; return nil
            },
            "watchlist-sort": { c, v in
                guard let sort = MoveSort(rawValue: v.lowercased()) else { return Config.expectedSort(v) }
                c.watchlistSort = sort; return nil
            },
            "time-axis": { c, v in
                guard let axis = TimeAxis(rawValue: v.lowercased()) else {
                    return "expected trading (nights and weekends collapsed) or calendar, found \"\(v)\""
                }
                c.timeAxis = axis; return nil
            },
            "palette": { c, v in
                guard ScreenModel.palette(named: v) != nil else { return "expected standard or color-blind, found \"\(v)\"" }
                c.paletteName = v.lowercased(); return nil
            },
            "locale": { c, v in
                guard let l = NumberLocale(identifier: v) else {
                    return "expected one of \(NumberLocale.knownIdentifiers.joined(separator: " ")), found \"\(v)\""
                }
                c.locale = l; return nil
            },
            "colors": { c, v in
                if v.lowercased() == "auto" { c.trend = nil; return nil }
                guard let t = NumberLocale.Trend(rawValue: v.lowercased()) else {
                    return "expected auto (from the locale), green-up or red-up, found \"\(v)\""
                }
                c.trend = t; return nil
            },
            "decimals": { c, v in
                if v.lowercased() == "auto" { c.decimals = nil; return nil }
                guard let d = Int(v), (0...6).contains(d) else { return "expected auto or a whole number from 0 to 6, found \"\(v)\"" }
                c.decimals = d; return nil
            },
            "grouping-separator": { c, v in
                if v.lowercased() == "auto" { c.groupingSeparator = nil; return nil }
                let s = v == "space" ? "\u{202F}" : v == "none" ? "" : v
                guard s.count <= 1, s.unicodeScalars.count <= 2 else { return "expected auto, one character, space or none, found \"\(v)\"" }
                c.groupingSeparator = s; return nil
            },
            "decimal-separator": { c, v in
                if v.lowercased() == "auto" { c.decimalSeparator = nil; return nil }
                guard v == "." || v == "," else { return "expected auto, . or , found \"\(v)\"" }
                c.decimalSeparator = v; return nil
            },
            // `auto`: each instrument's currency symbol from the ISO 4217 table ($, €, £, ¥, CHF, p).
            "currency-symbol": { c, v in
                guard v.count <= Limits.symbolLength else { return "expected at most \(Limits.symbolLength) characters, found \"\(v.prefix(16))…\"" }
                c.currencySymbol = v.lowercased() == "auto" ? nil : v; return nil
            },
            "currency-position": { c, v in
                if v.lowercased() == "auto" { c.currencyAfter = nil; return nil }
                guard ["before", "after"].contains(v.lowercased()) else { return "expected auto, before or after, found \"\(v)\"" }
                c.currencyAfter = v.lowercased() == "after"; return nil
            },
        ],
        "power": [
            "schedule": { c, v in
                switch parseSchedule(v) {
                case .success(let s): c.schedule = s; return nil
                case .failure(let e): return e.message
                }
            },
            "night-palette": { c, v in
                guard let b = parseBool(v) else { return "expected on or off, found \"\(v)\"" }
                c.nightPalette = b; return nil
            },
            "follow-markets": { c, v in
                guard let b = parseBool(v) else { return "expected on or off, found \"\(v)\"" }
                c.followMarkets = b; return nil
            },
            "lead": { c, v in
                guard let s = parseDuration(v), s <= MarketHours.longestMargin else {
                    return "expected a duration from 0 to 12h before the first open, like 30m, found \"\(v)\""
                }
                c.marketLeadSeconds = s; return nil
            },
            "trail": { c, v in
                guard let s = parseDuration(v), s <= MarketHours.longestMargin else {
                    return "expected a duration from 0 to 12h after the last close, like 30m, found \"\(v)\""
                }
                c.marketTrailSeconds = s; return nil
            },
            "light-sensor": { c, v in
                switch v.lowercased() {
                case "off": c.lightSensor = .off
                case "auto": c.lightSensor = .auto
                default:
                    guard v.hasPrefix("/"), v.utf8.count <= 256, !v.contains("\0") else {
                        return "expected off, auto (the first IIO illuminance sensor) or a sensor's directory such as /sys/bus/iio/devices/iio:device0, found \"\(v.prefix(64))\""
                    }
                    c.lightSensor = .path(v)
                }
                return nil
            },
            "blank-after-idle": { c, v in
                guard let s = parseDuration(v), s >= 0, s <= 7 * 86_400 else {
                    return "expected 0 (never) or a duration like 10min (at most 7d), found \"\(v)\""
                }
                c.blankAfterIdleSeconds = s; return nil
            },
            "cec": { c, v in
                guard let setting = CECSetting(v) else {
                    return "expected off, on, auto (when the box has a /dev/cec* adapter) or a device such as /dev/cec0, found \"\(v.prefix(64))\""
                }
                c.cec = setting; return nil
            },
        ],
        "burn-in": [
            "shift": { c, v in
                guard let s = Int(v), (0...16).contains(s) else { return "expected pixels from 0 to 16, found \"\(v)\"" }
                c.burnInShift = s; return nil
            },
            "period": { c, v in
                guard let s = parseDuration(v), s >= 10, s <= 7 * 86_400 else { return "expected a duration from 10s to 7d, found \"\(v)\"" }
                c.burnInPeriodSeconds = s; return nil
            },
        ],
        "tape": [
            "position": { c, v in
                guard let p = TapePosition(rawValue: v.lowercased()) else {
                    return "expected off, full (the tape alone), bottom or top (a band beside the chart), found \"\(v)\""
                }
                c.tapePosition = p; return nil
            },
            "speed": { c, v in
                // Below 10 px/s the crawl reads as stuck; above 2000 no one reads it.
                guard let n = Double(v), n.isFinite, n >= 10, n <= 2000 else {
                    return "expected pixels per second from 10 to 2000, found \"\(v)\""
                }
                c.tapeSpeed = n; return nil
            },
            "sort": { c, v in
                guard let sort = MoveSort(rawValue: v.lowercased()) else { return Config.expectedSort(v) }
                c.tapeSort = sort; return nil
            },
            "span": { c, v in
                switch v.lowercased() {
                case "all": c.tapeSpan = true
                case "off": c.tapeSpan = false
                default: return "expected all (one tape across the outputs in order) or off, found \"\(v)\""
                }
                return nil
            },
        ],
    ]
}

/// `[power] light-sensor`.
public enum LightSensorSetting: Sendable, Equatable {
    case off, auto
    case path(String)
}

extension Config {
    static func expectedSort(_ v: String) -> String {
        "expected config (the config's order), move (the day's biggest gain first) or abs-move (the biggest move up or down first), found \"\(v)\""
    }
}

package struct ConfigValueError: Error {
    package let message: String
    package init(message: String) { self.message = message }
}

/// The documented bounds on config values (docs/configuration.md, "Limits"): every value inside them runs.
enum Limits {
    static let modeSide = 8192
    /// stale-after: a century (fixtures with old prices use 36500d to mean "never stale").
    static let longestDuration = 36_500.0 * 86_400
    static let nameLength = 64
    static let symbolLength = 8
    static let instruments = 100
    static let scheduleClauses = 32
    static let renderThreads = 8
    /// `[display] safe-area`: a tenth of each side is more than any TV crops (EBU R 95 keeps 3.5 %
    /// for action, 5 % for titles).
    static let safeAreaPercent = 10.0
}

func parseBool(_ v: String) -> Bool? {
    switch v.lowercased() {
    case "yes", "true", "on", "1": return true
    case "no", "false", "off", "0": return false
    default: return nil
    }
}

/// `8`, `8s`, `1.5s`, `90min`, `2h`, `3d`, `500ms` → seconds.
func parseDuration(_ text: String) -> Double? {
    let t = text.lowercased().replacingSpaces()
    let units: [(String, Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
    for (suffix, factor) in units where t.hasSuffix(suffix) {
        guard let v = Double(t.dropLast(suffix.count)), v.isFinite, v >= 0 else { return nil }
        return v * factor
    }
    guard let v = Double(t), v.isFinite, v >= 0 else { return nil }
    return v
}

/// `cubic-bezier(0.64, 0, 0, 1)`, `0.64,0,0,1`, or the CSS names.
func parseCurve(_ text: String) -> CubicBezier? {
    let t = text.lowercased().replacingSpaces()
    switch t {
    case "linear": return .linear
    case "ease": return .ease
    case "ease-in-out": return .easeInOut
    default: break
    }
    var inner = Substring(t)
    if inner.hasPrefix("cubic-bezier(") && inner.hasSuffix(")") { inner = inner.dropFirst(13).dropLast() }
    let parts = inner.split(separator: ",").compactMap { Double($0) }
    guard parts.count == 4, (0...1).contains(parts[0]), (0...1).contains(parts[2]),
          (-5...5).contains(parts[1]), (-5...5).contains(parts[3]) else {
        return nil
    }
    return CubicBezier(parts[0], parts[1], parts[2], parts[3])
}

/// `Mon-Fri 07:00-22:00, Sat 09:00-18:00` (days not named are off); `always` is always on. Each
/// clause is `[DAYS] [HH:MM-HH:MM] [LEVEL]`: days as `Mon` or `Mon-Fri` (left out: the previous
/// clause's), no time range for the whole day, a level as `20%`, `on` (100 %) or `off` (default
/// on); at least a time range or a level. `Mon-Fri 07:00-22:00 100%, 22:00-07:00 20%, Sat-Sun off`.
/// A later clause wins where clauses overlap.
func parseSchedule(_ text: String) -> Result<PowerSchedule, ConfigValueError> {
    if text.lowercased() == "always" { return .success(.always) }
    func failure(_ message: String) -> Result<PowerSchedule, ConfigValueError> { .failure(ConfigValueError(message: message)) }
    let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    var schedule = PowerSchedule.never
    let clauses = text.split(separator: ",")
    // Every screen-power decision scans the ranges: a bound keeps it constant time.
    guard clauses.count <= Limits.scheduleClauses else {
        return failure("expected at most \(Limits.scheduleClauses) clauses, found \(clauses.count)")
    }
    var previousDays: (Int, Int)?
    for clause in clauses {
        var original = clause.split(separator: " ").map(String.init)[...]
        let shown = clause.trimmingWhitespace()
        guard !original.isEmpty else { return failure("an empty clause between commas") }
        func isTime(_ w: String) -> Bool { w.contains(":") }
        func level(_ w: String) -> Int? {
            switch w.lowercased() {
            case "on": return 100
            case "off": return 0
            default:
                guard w.hasSuffix("%"), let n = Int(w.dropLast()), (0...100).contains(n) else { return nil }
                return n
            }
        }
        // Days, unless the clause begins with its time range or level.
        var dayRange: (Int, Int)
        if let first = original.first, !isTime(first), level(first) == nil, !first.hasSuffix("%") {
            let dayParts = first.lowercased().split(separator: "-").map(String.init)
            // "-" alone splits into nothing.
            guard let firstDay = dayParts.first, let d0 = days.firstIndex(of: String(firstDay.prefix(3))),
                  let d1 = days.firstIndex(of: String((dayParts.last ?? firstDay).prefix(3))), dayParts.count <= 2 else {
                return failure("\"\(first)\" is not a day or day range like Mon-Fri")
            }
            dayRange = (d0, d1)
            original = original.dropFirst()
        } else if let previousDays {
            dayRange = previousDays
        } else {
            return failure("\"\(shown)\": the first clause names its days, like Mon-Fri 07:00-22:00")
        }
        previousDays = dayRange
        var range: (start: Int, end: Int)?
        if let word = original.first, isTime(word) {
            let timeParts = word.split(separator: "-").map(String.init)
            func minutes(_ s: String) -> Int? {
                let hm = s.split(separator: ":")
                guard hm.count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0...24).contains(h), (0...59).contains(m),
                      h * 60 + m <= 1440 else { return nil }
                return h * 60 + m
            }
            guard timeParts.count == 2, let start = minutes(timeParts[0]), let end = minutes(timeParts[1]), start != end else {
                return failure("\"\(word)\" is not a time range like 07:00-22:00")
            }
            range = (start, end)
            original = original.dropFirst()
        }
        var lightLevel = 100
        if let word = original.first {
            guard let l = level(word) else {
                return failure("\"\(word)\" is not a level like 20%, on or off (in \"\(shown)\")")
            }
            lightLevel = l
            original = original.dropFirst()
        } else if range == nil {
            return failure("expected \"Mon-Fri 07:00-22:00\" clauses separated by commas, found \"\(shown)\"")
        }
        guard original.isEmpty else {
            return failure("\"\(original.joined(separator: " "))\" after the level in \"\(shown)\"; expected DAYS HH:MM-HH:MM LEVEL")
        }
        let (start, end) = range ?? (0, 1440)
        var d = dayRange.0
        while true {
            if start < end {
                schedule.spans[d].append(.init(start..<end, level: lightLevel))
            } else {
                // Past midnight: the rest of this day and the start of the next.
                schedule.spans[d].append(.init(start..<1440, level: lightLevel))
                if end > 0 { schedule.spans[(d + 1) % 7].append(.init(0..<end, level: lightLevel)) }
            }
            if d == dayRange.1 { break }
            d = (d + 1) % 7
        }
    }
    return .success(schedule)
}

extension String {
    func replacingSpaces() -> String { String(filter { $0 != " " && $0 != "\t" }) }
}
