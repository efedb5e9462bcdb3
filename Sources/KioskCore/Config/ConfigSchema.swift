import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Text

// The config's keys, section by section: each key's setter parses its value into `Config` and
// says what it expected when it cannot. The daemon, `check-config` and, through `check-config
// --keys`, the manual page all read this one table.

extension Config {
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
