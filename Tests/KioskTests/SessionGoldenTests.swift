import Chart
@testable import Commands
import DisplayModel
import Feed
import InputModel
@testable import Kiosk
@testable import KioskCore
import TestSupport
import Testing
import Text

/// 1D done right, in pictures (golden PNGs, looked at before acceptance) and numbers: the x axis
/// spans the regular session, pre-market bars are paler, the baseline is the previous close, the
/// header says where the market is.
@Suite("Sessions on the chart")
struct SessionGoldenTests {
    static let newYork = try! ExchangeTimeZone(identifier: "America/New_York", posixRule: "EST5EDT,M3.2.0,M11.1.0")
    static let tokyo = try! ExchangeTimeZone(identifier: "Asia/Tokyo", posixRule: "JST-9")

    /// A deterministic random walk of one-minute bars over the given local windows.
    static func bars(_ windows: [(date: CivilDate, from: (Int, Int), to: (Int, Int))], zone: ExchangeTimeZone,
                     start: Double, seed: UInt64 = 7) -> PriceSeries {
        var state = seed
        var price = start
        var out: [PriceBar] = []
        for w in windows {
            var t = zone.unixTime(for: CivilDateTime(date: w.date, hour: w.from.0, minute: w.from.1)!)
            let end = zone.unixTime(for: CivilDateTime(date: w.date, hour: w.to.0, minute: w.to.1)!)
            while t < end {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let step = (Double(state >> 33) / Double(1 << 31) - 0.5) * start * 0.0016
                price = max(start * 0.5, price + step + start * 0.00002)
                out.append(PriceBar(time: t, open: price, high: price, low: price, close: price))
                t += 60
            }
        }
        return PriceSeries(name: "T", interval: .intraday(seconds: 60), bars: out)
    }

    static func day(_ y: Int, _ m: Int, _ d: Int) -> CivilDate { CivilDate(year: y, month: m, day: d)! }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var testDescription: String { name }
    }

    /// The model as the daemon builds it, with the status line MarketNote gives at `now`.
    static func model(_ name: String) throws -> (ScreenModel, MarketNote) {
        let fonts = try FontSet.load()
        let market: MarketData
        let now: Int64
        var format = Config().priceFormat(currencyCode: "USD")
        switch name {
        case "1D-premarket-open":
            // Monday's session, then Tuesday from 07:00 pre-market to 11:45: a session in progress.
            let series = bars([(day(2026, 11, 23), (9, 30), (16, 0)), (day(2026, 11, 24), (7, 0), (11, 45))],
                              zone: newYork, start: 182)
            market = MarketData(daily: nil, intraday: series, timeZone: newYork, calendar: .xnys)
            now = newYork.unixTime(for: CivilDateTime(year: 2026, month: 11, day: 24, hour: 11, minute: 45)!)
        case "1D-closed":
            // Friday's whole session and an hour and a half after hours; Saturday morning.
            let series = bars([(day(2026, 11, 19), (9, 30), (16, 0)), (day(2026, 11, 20), (9, 30), (17, 30))],
                              zone: newYork, start: 95, seed: 11)
            market = MarketData(daily: nil, intraday: series, timeZone: newYork, calendar: .xnys)
            now = newYork.unixTime(for: CivilDateTime(year: 2026, month: 11, day: 21, hour: 10, minute: 0)!)
        default:  // "1D-tokyo-lunch"
            let series = bars([(day(2026, 11, 25), (9, 0), (11, 30)), (day(2026, 11, 25), (12, 30), (15, 30)),
                               (day(2026, 11, 26), (9, 0), (11, 30)), (day(2026, 11, 26), (12, 30), (14, 10))],
                              zone: tokyo, start: 2480, seed: 3)
            market = MarketData(daily: nil, intraday: series, timeZone: tokyo, calendar: .xtks)
            now = tokyo.unixTime(for: CivilDateTime(year: 2026, month: 11, day: 26, hour: 14, minute: 10)!)
            format = Config().priceFormat(currencyCode: "JPY")
        }
        let instrument = Instrument(name: name == "1D-tokyo-lunch" ? "7203 · Toyota Motor" : "TBX · Example Corp.",
                                    market: market, priceFormat: format)
        let m = ScreenModel(instrument: instrument, width: 960, height: 540, fonts: fonts, range: .oneDay)
        let note = MarketNote(calendar: market.calendar, zone: market.timeZone, now: now, fetch: nil,
                              newest: market.intraday, staleness: nil)
        m.statusNote = note.text
        return (m, note)
    }

    @Test("1D key frames match their golden images", arguments: ["1D-premarket-open", "1D-closed", "1D-tokyo-lunch"])
    func keyFrame(_ name: String) throws {
        let (m, _) = try Self.model(name)
        let frame = SceneRenderer().render(m, at: 0).buffer
        let result = ImageComparison.checkScreen(frame, golden: "session-\(name).png")
        #expect(result.passed, "\(result.report)")
    }

    @Test("mid-session: the previous close is the baseline, the line ends where now is, pre-market is paler")
    func midSession() throws {
        let (m, note) = try Self.model("1D-premarket-open")
        let day = m.selection(for: .oneDay)
        // Monday's last bar (15:59) is the previous close.
        let monday = try #require(m.instrument.market.intraday?.bars.last { Self.newYork.localDate(atUnixTime: $0.time) == Self.day(2026, 11, 23) })
        #expect(day.baseline == monday.close && day.baselineKind == .previousClose)
        #expect(m.values().baseline == monday.close)
        #expect(note.text == "Open · as of 11:44 EST")
        #expect(note.state == "open")
        // The open sits where 07:00-09:30 of pre-market ends; 11:45 of a 09:30-16:00 day is about a
        // third of the regular part, so the line stops well short of the right edge.
        let plot = m.screen.layout.plot
        let xs = m.presentationForTesting(at: 0).positions.map(\.x)
        let last = try #require(xs.last)
        let expected = plot.left + plot.width * (150 + 134) / (150 + 390)
        #expect(abs(last - expected) < 2, "\(last) vs \(expected)")
        #expect(day.points.contains { day.isExtendedHours($0.time) })
        let spans = try #require(m.presentationForTesting(at: 0).regularSpans)
        #expect(spans.count == 1 && spans[0].lowerBound > plot.left + plot.width * 0.25)
        // Hidden: the pre-market bars are gone and the open is the left edge.
        m.rangeOptions.extendedHours = .hide
        #expect(!m.selection(for: .oneDay).points.contains { m.selection(for: .oneDay).isExtendedHours($0.time) })
        #expect(abs((m.presentationForTesting(at: 0).positions.first?.x ?? 0) - plot.left) < 0.5)
        // `first`: the day's first price (pre-market included) instead.
        m.rangeOptions = RangeOptions(dayBaseline: .first, extendedHours: .dim)
        #expect(m.selection(for: .oneDay).baselineValue == m.selection(for: .oneDay).points.first?.value)
    }

    @Test("closed: the whole session and after hours, 'Closed · opens Mon 09:30'")
    func closedMarket() throws {
        let (m, note) = try Self.model("1D-closed")
        #expect(note.text == "Closed · opens Mon 09:30 · as of 20 Nov 17:29 EST")
        #expect(note.state == "closed")
        // Monday's open is when the status next changes: Monday 09:30 (pre-market starts at 04:00).
        #expect(note.nextChange == Self.newYork.unixTime(for: CivilDateTime(year: 2026, month: 11, day: 23, hour: 4, minute: 0)!))
        let view = m.presentationForTesting(at: 0)
        #expect(abs((view.positions.last?.x ?? 0) - m.screen.layout.plot.right) < 0.5)
    }

    @Test("Tokyo: the lunch break takes no width on the trading axis and is marked")
    func tokyoLunch() throws {
        let (m, note) = try Self.model("1D-tokyo-lunch")
        #expect(note.text == "Open · as of 14:09 JST")
        let view = m.presentationForTesting(at: 0)
        let lunchEnd = try #require(m.selection(for: .oneDay).session?.lunch?.upperBound)
        #expect(view.separatorTimes.contains(lunchEnd))
        // 11:29 and 12:30 sit a minute's width apart.
        let times = view.times
        let i = try #require(times.firstIndex { $0 >= lunchEnd })
        let minute = view.positions[1].x - view.positions[0].x
        #expect(abs((view.positions[i].x - view.positions[i - 1].x) - minute) < 0.01)
        // On the calendar axis the break is clock time (an hour wide).
        m.timeAxis = .calendar
        let cal = m.presentationForTesting(at: 0)
        #expect(cal.positions[i].x - cal.positions[i - 1].x > 30 * minute)
    }

    @Test("the morph between 1D and 5D is time-anchored: a shared minute moves from its 1D place to its 5D place")
    func morphOneDayFiveDays() throws {
        let (m, _) = try Self.model("1D-premarket-open")
        m.labelFade = 0
        let oneDay = m.presentationForTesting(at: 0)
        let t = oneDay.times[oneDay.times.count / 2]
        let start = oneDay.position(forTime: t)
        m.select(.fiveDays, at: 10)
        #expect(m.presentationForTesting(at: 10).position(forTime: t) == start)
        let mid = m.presentationForTesting(at: 10.6).position(forTime: t)
        let end = m.presentationForTesting(at: 20)
        #expect(end.position(forTime: t) != start)
        let e = end.position(forTime: t)
        #expect(mid.x >= min(start.x, e.x) - 1e-9 && mid.x <= max(start.x, e.x) + 1e-9)
        // 5D marks the session boundary (Tuesday's first bar).
        #expect(end.separatorTimes.count == 1)
    }
}
