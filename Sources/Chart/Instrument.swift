import Feed
import Text

/// One instrument the kiosk shows: its name, its data and how its prices read.
public struct Instrument: Sendable {
    public var name: String
    public var market: MarketData
    public var priceFormat: PriceFormat

    public init(name: String, market: MarketData, priceFormat: PriceFormat = .usDollar) {
        self.name = name
        self.market = market
        self.priceFormat = priceFormat
    }

    /// The built-in sample market: shown when nothing is configured, so a fresh install draws
    /// something real at once.
    public static func sample() -> Instrument {
        Instrument(name: "\(SampleMarket.symbol) · \(SampleMarket.name)",
                   market: MarketData(daily: SampleMarket.daily(), intraday: SampleMarket.intraday(),
                                      timeZone: SampleMarket.timeZone, calendar: .xnys))
    }

    /// Loads a Yahoo-layout CSV (daily or intraday, told apart by its header). Skipped rows are
    /// reported through `warn` in one line; a file with nothing usable throws, naming the file.
    public static func load(csv path: String, timeZone: ExchangeTimeZone, priceField: PriceField = .close,
                            name: String? = nil, warn: (String) -> Void) throws(FeedError) -> Instrument {
        let (series, report) = try YahooCSV.load(path: path, priceField: priceField)
        if let message = report.message { warn(message) }
        let market = series.interval.isIntraday
            ? MarketData(daily: nil, intraday: series, timeZone: timeZone, priceField: priceField)
            : MarketData(daily: series, intraday: nil, timeZone: timeZone, priceField: priceField)
        return Instrument(name: name ?? series.name, market: market)
    }
}

/// What the screen says about a range: price, change against the range's baseline (its first
/// value, or for 1D the previous close), trend.
public struct RangeSummary: Equatable, Sendable {
    public var first: Double
    public var last: Double
    public var isUp: Bool { last >= first }
    public var change: Double { last - first }
    public var changePercent: Double { first != 0 ? (last - first) / abs(first) * 100 : 0 }

    public init?(points: [ChartPoint]) {
        guard let f = points.first, let l = points.last else { return nil }
        first = f.value
        last = l.value
    }

    public init?(selection: RangeSelection) {
        guard let l = selection.points.last, let base = selection.baselineValue else { return nil }
        first = base
        last = l.value
    }
}

extension Instrument {
    /// The labels for `selection`, with the price of `focus` (a scrubbed point) when given.
    public func labels(for selection: RangeSelection, palette: ChartPalette, focus: ChartPoint? = nil) -> TickerLabels {
        guard let summary = RangeSummary(selection: selection) else {
            return TickerLabels(instrument: name, price: PriceFormat.placeholder, change: "",
                                note: "no data for \(selection.range)", selectedRange: selection.range,
                                changeColor: palette.secondaryText)
        }
        let shown = focus?.value ?? summary.last
        let delta = shown - summary.first
        let percent = summary.first != 0 ? delta / abs(summary.first) * 100 : 0
        // One number of decimals for the whole range (a sub-unit price gets more), so digits do
        // not come and go while scrubbing.
        let format = priceFormat.adapted(toMagnitude: max(abs(summary.first), abs(summary.last)))
        let changeText = format.change(delta)
        // The trend without colour; none when the change rounds to zero (it has no sign then).
        let arrow = changeText.hasPrefix(format.plusSign) ? TrendArrow.up + " "
            : changeText.hasPrefix(format.minusSign) ? TrendArrow.down + " " : ""
        let change = arrow + changeText + "  (" + format.percent(percent) + ")"
        var note = ""
        if let focus {
            note = describeTime(focus.time, intraday: selection.points.count > 1 && isIntradaySelection(selection))
        } else if selection.usesDailyFallback {
            note = "daily prices (no intraday data)"
        }
        return TickerLabels(instrument: name, price: format.price(shown), change: change, note: note,
                            selectedRange: selection.range, changeColor: delta >= 0 ? palette.up : palette.down)
    }

    private func isIntradaySelection(_ selection: RangeSelection) -> Bool {
        (selection.range == .oneDay || selection.range == .fiveDays) && !selection.usesDailyFallback
    }

    /// `27 Nov 2026` for daily points, `Fri 27 Nov 15:42 EST` for intraday ones, in the exchange's time.
    func describeTime(_ time: Int64, intraday: Bool) -> String {
        let months = CivilDate.monthAbbreviations
        if intraday {
            let t = market.timeZone.localDateTime(atUnixTime: time)
            return "\(t.date.weekday.abbreviation) \(t.date.day) \(months[t.date.month - 1]) \(t.hourMinute) "
                + market.timeZone.abbreviation(atUnixTime: time)
        }
        let d = CivilDate(unixTime: time)
        return "\(d.day) \(months[d.month - 1]) \(d.year)"
    }
}
