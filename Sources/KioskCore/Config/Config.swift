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

extension InstrumentConfig {
    /// An instrument with the shipped defaults (in an extension: the memberwise one stays).
    package init(id: String) { self.init(id: id, name: nil) }
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
