import Feed
import Text

#if canImport(Glibc)
import Glibc
#endif

/// Problems a config can only show at run time: fonts and data files it relies on.
enum DataCheck {
    static func problems(in config: Config) -> [String] {
        var out: [String] = []
        do { _ = try FontSet.load() } catch { out.append("fonts: \(error)") }
        for inst in config.instruments {
            if inst.dailyFile == nil && inst.intradayFile == nil {
                out.append("[instrument \(inst.id)]: needs a daily or intraday file")
            }
            for file in [inst.dailyFile, inst.intradayFile].compactMap({ $0 }) {
                let path = LiveData.resolve(file, in: config.dataDirectory)
                do {
                    let (_, report) = try YahooCSV.load(path: path)
                    if let message = report.message { out.append("warning: \(message)") }
                } catch {
                    out.append("[instrument \(inst.id)]: \(error)")
                }
            }
            do { _ = try ExchangeTimeZone(identifier: inst.timeZone) } catch {
                out.append("[instrument \(inst.id)]: time-zone: \(error)")
            }
        }
        return out
    }
}
