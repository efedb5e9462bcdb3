import Chart
import Feed
import KioskCore
import Text

/// What a configuration names on disk: fonts, time zones and data files. `check-config` and the
/// daemon (at start and on every reload) go through here, so both word a problem the same way:
/// `FILE:LINE: key: message`, at the line of the key that names the file or zone.
package enum DataCheck {
    package struct Finding {
        package var problem: KioskProblem
        package var isError: Bool
        package var text: String { (isError ? "" : "warning: ") + problem.description }
    }

    /// Resolves every instrument's exchange time zone; an unknown zone is an error at its line.
    package static func zones(for config: Config, file: String) -> (zones: [String: ExchangeTimeZone], problems: [KioskProblem]) {
        var zones: [String: ExchangeTimeZone] = [:]
        var problems: [KioskProblem] = []
        for inst in config.instruments {
            do { zones[inst.id] = try ExchangeTimeZone(identifier: inst.timeZone) } catch {
                let at = inst.location(of: "time-zone", mainFile: file)
                problems.append(KioskProblem(file: at.file, line: at.line, key: "time-zone", message: "\(error)"))
            }
        }
        return (zones, problems)
    }

    package static func findings(in config: Config, file: String) -> [Finding] {
        var out: [Finding] = []
        do {
            let fonts = try FontSet.load()
            let locale = config.locale.identifier
            if Phrases.drawable(locale: locale, fonts: fonts) != Phrases(locale: locale) {
                out.append(Finding(problem: KioskProblem(file: file, line: 0, key: "locale", message: KioskCore.missingScriptWarning(locale)),
                                   isError: false))
            }
        } catch {
            out.append(Finding(problem: KioskProblem(file: "fonts", line: 0, key: "", message: "\(error)"), isError: true))
        }
        let sources = DataSources.sources(for: config)
        for inst in config.instruments {
            if inst.dailyFile == nil && inst.intradayFile == nil {
                out.append(Finding(problem: KioskProblem(file: file, line: inst.lines.values.min() ?? 0, key: "daily",
                                                         message: "[instrument \(inst.id)] needs a daily or intraday file"),
                                   isError: true))
            }
            for source in sources where source.instrumentID == inst.id {
                do {
                    let (series, report) = try YahooCSV.load(path: source.path, priceField: source.priceField)
                    if let message = report.message {
                        out.append(Finding(problem: KioskCore.locate(path: source.path, message: message, in: config, file: file),
                                           isError: false))
                    }
                    // Times of day without an offset: the instrument's wall clock is assumed, which is
                    // right for an export in exchange time and two hours off for one in UTC.
                    if series.floatingTimes {
                        let message = "\(source.path): its times have no UTC offset (like \"2024-08-05 17:30:00\"); "
                            + "read as \(inst.timeZone) time, the instrument's time zone (write the offset, +02:00 or Z, if they are not)"
                        out.append(Finding(problem: KioskCore.locate(path: source.path, message: message, in: config, file: file),
                                           isError: false))
                    } else if series.interval.isIntraday, report.offsetlessTimeRows > 0 {
                        let message = "\(source.path): \(report.offsetlessTimeRows) of \(report.offsetlessTimeRows + report.offsetTimeRows) "
                            + "times have no UTC offset while the others have one; those are read as UTC (write the offset on every row)"
                        out.append(Finding(problem: KioskCore.locate(path: source.path, message: message, in: config, file: file),
                                           isError: false))
                    }
                    // Daily and intraday files swapped: each would be drawn as the other's ranges.
                    if !series.isEmpty, series.interval.isIntraday != (source.slot == .intraday) {
                        let message = source.slot == .daily
                            ? "\(source.path): holds intraday bars (a Datetime column); it belongs under intraday ="
                            : "\(source.path): holds daily bars (a Date column); it belongs under daily ="
                        out.append(Finding(problem: KioskCore.locate(path: source.path, message: message, in: config, file: file),
                                           isError: true))
                    }
                } catch {
                    out.append(Finding(problem: KioskCore.locate(path: source.path, message: "\(error)", in: config, file: file),
                                       isError: true))
                }
            }
        }
        out += zones(for: config, file: file).problems.map { Finding(problem: $0, isError: true) }
        return out
    }
}
