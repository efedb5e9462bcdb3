// Reads what the portfolio needs from disk (issue 36): the daily file of every held instrument and
// of every [fx] pair, resolved against the data directory as the instruments' files are. The
// figures themselves are the core's (KioskCore/Portfolio); this is only the I/O in front of them.

import Feed
import KioskCore

public enum PortfolioData {
    /// The portfolio of `config` with the series that could be read; `problems` names each file
    /// that could not be (its holding is then reported missing, not valued at zero).
    public static func load(config: Config) -> (portfolio: Portfolio, problems: [String]) {
        var daily: [String: PriceSeries] = [:]
        var rates: [String: PriceSeries] = [:]
        var problems: [String] = []
        // Held instruments, and those an alert watches.
        let alerted = Set(config.alerts.compactMap(\.instrument))
        for inst in config.instruments where !inst.holding.isEmpty || alerted.contains(inst.id) {
            guard let file = inst.dailyFile else {
                problems.append("[instrument \(inst.id)] has a holding but no daily = FILE to value it"); continue
            }
            let path = DataSources.resolve(file, in: config.dataDirectory)
            do { daily[inst.id] = try YahooCSV.load(path: path, priceField: inst.adjusted ? .adjustedClose : .close).0 } catch {
                problems.append("\(path): \(error)")
            }
        }
        for pair in config.fxPairs {
            guard let file = pair.dailyFile else { continue }
            let path = DataSources.resolve(file, in: config.dataDirectory)
            do { rates[pair.id] = try YahooCSV.load(path: path, priceField: .close).0 } catch {
                problems.append("\(path): \(error)")
            }
        }
        return (Portfolio(config: config, daily: daily, rates: rates), problems)
    }
}
