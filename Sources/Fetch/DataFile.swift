// The price files on disk: read what is there, merge new bars in, write the Yahoo layout the daemon
// reads, replace atomically. The merge is pure; the write is the only place that changes a data
// file, and it either leaves the old file untouched or puts the complete new one in its place.

import Feed
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

public enum DataFile {
    /// What is on disk now: its exact bytes (to tell "unchanged") and its bars.
    public struct Existing: Sendable, Equatable {
        public var bytes: [UInt8]
        public var bars: [PriceBar]
    }

    /// The current file, nil when there is none. A file that exists but is not a price CSV is an
    /// error: it may be someone's data in a form we do not understand, so it is never overwritten.
    public static func readExisting(path: String) -> Result<Existing?, FetchProblem> {
        do throws(FeedError) {
            let (series, _) = try YahooCSV.load(path: path)
            let bytes = try FeedFileReader.read(path: path)
            return .success(Existing(bytes: bytes, bars: series.bars))
        } catch {
            switch error {
            case .fileNotFound: return .success(nil)
            case .noUsableRows(_, let report) where report.dataRows == 0:
                // A header alone (or an empty file) holds nothing to keep.
                return .success(nil)
            case .notCSV(_, let header) where header.isEmpty: return .success(nil)
            default: return .failure(.badData("the existing file is unusable, not replacing it: \(error)"))
            }
        }
    }

    /// Old and new bars together: every old bar is kept unless the new data has one at the same
    /// time (the new one wins); intraday files keep the last `sessions` trading days (in `zone`).
    ///
    /// What the reader could not take back is left out: bars outside years 1–9999 (the layout has
    /// four-digit years) and, past `YahooCSV.maximumRows`, the oldest rows (history is trimmed, never
    /// the file made unreadable for good).
    public static func merge(existing: [PriceBar], new: [PriceBar], slot: Slot, sessions: Int,
                             zone: ExchangeTimeZone) -> [PriceBar] {
        let writable = (existing + new).filter { $0.time >= firstWritableTime && $0.time < endOfWritableTime }
        var merged = PriceSeries(name: "", interval: .daily, bars: writable).bars
        if merged.count > YahooCSV.maximumRows { merged.removeFirst(merged.count - YahooCSV.maximumRows) }
        guard slot == .intraday, sessions > 0 else { return merged }
        var days: [Int] = []
        for bar in merged.reversed() {
            let day = zone.localDate(atUnixTime: bar.time).daysSinceEpoch
            if days.last != day { days.append(day) }
            if days.count > sessions { break }
        }
        guard days.count > sessions else { return merged }
        let oldestKept = days[sessions - 1]
        return merged.filter { zone.localDate(atUnixTime: $0.time).daysSinceEpoch >= oldestKept }
    }

    /// 0001-01-01 and 10000-01-01 00:00 UTC: a day beyond either side would be written with a year
    /// the reader (and every spreadsheet) refuses. (A day of slack for zones ahead of UTC.)
    static let firstWritableTime: Int64 = -62_135_596_800 + 86_400
    static let endOfWritableTime: Int64 = 253_402_300_800 - 86_400

    /// Why `bytes` must not replace a data file, or nil: the reader the daemon and the fetcher
    /// share must read back every one of `rows` rows, within its size limit. A file written that
    /// its own reader refuses would never be replaced again.
    public static func unreadable(_ bytes: [UInt8], rows: Int) -> String? {
        guard bytes.count <= YahooCSV.maximumFileSize else {
            return "the new file would be \(bytes.count >> 20) MB, over the reader's \(YahooCSV.maximumFileSize >> 20) MB"
        }
        do throws(FeedError) {
            let (series, report) = try YahooCSV.parse(bytes, source: "the new file")
            if let first = report.firstSkipped.first, let summary = report.summary {
                return "the reader would refuse line \(first.line) of the new file: \(summary)"
            }
            if series.bars.count != rows { return "the new file would read back \(series.bars.count) of \(rows) rows" }
            return nil
        } catch {
            return "the reader would refuse the new file: \(error)"
        }
    }

    /// The Yahoo CSV layout: `Date` (daily) or `Datetime` with the exchange's UTC offset (intraday),
    /// then Open, High, Low, Close, Adj Close, Volume. A missing adjusted close repeats the close (as
    /// yfinance writes it), so `price = adjusted` still finds a value on every row.
    public static func render(_ bars: [PriceBar], slot: Slot, zone: ExchangeTimeZone) -> [UInt8] {
        var out = slot == .daily ? "Date" : "Datetime"
        out += ",Open,High,Low,Close,Adj Close,Volume\n"
        out.reserveCapacity(bars.count * 64)
        for bar in bars {
            if slot == .daily {
                out += CivilDate(unixTime: bar.time).description
            } else {
                let offset = zone.utcOffset(atUnixTime: bar.time)
                out += CivilDateTime(unixTime: bar.time, utcOffset: offset).description + formatUTCOffset(offset)
            }
            for v in [bar.open, bar.high, bar.low, bar.close, bar.adjustedClose ?? bar.close] {
                out += "," + number(v)
            }
            out += "," + (bar.volume.map(number) ?? "")
            out += "\n"
        }
        return Array(out.utf8)
    }

    static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        // Yahoo sends single-precision prices widened to double (34.54999923706055); such a value
        // is exactly a Float, and the Float's shortest form (34.55) is the price it stands for.
        let single = Float(v)
        if Double(single) == v, single.isFinite { return "\(single)" }
        return "\(v)"
    }

    /// Writes `bytes` to a temporary file in the same directory, flushes it, and renames it over
    /// `path`: readers see the old file or the new one, never a mix, and a crash leaves the old one.
    public static func replaceAtomically(path: String, bytes: [UInt8], permissions: mode_t = 0o644) throws(Errno) {
        try AtomicFile.write(bytes, to: path, permissions: permissions, durable: true)
    }
}

/// Whole-file reads for files the fetcher owns (data files, status, state).
enum FeedFileReader {
    /// Through LinuxIO's one bounded reader: regular files only, never blocking on a FIFO.
    static func read(path: String, limit: Int = YahooCSV.maximumFileSize) throws(FeedError) -> [UInt8] {
        do { return try RegularFile.read(path, limit: limit) } catch {
            switch error {
            case .notFound: throw .fileNotFound(path: path)
            case .tooLarge(let bytes, let limit): throw .fileTooLarge(path: path, bytes: bytes, limit: limit)
            case .system(let e): throw .unreadable(path: path, reason: e.description)
            case .isDirectory, .notRegularFile: throw .unreadable(path: path, reason: error.description)
            }
        }
    }
}
