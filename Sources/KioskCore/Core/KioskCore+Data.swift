// KioskCore: The instruments and their data: series, fetch states, placeholders, problems, the portfolio.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Data

    /// Whether `config` puts the portfolio on screen: holdings, `show` not off, and no instrument
    /// that already has the portfolio's id.
    static func showsPortfolio(_ config: Config) -> Bool {
        config.portfolio.show != .off && config.instruments.contains { !$0.holding.isEmpty }
            && !config.instruments.contains { $0.id == portfolioID }
    }

    /// The held instruments' daily series by id.
    var portfolioDaily: [String: PriceSeries] {
        var daily: [String: PriceSeries] = [:]
        for entry in entries where !entry.spec.holding.isEmpty { daily[entry.spec.id] = entry.daily }
        return daily
    }

    /// The portfolio's value series again, from what is known of the holdings and the rates.
    func recomputePortfolio(logged: Bool = true) {
        guard let p = entries.lastIndex(where: { $0.isPortfolio }) else { return }
        let daily = portfolioDaily
        // Only what changed since the last line (a held file's new day), unless the holdings did.
        guard let work = valueLine.work(inputs: config.portfolioInputs, daily: daily, rates: rates) else { return }
        var kept: (line: PriceSeries?, from: Int64)?
        if case .from(let from) = work { kept = (entries[p].daily, from) }
        let portfolio = Portfolio(config: config, daily: daily, rates: rates)
        guard let series = portfolio.valueSeries(name: Self.portfolioID, keeping: kept), series != entries[p].daily else { return }
        if logged {
            seriesArrived(id: Self.portfolioID, slot: .daily, series: series)
        } else {
            entries[p].daily = series
        }
    }

    func seriesArrived(id: String, slot: Slot, series: PriceSeries) {
        guard let i = entries.firstIndex(where: { $0.spec.id == id }) else {
            // An [fx] pair's rates (the shell reads them as `fx-PAIR` when the portfolio shows).
            if slot == .daily, id.hasPrefix("fx-"), let pair = config.fxPairs.first(where: { "fx-" + $0.id == id }) {
                rates[pair.id] = series
                log(.info, "data: \(id): \(series.count) daily rates")
                valueLine.inputChanged(at: now.mono)
            }
            return
        }
        let hadData = entries[i].hasData
        if slot == .daily {
            entries[i].daily = series
        } else {
            // Offset-less times are the instrument's wall clock, for the staleness check and the
            // alerts as much as for the chart (MarketData anchors them too, for one-off renders).
            entries[i].intraday = entries[i].zone.map { series.anchored(in: $0) } ?? series
        }
        log(.info, "data: \(id): \(series.count) \(slot == .daily ? "daily" : "intraday") bars")
        // Worked out once the series that came together are all in (a start reads every file in
        // one go: a hundred holdings were a hundred recomputations, READY after 74 s).
        if slot == .daily, !entries[i].spec.holding.isEmpty { valueLine.inputChanged(at: now.mono) }
        if config.alerts.contains(where: { $0.instrument == id }) { alertDue = now.mono }
        onEachScreen { seriesShown(i, hadData: hadData) }
    }

    /// Entry `i` has a new series: its tile, and the chart when this output shows it.
    func seriesShown(_ i: Int, hadData: Bool) {
        updateTile(i)
        guard i == instrumentIndex % max(1, entries.count), let model else { return }
        if !hadData || model.placeholder != nil {
            // The placeholder turns into the chart at once; it draws itself in.
            rebuildModel()
            self.model?.show(.drawIn, at: frameTime())
        } else if drawableRanges() != shownRanges {
            // Ranges come or go (intraday bars for 1D): the selector changes, the range stays if it can.
            rebuildModel()
        } else if let market = market(of: entries[i]) {
            model.replaceMarket(market, at: frameTime())
            refreshStatusNote()
        }
        needs.insert(.picture)
    }

    /// The fetcher's word on instrument `id` (its provider, previous close, currency, problem).
    func fetchStatusArrived(id: String, _ status: FetchStatus?) {
        guard let i = entries.firstIndex(where: { $0.spec.id == id }), entries[i].fetch != status else { return }
        let before = currencyCode(of: entries[i])
        let closeChanged = entries[i].fetch?.previousClose != status?.previousClose
            || entries[i].fetch?.lastPriceTime != status?.lastPriceTime
        entries[i].fetch = status
        let currencyChanged = currencyCode(of: entries[i]) != before
        onEachScreen {
            updateTile(i)
            guard i == instrumentIndex % max(1, entries.count) else { return }
            // A currency learned from the fetcher changes how every price reads.
            if currencyChanged { rebuildModel() } else {
                // 1D's baseline may be the provider's previous close.
                if closeChanged, let model, model.placeholder == nil, let market = market(of: entries[i]) {
                    model.replaceMarket(market, at: frameTime())
                }
                refreshStatusNote()
            }
            refreshPlaceholder()   // the fetcher's problem is the placeholder's reason
        }
    }

    func market(of entry: Entry) -> MarketData? {
        guard let zone = entry.zone, entry.hasData else { return nil }
        let field: PriceField = entry.spec.adjusted ? .adjustedClose : .close
        var market = MarketData(daily: entry.daily, intraday: entry.intraday, timeZone: zone, priceField: field,
                                calendar: entry.spec.calendar)
        // The provider's previous close is the one before the session of its newest price.
        if let close = entry.fetch?.previousClose, let t = entry.fetch?.lastPriceTime {
            market.reportedPreviousClose = (close, zone.localDate(atUnixTime: t))
        }
        // The portfolio's day change is the holdings' day gain (each at one rate, stale ones none),
        // the figure `render --values` prints as day_gain, not the value line's step between two
        // dates valued at two days' rates.
        if entry.isPortfolio, let last = entry.daily?.last,
           let f = Portfolio(config: config, daily: portfolioDaily, rates: rates).figures(at: Int64(now.wall.clampedToInt64)) {
            market.reportedPreviousClose = ((f.value - f.dayGain).doubleValue, CivilDate(unixTime: last.time))
        }
        return market
    }

    func instrument(of entry: Entry) -> Instrument {
        let name = entry.spec.name ?? entry.spec.id
        let market = self.market(of: entry)
            ?? MarketData(daily: nil, intraday: nil, timeZone: entry.zone ?? SampleMarket.timeZone, calendar: entry.spec.calendar)
        var instrument = Instrument(name: name, market: market, priceFormat: priceFormat(currencyCode: currencyCode(of: entry)),
                                    phrases: phrases)
        // Percent: the header says changes only, no money (the value line's scale is not labelled).
        instrument.relativeOnly = entry.isPortfolio && config.portfolio.show == .percent
        return instrument
    }

    /// The screen's words in `[chart] locale`'s language, when the fonts can draw them.
    var phrases: Phrases {
        let locale = config.locale.identifier
        if let phrasesCache, phrasesCache.locale == locale { return phrasesCache.phrases }
        let found = Phrases.drawable(locale: locale, fonts: fonts)
        phrasesCache = (locale, found)
        if found != Phrases(locale: locale) { log(.warning, "[chart] locale " + Self.missingScriptWarning(locale)) }
        return found
    }

    /// What the screen says instead of a chart, and why: `waiting for data: DAX.csv · yahoo: ^GDAXI
    /// not found` while an instrument has no good file (the fetcher's problem when it has one),
    /// `tickerboard.conf line 18: unknown time zone Europe/Frankfurt`. nil when the chart can show.
    func placeholderText(for entry: Entry, phrases chosen: Phrases? = nil) -> String? {
        if entry.hasData && entry.zone != nil { return nil }
        let words = chosen ?? phrases
        if entry.zone == nil {
            let file = entry.spec.location(of: "time-zone", mainFile: configFile).file.split(separator: "/").last.map(String.init) ?? "config"
            let at = entry.spec.lines["time-zone"].map {
                Phrases.fill(words.configLine, ["file": file.isEmpty ? "config" : file, "n": String($0)])
            } ?? ""
            return at + Phrases.fill(words.unknownTimeZone, ["zone": entry.spec.timeZone])
        }
        var files = [entry.spec.dailyFile, entry.spec.intradayFile].compactMap { $0 }
        if entry.isPortfolio {
            // Waits for a day on which every holding has a price and a rate.
            files = config.instruments.filter { !$0.holding.isEmpty }.compactMap(\.dailyFile) + config.fxPairs.compactMap(\.dailyFile)
        }
        let names = files.map { DataSources.split(DataSources.resolve($0, in: config.dataDirectory)).name }
        guard !names.isEmpty else { return words.noDataFile }
        // The fetcher's reason stays as it wrote it: it names a provider's answer.
        return Phrases.fill(words.waitingForData, ["files": names.joined(separator: ", ")])
            + (entry.fetch?.reason.map { " · " + $0 } ?? "")
    }

    func refreshPlaceholder() {
        guard let model, !showingSample, !entries.isEmpty else { return }
        let text = placeholderText(for: entries[instrumentIndex % entries.count])
        if model.placeholder != text {
            model.placeholder = text
            needs.insert(.picture)
        }
    }

    /// The problems of the data files, located at the config line that names each file.
    public var problems: [KioskProblem] {
        var out = configProblems
        for (path, message) in dataProblems.sorted(by: { $0.key < $1.key }) {
            out.append(Self.locate(path: path, message: message, in: config, file: configFile))
        }
        return out
    }

    /// `tickerboard.conf:12: daily: …` for a problem with a data file: the same text `check-config`
    /// prints for it.
    package static func locate(path: String, message: String, in config: Config, file: String) -> KioskProblem {
        for spec in config.instruments {
            for (key, name) in [("daily", spec.dailyFile), ("intraday", spec.intradayFile)] {
                guard let name, DataSources.resolve(name, in: config.dataDirectory) == path else { continue }
                let at = spec.location(of: key, mainFile: file)
                return KioskProblem(file: at.file.isEmpty ? path : at.file, line: at.line, key: key, message: message)
            }
        }
        // The rates the portfolio screen reads.
        for pair in config.fxPairs {
            guard let name = pair.dailyFile, DataSources.resolve(name, in: config.dataDirectory) == path else { continue }
            let at = pair.location(of: "daily", mainFile: file)
            return KioskProblem(file: at.file.isEmpty ? path : at.file, line: at.line, key: "daily", message: message)
        }
        return KioskProblem(file: path, line: 0, key: "", message: message)
    }

    /// Said by the daemon and check-config alike when the fonts cannot draw a locale's words.
    package static func missingScriptWarning(_ locale: String) -> String {
        "\(locale): no installed font has its characters (install fonts-noto-cjk or fonts-wqy-microhei); "
            + "the screen's words stay English"
    }

    /// The configured currency when the config names one, else what the fetcher reports
    /// (a London listing quoted in GBp), else USD.
    func currencyCode(of entry: Entry) -> String {
        if entry.spec.lines["currency"] == nil, let reported = entry.fetch?.currency, Currency(code: reported) != nil {
            return reported
        }
        return entry.spec.currency
    }

    func priceFormat(currencyCode: String) -> PriceFormat {
        config.priceFormat(currencyCode: currencyCode)
    }
}
