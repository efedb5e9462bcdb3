import Feed
import Text

/// One instrument the kiosk shows: its name, its data and how its prices read.
public struct Instrument: Sendable {
    public var name: String
    public var market: MarketData
    public var priceFormat: PriceFormat
    /// The words around the numbers (`[chart] locale`'s language).
    public var phrases: Phrases
    /// Only relative changes are shown (a portfolio with `[portfolio] show = percent`): the header
    /// says the change in percent where a price would be, and no amount of money anywhere.
    public var relativeOnly = false

    public init(name: String, market: MarketData, priceFormat: PriceFormat = .usDollar, phrases: Phrases = .english) {
        self.name = name
        self.market = market
        self.priceFormat = priceFormat
        self.phrases = phrases
    }

    /// The built-in sample market: shown when nothing is configured, so a fresh install draws
    /// something real at once.
    public static func sample(phrases: Phrases = .english) -> Instrument {
        Instrument(name: "\(SampleMarket.symbol) · \(SampleMarket.name)",
                   market: MarketData(daily: SampleMarket.daily(), intraday: SampleMarket.intraday(),
                                      timeZone: SampleMarket.timeZone, calendar: .xnys),
                   phrases: phrases)
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
                                note: Phrases.fill(phrases.noDataFor, ["range": selection.range.rawValue]),
                                selectedRange: selection.range,
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
        var change = arrow + changeText + "  (" + format.percent(percent) + ")"
        var price = format.price(shown)
        if relativeOnly {
            let percentText = format.percent(percent)
            let arrowOnly = percentText.hasPrefix(format.plusSign) ? TrendArrow.up + " "
                : percentText.hasPrefix(format.minusSign) ? TrendArrow.down + " " : ""
            price = percentText
            change = arrowOnly + percentText
        }
        var note = ""
        var forms: [String] = []
        if let focus {
            forms = timeForms(focus.time, intraday: selection.points.count > 1 && isIntradaySelection(selection))
            note = forms[0]
        } else if selection.usesDailyFallback {
            note = phrases.dailyOnly
        }
        var labels = TickerLabels(instrument: name, price: price, change: change, note: note,
                                  selectedRange: selection.range, changeColor: delta >= 0 ? palette.up : palette.down)
        labels.noteForms = forms
        return labels
    }

    private func isIntradaySelection(_ selection: RangeSelection) -> Bool {
        (selection.range == .oneDay || selection.range == .fiveDays) && !selection.usesDailyFallback
    }

    /// `describeTime` and shorter forms of it for a narrow screen: `Fri 27 Nov 15:42 EST`, `27 Nov
    /// 15:42 EST`, `27 Nov 15:42`, `15:42` for an intraday point; `27 Nov 2026`, `27 Nov` for a day.
    func timeForms(_ time: Int64, intraday: Bool) -> [String] {
        guard intraday else {
            let date = CivilDate(unixTime: time)
            return [phrases.date(date, year: true), phrases.date(date)]
        }
        let t = market.timeZone.localDateTime(atUnixTime: time)
        let zone = phrases.zone(market.timeZone.abbreviation(atUnixTime: time))
        return [describeTime(time, intraday: true), phrases.date(t.date) + " \(t.hourMinute) " + zone,
                phrases.date(t.date) + " \(t.hourMinute)", t.hourMinute]
    }

    /// `27 Nov 2026` for daily points, `Fri 27 Nov 15:42 EST` for intraday ones, in the exchange's time.
    func describeTime(_ time: Int64, intraday: Bool) -> String {
        if intraday {
            let t = market.timeZone.localDateTime(atUnixTime: time)
            return phrases.dateWithWeekday(t.date) + " \(t.hourMinute) " + phrases.zone(market.timeZone.abbreviation(atUnixTime: time))
        }
        return phrases.date(CivilDate(unixTime: time), year: true)
    }
}

extension Phrases {
    /// The phrases of `locale` when `fonts` can draw every character of them, else English: a
    /// Japanese wall on a machine with only DejaVu Sans (no CJK glyphs) would show empty boxes.
    public static func drawable(locale: String, fonts: FontSet) -> Phrases {
        let wanted = Phrases(locale: locale)
        let drawable = wanted.allText.allSatisfy { text in
            text.unicodeScalars.allSatisfy { $0.value < 0x80 || (fonts.regular.canDraw($0) && fonts.bold.canDraw($0)) }
        }
        return drawable ? wanted : .english
    }
}
