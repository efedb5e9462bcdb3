// The header's stats line (`[chart] stats`): the day's low and high, the 52-week range with where
// the price sits in it, and the day's volume, from the High, Low and Volume columns the files
// already carry. A figure the data cannot back is left out, never shown as 0 or guessed: no High
// and Low columns (the parser fills them from the close), a file that does not reach back a year,
// a volume that is absent or zero.
import Feed
import Text

/// How much of the stats line a wall shows.
public enum StatsMode: String, Sendable, CaseIterable {
    case off
    /// The day's range and the 52-week range with the price's place in it.
    case range
    /// The ranges and the day's volume.
    case full
}

/// The figures of the stats line for the newest trading day.
public struct MarketStats: Equatable, Sendable {
    /// The trading day they describe (the newest price's, in the exchange's time).
    public var day: CivilDate
    /// The newest price (the header's on 1D).
    public var price: Double
    public var dayLow: Double?
    public var dayHigh: Double?
    /// The lowest low and highest high of the trading days after the same date a year before, up
    /// to and including `day`; nil unless the daily bars reach back that far.
    public var yearLow: Double?
    public var yearHigh: Double?
    /// The day's traded quantity: the daily bar's, else the sum of the day's intraday bars' in the
    /// regular session.
    public var volume: Double?

    /// Where the price sits in the 52-week range, 0 at the low and 100 at the high.
    public var yearPosition: Double? {
        guard let lo = yearLow, let hi = yearHigh, hi > lo else { return nil }
        return min(100, max(0, (price - lo) / (hi - lo) * 100))
    }

    /// The line in the wall's words and number format: `Day 429.98–438.18 · 52 wk 429.98–705.07 (0 %)
    /// · Vol 19.7 M`. Empty when nothing can be said.
    public func text(mode: StatsMode, format: PriceFormat, phrases: Phrases) -> String {
        guard mode != .off else { return "" }
        let numbers = format.adapted(toMagnitude: max(abs(price), yearHigh ?? 0))
        var parts: [String] = []
        if let lo = dayLow, let hi = dayHigh {
            parts.append(phrases.statsDay + " " + numbers.number(lo) + "\u{2013}" + numbers.number(hi))
        }
        if let lo = yearLow, let hi = yearHigh {
            var words = phrases.statsYear + " " + numbers.number(lo) + "\u{2013}" + numbers.number(hi)
            if let p = yearPosition {
                var whole = numbers
                whole.decimals = 0
                words += " (" + whole.number(p) + format.percentSpacing + "%)"
            }
            parts.append(words)
        }
        if mode == .full, let v = volume {
            parts.append(phrases.statsVolume + " " + Self.compact(v, format: format, phrases: phrases))
        }
        return parts.joined(separator: " · ")
    }

    /// A quantity in the locale's short form (CLDR's "short" decimal format): `19.7 M`, `19,7 Mio.`,
    /// `1973万`. Three significant digits at most; below the first step, the whole number.
    public static func compact(_ value: Double, format: PriceFormat, phrases: Phrases) -> String {
        var f = format
        f.significantDigits = nil
        // Short forms are not grouped (`1973万`, not `1,973万`).
        f.groupingSeparator = ""
        for (step, suffix) in phrases.compactSteps.reversed() where value >= step * 0.9995 {
            let scaled = value / step
            f.decimals = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2
            // 999.96 M rounds to 1000 M: say the next step instead.
            if let next = phrases.compactSteps.first(where: { $0.0 > step })?.0,
               (scaled * pow10(f.decimals)).rounded() / pow10(f.decimals) >= next / step { continue }
            var digits = f.number(scaled)
            // `1.50 K` says no more than `1.5 K`: CLDR's short forms carry no trailing zeros.
            if f.decimals > 0, digits.contains(f.decimalSeparator) {
                while digits.hasSuffix("0") { digits.removeLast() }
                if digits.hasSuffix(f.decimalSeparator) { digits.removeLast(f.decimalSeparator.count) }
            }
            return digits + suffix
        }
        f.decimals = 0
        return f.number(value)
    }

    private static func pow10(_ n: Int) -> Double { n <= 0 ? 1 : (0..<n).reduce(1.0) { r, _ in r * 10 } }
}

extension MarketData {
    /// The stats of the newest trading day; nil when there is no price.
    public func stats(options: RangeOptions = RangeOptions()) -> MarketStats? {
        guard let quote = dayQuote(options: options) else { return nil }
        let live = intraday.flatMap { i in i.bars.isEmpty || intradayIsBehindDaily ? nil : i }
        let day: CivilDate
        if let last = live?.bars.last {
            day = timeZone.localDate(atUnixTime: last.time)
        } else if let last = daily?.bars.last {
            day = CivilDate(unixTime: last.time)
        } else {
            return nil
        }
        var stats = MarketStats(day: day, price: quote.price)
        let dailyHasRange = daily.map(Self.hasHighLow) ?? false
        let dayBar = daily?.bars.last.flatMap { CivilDate(unixTime: $0.time) == day ? $0 : nil }

        // The day: its daily bar (the exchange's own figures) and its intraday bars in the regular
        // session (a pre-market print is not the day's low as the exchange quotes it).
        var lows: [Double] = [], highs: [Double] = []
        if let bar = dayBar, dailyHasRange { lows.append(bar.low); highs.append(bar.high) }
        var intradayVolume: Double?
        if let live {
            let session = calendar.flatMap { $0.isAlwaysOpen ? nil : $0.session(on: day, zone: timeZone) }
            let bars = live.bars.filter { bar in
                timeZone.localDate(atUnixTime: bar.time) == day && (session.map { bar.time >= $0.open && bar.time < $0.close } ?? true)
            }
            if Self.hasHighLow(live), !bars.isEmpty {
                lows.append(bars.map(\.low).min()!)
                highs.append(bars.map(\.high).max()!)
            }
            let volumes = bars.compactMap(\.volume)
            if !volumes.isEmpty { intradayVolume = volumes.reduce(0, +) }
        }
        // The newest price may lie outside the bars' range (a bar still forming): the day's range holds it.
        if !lows.isEmpty {
            stats.dayLow = min(lows.min()!, quote.price)
            stats.dayHigh = max(highs.max()!, quote.price)
        }

        // A year: the days after the same date a year before. Only when the file reaches back to
        // it (a week's slack for holidays and a listing's first days): three months of bars would
        // give a "52-week" range that is not one.
        if dailyHasRange, let bars = daily?.bars, let first = bars.first {
            let start = day.addingMonths(-12)
            if CivilDate(unixTime: first.time) <= start.adding(days: 7) {
                let from = daily!.firstIndex(atOrAfter: start.adding(days: 1).unixTimeAtMidnightUTC)
                let year = bars[from...].filter { CivilDate(unixTime: $0.time) <= day }
                var lo = year.map(\.low).min(), hi = year.map(\.high).max()
                if let dl = stats.dayLow, let dh = stats.dayHigh {
                    lo = min(lo ?? dl, dl)
                    hi = max(hi ?? dh, dh)
                }
                stats.yearLow = lo
                stats.yearHigh = hi
            }
        }

        let volume = dayBar?.volume ?? intradayVolume
        if let v = volume, v > 0, v.isFinite { stats.volume = v }
        return stats
    }

    /// The series has High and Low columns of its own: the parser fills absent ones from the
    /// close, so a series whose every bar has high == low == close has none to show.
    static func hasHighLow(_ series: PriceSeries) -> Bool {
        series.bars.contains { $0.high != $0.close || $0.low != $0.close }
    }
}
