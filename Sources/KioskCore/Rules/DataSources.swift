import Chart
import Feed

/// The data files a config names and what a fresh parse of one means: the rules of the live data,
/// apart from the watching (`LiveData` in the shell), so the core can name files and judge them.
public enum DataSources {
    /// Which of an instrument's two files changed.
    public typealias Slot = Feed.Slot

    /// One data file the daemon shows: whose it is, where it lives, which price column to read.
    public struct Source: Sendable, Equatable, Hashable {
        public var instrumentID: String
        public var slot: Slot
        public var path: String
        public var priceField: PriceField

        public init(instrumentID: String, slot: Slot, path: String, priceField: PriceField = .close) {
            self.instrumentID = instrumentID
            self.slot = slot
            self.path = path
            self.priceField = priceField
        }
    }

    /// A new series for one instrument's daily or intraday slot.
    public struct Update: Sendable, Equatable {
        public var instrumentID: String
        public var slot: Slot
        public var path: String
        public var series: PriceSeries

        public init(instrumentID: String, slot: Slot, path: String, series: PriceSeries) {
            self.instrumentID = instrumentID
            self.slot = slot
            self.path = path
            self.series = series
        }
    }

    /// What a fresh parse of a file means for the chart (pure; see ``judge(_:lastGood:path:)``).
    public enum Verdict: Equatable, Sendable {
        /// Show this series.
        case accept(PriceSeries)
        /// The file holds what is already shown.
        case unchanged
        /// Keep showing the last good series; the message says why.
        case keep(String)
        /// The file parsed but is much shorter than the last good one: possibly half-written.
        case suspiciouslyShort(PriceSeries, String)
    }

    /// The sources of every instrument in `config`, relative paths resolved against the data directory.
    public static func sources(for config: Config) -> [Source] {
        var out: [Source] = []
        for inst in config.instruments {
            let field: PriceField = inst.adjusted ? .adjustedClose : .close
            for (file, slot) in [(inst.dailyFile, Slot.daily), (inst.intradayFile, Slot.intraday)] {
                guard let file else { continue }
                out.append(Source(instrumentID: inst.id, slot: slot, path: resolve(file, in: config.dataDirectory),
                                  priceField: field))
            }
        }
        // The rates the portfolio screen converts with, as `fx-PAIR` (the id the fetcher gives them).
        if KioskCore.showsPortfolio(config) {
            for pair in config.fxPairs {
                guard let file = pair.dailyFile else { continue }
                out.append(Source(instrumentID: "fx-" + pair.id, slot: .daily, path: resolve(file, in: config.dataDirectory)))
            }
        }
        return out
    }

    public static func resolve(_ file: String, in directory: String) -> String {
        if file.hasPrefix("/") { return file }
        return directory.hasSuffix("/") ? directory + file : directory + "/" + file
    }

    /// Decides what a parse result means. A file is judged half-written when it lost more than half
    /// of the rows of the last good version.
    public static func judge(_ result: Result<(PriceSeries, ParseReport), FeedError>, lastGood: PriceSeries?,
                             path: String) -> Verdict {
        switch result {
        case .failure(let error):
            return .keep(lastGood == nil ? "\(error)" : "\(error); keeping the last good data")
        case .success(let (series, _)):
            if let lastGood {
                if series == lastGood { return .unchanged }
                if series.count * 2 < lastGood.count {
                    return .suspiciouslyShort(series, "\(path): \(series.count) rows, down from \(lastGood.count); "
                                              + "looks half-written, keeping the last good data")
                }
            }
            return .accept(series)
        }
    }

    public static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }
}

// MARK: - Staleness

/// Whether the newest data is old enough to say so on screen, and the "updated …" text.
public struct Staleness: Equatable, Sendable {
    public var isStale: Bool
    /// `updated 27 Nov 15:42 EST` (intraday) or `updated 27 Nov 2026` (daily).
    public var text: String

    public init(isStale: Bool, text: String) {
        self.isStale = isStale
        self.text = text
    }

    /// - Parameters:
    ///   - newestBarTime: `PriceBar.time` of the last bar (daily bars: UTC midnight of the date).
    ///   - now: Unix time, seconds.
    ///   - staleAfterSeconds: `Config.staleAfterSeconds`.
    ///   - timeZone: the exchange's zone, in which times are shown.
    ///
    /// A daily bar describes a whole trading day, so its age counts from the end of that day in the
    /// exchange's zone: with the default of three days, Friday's close is not stale over a weekend.
    public init(newestBarTime: Int64, interval: BarInterval, now: Int64, staleAfterSeconds: Int,
                timeZone: ExchangeTimeZone, phrases: Phrases = .english) {
        let reference: Int64
        let when: String
        if interval.isIntraday {
            reference = newestBarTime
            let t = timeZone.localDateTime(atUnixTime: newestBarTime)
            when = phrases.date(t.date) + " \(t.hourMinute) " + phrases.zone(timeZone.abbreviation(atUnixTime: newestBarTime))
        } else {
            let date = CivilDate(unixTime: newestBarTime)
            reference = timeZone.startOfDay(date.adding(days: 1))
            when = phrases.date(date, year: true)
        }
        text = Phrases.fill(phrases.updated, ["t": when])
        isStale = staleAfterSeconds > 0 && now - reference > Int64(staleAfterSeconds)
    }

    /// For a series (nil when it is empty).
    public init?(series: PriceSeries, now: Int64, staleAfterSeconds: Int, timeZone: ExchangeTimeZone,
                 phrases: Phrases = .english) {
        guard let last = series.last else { return nil }
        self.init(newestBarTime: last.time, interval: series.interval, now: now,
                  staleAfterSeconds: staleAfterSeconds, timeZone: timeZone, phrases: phrases)
    }
}
