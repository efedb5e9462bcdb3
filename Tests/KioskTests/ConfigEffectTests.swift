import Chart
@testable import Commands
import CoreDriver
import DisplayModel
import Feed
import Input
import InputModel
@testable import Kiosk
@testable import KioskCore
import Testing

/// Every configuration key does something: for each key a check that holds with the key set and
/// fails with the shipped default (so the check can fail), through the daemon's core.
@Suite("Config keys and their effects")
struct ConfigEffectTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var section: String
        var line: String
        var check: @Sendable (Config) -> Bool
        var testDescription: String { "[\(section)] \(line)" }
    }

    static let base = "[instrument A]\ndaily = A.csv\nintraday = A-1m.csv\n"

    static func config(_ row: Row?) -> Config {
        var text = base
        if let row {
            text = row.section.hasPrefix("instrument")
                ? base + row.line + "\n"
                : "[\(row.section)]\n\(row.line)\n" + base
        }
        let (config, issues) = Config.parse(text, file: "t.conf")
        #expect(issues.isEmpty, "\(issues)")
        return config
    }

    /// A started core with the sample market as the data of every instrument.
    static func drive(_ config: Config, seconds: Double = 2, start: KioskTime = KioskTime(mono: 1000, wall: 1_796_000_000),
                      display: DisplayInfo = DisplayInfo(width: 480, height: 270, refreshHz: 10)) -> CoreDriver {
        let zones = DataCheck.zones(for: config, file: "t.conf").zones
        let d = CoreDriver(config: config, zones: zones, start: start, display: display)
        d.send(.start)
        for inst in config.instruments {
            if inst.dailyFile != nil { d.send(.series(instrumentID: inst.id, slot: .daily, series: CoreFixtures.daily)) }
            if inst.intradayFile != nil { d.send(.series(instrumentID: inst.id, slot: .intraday, series: CoreFixtures.intraday)) }
        }
        d.run(for: seconds)
        return d
    }

    /// True when reloading from the default to `config` asks for `effect`.
    static func reloadAsks(_ config: Config, _ effect: KioskEffect) -> Bool {
        let d = drive(Self.config(nil))
        let before = d.effects.count
        d.send(.configure(KioskSetup(config: config, zones: DataCheck.zones(for: config, file: "t.conf").zones, localZone: .utc)))
        return d.effects.dropFirst(before).contains { $0.value == effect }
    }

    /// The tape's (or the overview's) order of A and a second instrument B whose last closes are
    /// `lasts` after a close of 101 (`CoreAlertTests.series`).
    static func moversOrder(_ config: Config, lasts: [Double], tiles: Bool) -> [String] {
        var c = config
        var b = InstrumentConfig(id: "B")
        b.dailyFile = "B.csv"
        c.instruments.append(b)
        c.staleAfterSeconds = 36_500 * 86_400
        if tiles { c.watchlist = .only }
        let d = CoreDriver(config: c)
        d.send(.start)
        for (id, last) in zip(["A", "B"], lasts) {
            d.send(.series(instrumentID: id, slot: .daily, series: CoreFixtures.threeDays(id, last: last)))
        }
        d.run(for: 2)
        return tiles ? (d.core.watchlist?.tileContents.map(\.name) ?? []) : d.core.tapeEntries().map(\.instrument.name)
    }

    static func price(_ config: Config) -> String { drive(config).core.model?.currentLabels().price ?? "" }

    static let rows: [Row] = [
        Row(section: "display", line: "backend = fbdev") { reloadAsks($0, .reopenDisplay) },
        Row(section: "display", line: "device = /dev/dri/card1") { reloadAsks($0, .reopenDisplay) },
        Row(section: "display", line: "connector = HDMI-A-1") { reloadAsks($0, .reopenDisplay) },
        Row(section: "display", line: "mode = 1280x720@60") { reloadAsks($0, .reopenDisplay) },
        Row(section: "display", line: "max-size = 1280x720") { reloadAsks($0, .reopenDisplay) },
        Row(section: "display", line: "rotation = 90") { c in
            let d = drive(c)
            // The chart is laid out upright on a panel mounted on its side, and turned on the way out.
            return d.core.model?.screen.layout.width == 270 && d.presents.last?.value.quarterTurns == 1
        },
        Row(section: "display", line: "scale = 1.5") {
            drive($0, display: DisplayInfo(width: 1920, height: 1080)).core.model?.screen.layout.scale == 1.5
        },
        Row(section: "display", line: "render-threads = 2") { Daemon.renderThreads(for: $0) == 2 },
        // 5 % of 1920 and of 1080 on each side, by hand: 96 and 54 pixels (the shell's margins).
        Row(section: "display", line: "safe-area = 5%") { OutputScreen.margins(width: 1920, height: 1080, safeArea: $0.safeArea) == (96, 54) },
        Row(section: "input", line: "enable = no") { reloadAsks($0, .openInput) },
        Row(section: "input", line: "seat = seat1") { reloadAsks($0, .openInput) },
        Row(section: "input", line: "calibration = 0 1 0 1 0 0") { reloadAsks($0, .openInput) },
        // Which core the touches reach is the daemon's wiring (DaemonWiringTests.twoOutputs).
        Row(section: "input", line: "output = second") { $0.inputOutput == .second },
        Row(section: "data", line: "directory = /srv/prices") { c in
            KioskCore.locate(path: "/srv/prices/A.csv", message: "m", in: c, file: "t.conf").line > 0
        },
        // The sample's last bar is 27 Nov 2026; four days later it is stale by default (3 days).
        Row(section: "data", line: "stale-after = 7d") { c in
            !drive(c, start: KioskTime(mono: 1000, wall: 1_796_100_000)).core.isStale
        },
        Row(section: "chart", line: "ranges = 1D 1Y") { drive($0).core.model?.screen.layout.ranges == [.oneDay, .oneYear] },
        Row(section: "chart", line: "start-range = 5Y") { drive($0).core.model?.range == .fiveYears },
        Row(section: "chart", line: "cycle-interval = 0") { c in drive(c, seconds: 50).core.model?.range == .oneMonth },
        Row(section: "chart", line: "instrument-interval = 0") { c in
            var two = c
            two.instruments.append(InstrumentConfig(id: "B", dailyFile: "B.csv"))
            // (B never shown in ten minutes: a single reading could fall on A's next turn)
            let d = drive(two, seconds: 1)
            var sawB = false
            d.run(for: 600) { if d.core.instrumentIndex != 0 { sawB = true } }
            return !sawB && d.core.status().instrumentID == "A"
        },
        Row(section: "chart", line: "touch-pause = 5min") { c in
            let d = drive(c)
            d.send(.gesture(.scrubBegan(x: 5, y: 5), inputMicros: nil))
            d.send(.gesture(.scrubEnded, inputMicros: nil))
            d.run(for: 120)
            return d.core.model?.range == .oneMonth
        },
        Row(section: "chart", line: "morph-duration = 5s") { c in
            let d = drive(c)
            d.send(.key(.nextRange))
            return d.core.model?.isAnimating(at: d.time.mono + 3) == true
        },
        Row(section: "chart", line: "morph-curve = linear") { drive($0).core.model?.timing.curve == .linear },
        Row(section: "chart", line: "baseline-1d = first") { c in
            // The sample's daily bars give 1D a previous close unless the day's first price is asked for.
            guard let m = drive(c).core.model else { return false }
            let day = m.selection(for: .oneDay)
            return day.baselineKind == .first && day.baselineValue == day.points.first?.value
        },
        Row(section: "chart", line: "extended-hours = hide") { drive($0).core.model?.rangeOptions.extendedHours == .hide },
        Row(section: "chart", line: "watchlist = only") { c in
            let d = drive(c)
            return d.core.showingWatchlist && d.core.status().scene == .watchlist
        },
        Row(section: "chart", line: "time-axis = calendar") { drive($0).core.model?.timeAxis == .calendar },
        Row(section: "chart", line: "palette = color-blind") { drive($0).core.model?.screen.palette == .colorBlindSafe },
        Row(section: "chart", line: "locale = de-DE") { price($0).contains(",") && price($0).hasSuffix("\u{00A0}$") },
        Row(section: "chart", line: "locale = ja-JP") { c in
            // ja-JP's prices read as en-US's; its up is red.
            drive(c).core.model?.screen.palette.up == ChartPalette.standard.down
        },
        Row(section: "chart", line: "colors = red-up") { drive($0).core.model?.screen.palette.up == ChartPalette.standard.down },
        Row(section: "chart", line: "decimals = 0") { !price($0).contains(".") },
        Row(section: "chart", line: "grouping-separator = none") { c in
            // The sample's price is under 1000: shown through the formatter the daemon built.
            drive(c).core.model?.instrument.priceFormat.price(12_345) == "$12345.00"
        },
        Row(section: "chart", line: "decimal-separator = ,") { price($0).contains(",") },
        Row(section: "chart", line: "currency-symbol = USD ") { price($0).hasPrefix("USD") },
        Row(section: "chart", line: "currency-position = after") { price($0).hasSuffix("$") },
        Row(section: "power", line: "schedule = Sat 00:00-00:01") { !drive($0).core.screenOn },
        Row(section: "power", line: "blank-after-idle = 1min") { c in !drive(c, seconds: 70).core.screenOn },
        Row(section: "power", line: "cec = off") { drive($0).core.cecStatus == "off" },
        // Dimmed by the schedule: the night palette's black background.
        Row(section: "power", line: "night-palette = on") { c in
            var c = c
            c.schedule = (try? parseSchedule("Mon-Sun 30%").get()) ?? .always
            return drive(c).core.model?.screen.palette.background == ChartPalette.standard.night.background
        },
        // Sunday evening in New York (instrument A's exchange is XNYS): no window, off.
        Row(section: "power", line: "follow-markets = on") { !drive($0).core.screenOn },
        // Tue 1 Dec 2026 05:00 EST: 4 h 30 before the open; 17:30, 1 h 30 after the close.
        Row(section: "power", line: "lead = 5h") { c in
            var c = c
            c.followMarkets = true
            return drive(c, start: KioskTime(mono: 1000, wall: 1_796_119_200)).core.screenOn
        },
        Row(section: "power", line: "trail = 2h") { c in
            var c = c
            c.followMarkets = true
            return drive(c, start: KioskTime(mono: 1000, wall: 1_796_164_200)).core.screenOn
        },
        Row(section: "burn-in", line: "shift = 4") { c in
            let d = drive(c, seconds: 3 * 180 * 12)
            return d.presents.contains { abs($0.value.offset.dx) > 2 || abs($0.value.offset.dy) > 2 }
        },
        Row(section: "burn-in", line: "period = 10s") { c in
            let d = drive(c, seconds: 30)
            return d.presents.contains { $0.value.offset != .zero }
        },
        // The chart is laid out above the band, and every frame carries the tape.
        Row(section: "tape", line: "position = bottom") { c in
            let d = drive(c)
            return (d.core.model?.screen.layout.height ?? 270) < 270 && d.presents.last?.value.tape?.position == .bottom
        },
        Row(section: "tape", line: "speed = 300") { c in
            var c = c
            c.tapePosition = .full
            return drive(c).presents.last?.value.tape?.speed == 300
        },
        // One output here: span is accepted and kept for a second output.
        Row(section: "tape", line: "span = all") { $0.tapeSpan },
        // The shell reads the sensor (LightSensorTests, a fake sysfs); the core's use of a reading: AmbientLightTests.
        Row(section: "power", line: "light-sensor = auto") { $0.lightSensor == .auto },
        // A down 5.94 % on the day, B up 0.99 % (closes 101 -> 95 and 101 -> 102): the day's gain first.
        Row(section: "tape", line: "sort = move") { moversOrder($0, lasts: [95, 102], tiles: false) == ["B", "A"] },
        // A up 0.99 %, B down 5.94 %: the bigger move first, down or up.
        Row(section: "chart", line: "watchlist-sort = abs-move") { moversOrder($0, lasts: [102, 95], tiles: true) == ["B", "A"] },
        // Monday 7 December 2026, 13:33 UTC (Unix 1796650380 by Python's datetime; 08:33 in New
        // York): the NYSE opens at 09:30, 57 minutes on, in pre-market.
        Row(section: "chart", line: "countdown = on") { c in
            var c = c
            c.instruments[0].exchange = "XNYS"
            c.instruments[0].timeZone = "America/New_York"
            let status = drive(c, start: KioskTime(mono: 1000, wall: 1_796_650_380)).core.marketNote?.status
            return status == "Pre-market · opens in 57 min"
        },
        Row(section: "chart", line: "stats = full") { drive($0).core.model?.screen.layout.statsBaseline != nil },
        // CoreDriver's wall clock, Unix 1796000000 + 2 s, is 00:53 on 30 November 2026 in UTC (Python's datetime).
        Row(section: "chart", line: "clock = local") { drive($0).core.model?.clock == "00:53" },
        Row(section: "instrument A", line: "name = Apple Inc.") { drive($0).core.status().instrumentName == "Apple Inc." },
        Row(section: "instrument A", line: "daily = Other.csv") { c in
            let d = CoreDriver(config: c)
            d.send(.start)
            return d.core.status().waitingFor?.contains("Other.csv") == true
        },
        Row(section: "instrument A", line: "intraday = Other-1m.csv") { c in
            let d = CoreDriver(config: c)
            d.send(.start)
            return d.core.status().waitingFor?.contains("Other-1m.csv") == true
        },
        Row(section: "instrument A", line: "time-zone = Asia/Tokyo") {
            drive($0).core.model?.instrument.market.timeZone.identifier == "Asia/Tokyo"
        },
        Row(section: "instrument A", line: "exchange = XTKS") { c in
            // The exchange brings its calendar and, without a time-zone line, its zone.
            let market = drive(c).core.model?.instrument.market
            return market?.calendar?.mic == "XTKS" && market?.timeZone.identifier == "Asia/Tokyo"
        },
        Row(section: "instrument A", line: "session = 24/7") { c in
            // Around the clock for the daemon too: its market status never closes.
            drive(c).core.model?.instrument.market.calendar?.isAlwaysOpen == true
        },
        Row(section: "instrument A", line: "currency = EUR") { price($0).hasPrefix("€") },
        Row(section: "instrument A", line: "currency = JPY") { !price($0).contains(".") && price($0).hasPrefix("¥") },
        Row(section: "instrument A", line: "currency = GBp") { price($0).hasSuffix("p") },
        Row(section: "instrument A", line: "price = adjusted") { drive($0).core.model?.instrument.market.priceField == .adjustedClose },
    ]

    @Test("the key has its effect, and the default does not", arguments: rows)
    func keyHasEffect(_ row: Row) {
        #expect(row.check(Self.config(row)), "with the key")
        #expect(!row.check(Self.config(nil)), "the check also holds for the default: it shows nothing")
    }

    @Test("the table covers every key of the schema and of [instrument]")
    func everyKeyCovered() {
        var keys = Set<String>()
        for (section, entries) in Config.schema { for key in entries.keys { keys.insert("\(section).\(key)") } }
        for key in ["name", "daily", "intraday", "time-zone", "exchange", "currency", "price"] { keys.insert("instrument.\(key)") }
        let covered = Set(Self.rows.map { row in
            (row.section.hasPrefix("instrument") ? "instrument" : row.section) + "."
                + String(row.line.prefix { $0 != " " && $0 != "=" })
        })
        #expect(keys.subtracting(covered).isEmpty, "keys without an effect test: \(keys.subtracting(covered).sorted())")
    }
}
