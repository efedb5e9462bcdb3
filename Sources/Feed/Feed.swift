// Feed: market data in. It turns Yahoo-style CSV files (daily and intraday) into sorted, validated
// `PriceSeries`, knows exchange time zones (TZif files from /usr/share/zoneinfo, no Foundation) and
// the NYSE trading calendar, and generates the built-in synthetic sample market the daemon shows
// when it has no configuration. Everything here is pure Swift on the stdlib plus a few Glibc calls
// for reading files; nothing here draws or runs an event loop.

/// One bar (candle) of a price series.
///
/// Prices are in the instrument's currency. The parser and the sample generator only ever produce
/// bars whose prices are finite and positive; a hand-built bar is not checked (see `isFinite`).
public struct PriceBar: Sendable, Equatable {
    /// Unix time in seconds, UTC.
    ///
    /// For daily bars this is the UTC midnight of the bar's calendar date (the trading day as the
    /// exchange names it), *not* the instant the session opened: that way the date survives any time
    /// zone (`CivilDate(unixTime: bar.time)` gives it back) and two feeds of the same day agree.
    /// For intraday bars it is the real instant the bar started.
    public var time: Int64
    public var open: Double
    public var high: Double
    public var low: Double
    public var close: Double
    /// The split- and dividend-adjusted close, when the source has one.
    public var adjustedClose: Double?
    /// Traded quantity (shares), when the source has one.
    public var volume: Double?

    public init(
        time: Int64,
        open: Double,
        high: Double,
        low: Double,
        close: Double,
        adjustedClose: Double? = nil,
        volume: Double? = nil
    ) {
        self.time = time
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.adjustedClose = adjustedClose
        self.volume = volume
    }

    /// True when every price present in the bar is a finite number (the chart must never see NaN).
    public var isFinite: Bool {
        open.isFinite && high.isFinite && low.isFinite && close.isFinite && (adjustedClose?.isFinite ?? true)
            && (volume?.isFinite ?? true)
    }

    /// The value of `field` for this bar. A missing adjusted close falls back to the close, because
    /// a source without adjustments is best shown as traded rather than not at all.
    @inlinable
    public func price(_ field: PriceField) -> Double {
        switch field {
        case .close: return close
        case .adjustedClose: return adjustedClose ?? close
        }
    }
}

/// Which price of a bar a chart follows.
public enum PriceField: Sendable, Equatable, Hashable, CaseIterable, CustomStringConvertible {
    /// The price as traded (the default: it matches what people saw on the day).
    case close
    /// The split- and dividend-adjusted close (`Adj Close`), so splits do not look like crashes.
    case adjustedClose

    public var description: String {
        switch self {
        case .close: return "Close"
        case .adjustedClose: return "Adj Close"
        }
    }
}

/// How far apart the bars of a series are meant to be.
public enum BarInterval: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// One bar per trading day; `PriceBar.time` is the UTC midnight of the date.
    case daily
    /// Bars `seconds` apart within a session (60 for 1-minute bars); `PriceBar.time` is the instant.
    case intraday(seconds: Int)

    public var isIntraday: Bool {
        if case .intraday = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .daily: return "daily"
        case .intraday(let seconds):
            return seconds % 60 == 0 ? "\(seconds / 60)-minute" : "\(seconds)-second"
        }
    }
}

/// A named, time-ordered run of bars.
///
/// Invariant (kept by the initializer): `bars` is sorted ascending by `time` and no two bars share a
/// time. Consumers may binary-search on it.
public struct PriceSeries: Sendable, Equatable {
    /// Display name, usually the ticker symbol (for a file: its name without `.csv`).
    public var name: String
    public var interval: BarInterval
    /// The field `prices()` returns when not told otherwise (what the user configured).
    public var priceField: PriceField
    public let bars: [PriceBar]
    /// The file wrote its times of day without a UTC offset (a spreadsheet export, a broker's
    /// download): they were read as UTC for now, and `anchored(in:)` reads them as the wall clock
    /// of the instrument's zone. False for daily series and for times that carry an offset.
    public var floatingTimes = false
    /// The zone `anchored(in:)` read floating times in (nil: the file said its offsets).
    public private(set) var assumedZone: String?

    /// Builds a series, sorting `bars` by time; of bars with equal times the later one in `bars`
    /// wins, which is what a feed that re-sends a corrected bar means.
    public init(name: String, interval: BarInterval, bars: [PriceBar], priceField: PriceField = .close) {
        self.name = name
        self.interval = interval
        self.priceField = priceField
        self.bars = PriceSeries.sortedUnique(bars)
    }

    public var isEmpty: Bool { bars.isEmpty }
    public var count: Int { bars.count }
    public var first: PriceBar? { bars.first }
    public var last: PriceBar? { bars.last }

    /// The bar times, ascending.
    public var times: [Int64] { bars.map(\.time) }

    /// The chosen price of every bar, in time order (`field` defaults to `priceField`).
    public func prices(_ field: PriceField? = nil) -> [Double] {
        let field = field ?? priceField
        return bars.map { $0.price(field) }
    }

    /// True when every bar's prices are finite, so the series is safe to draw.
    public var hasOnlyFinitePrices: Bool { bars.allSatisfy(\.isFinite) }

    /// Index of the first bar whose time is at or after `time` (`count` if none): O(log n), for
    /// slicing a range out of a long series without scanning it.
    public func firstIndex(atOrAfter time: Int64) -> Int {
        var low = 0
        var high = bars.count
        while low < high {
            let mid = (low + high) / 2
            if bars[mid].time < time { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The series with floating times read as wall-clock times in `zone` (the instrument's: its
    /// exchange's, or `time-zone`): 17:30 written in a Frankfurt file is 17:30 CEST, not 17:30 UTC.
    /// A reading that happens twice when clocks fall back is the first instant (`unixTime(for:)`).
    /// Unchanged when the times were not floating.
    public func anchored(in zone: ExchangeTimeZone) -> PriceSeries {
        guard floatingTimes, interval != .daily else { return self }
        let moved = bars.map { bar in
            var b = bar
            b.time = zone.unixTime(for: CivilDateTime(unixTime: bar.time))
            return b
        }
        var out = PriceSeries(name: name, interval: interval, bars: moved, priceField: priceField)
        out.assumedZone = zone.identifier
        return out
    }

    /// The bars up to `time` (what the file held then), with what is known of its times.
    public func through(_ time: Int64) -> PriceSeries {
        guard let last = bars.last, last.time > time else { return self }
        var out = PriceSeries(name: name, interval: interval, bars: bars.filter { $0.time <= time }, priceField: priceField)
        out.floatingTimes = floatingTimes
        out.assumedZone = assumedZone
        return out
    }

    /// The calendar date of a daily bar (or the UTC date of an intraday one).
    public static func date(of bar: PriceBar) -> CivilDate { CivilDate(unixTime: bar.time) }

    static func sortedUnique(_ bars: [PriceBar]) -> [PriceBar] {
        // Almost every source is already ascending; check in O(n) before paying for a sort.
        var ascending = true
        var index = 1
        while index < bars.count {
            if bars[index - 1].time >= bars[index].time {
                ascending = false
                break
            }
            index += 1
        }
        if ascending { return bars }
        // Sort positions rather than bars so equal times keep input order (the stdlib sort is not
        // documented as stable), then keep the last of each run of equal times.
        let order = bars.indices.sorted { a, b in
            bars[a].time != bars[b].time ? bars[a].time < bars[b].time : a < b
        }
        var result: [PriceBar] = []
        result.reserveCapacity(bars.count)
        for position in order {
            if let lastTime = result.last?.time, lastTime == bars[position].time {
                result[result.count - 1] = bars[position]
            } else {
                result.append(bars[position])
            }
        }
        return result
    }
}
