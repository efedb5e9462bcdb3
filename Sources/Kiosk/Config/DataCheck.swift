import Chart
import Feed
import KioskCore
import StatusModel
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
        var newest: [String: PriceBar] = [:]
        for inst in config.instruments {
            if inst.dailyFile == nil && inst.intradayFile == nil {
                out.append(Finding(problem: KioskProblem(file: file, line: inst.lines.values.min() ?? 0, key: "daily",
                                                         message: "[instrument \(inst.id)] needs a daily or intraday file"),
                                   isError: true))
            }
            for source in sources where source.instrumentID == inst.id {
                do {
                    let (series, report) = try YahooCSV.load(path: source.path, priceField: source.priceField)
                    if let last = series.last, last.time >= newest[inst.id]?.time ?? .min { newest[inst.id] = last }
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
        out += implausibleLevels(config, newest: newest, file: file)
        return out
    }

    /// An alert level 50 times the last price or a fiftieth of it can never fire: on a German wall
    /// `below = 20.400` is read as 20.4 (a point is the decimal separator in the config).
    static func implausibleLevels(_ config: Config, newest: [String: PriceBar], file: String) -> [Finding] {
        var out: [Finding] = []
        for alert in config.alerts {
            guard let id = alert.instrument, let inst = config.instruments.first(where: { $0.id == id }), let bar = newest[id] else { continue }
            let (key, level): (String, Double)
            switch alert.condition {
            case .above(let v)?: (key, level) = ("above", v.doubleValue)
            case .below(let v)?: (key, level) = ("below", v.doubleValue)
            default: continue
            }
            let price = bar.price(inst.adjusted ? .adjustedClose : .close)
            guard price > 0, level > 0, level / price >= 50 || price / level >= 50 else { continue }
            let at = alert.location(of: key, mainFile: file)
            let message = "[alert \(alert.name)] \(key) = \(level) is \(level > price ? "\(Int((level / price).rounded()))×" : "1/\(Int((price / level).rounded())) of") "
                + "\(id)'s last price \(price): a level that far never fires (a decimal comma or a thousands separator? levels are written 20400 or 20.4)"
            out.append(Finding(problem: KioskProblem(file: at.file, line: at.line, key: key, message: message), isError: false))
        }
        return out
    }
}
