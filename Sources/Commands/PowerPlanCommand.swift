// `tickerboard power-plan`: when the screen will be on, dimmed or off between two dates and why, from
// the config's `[power]` section and its instruments' exchanges, so an owner can check the plan
// before hanging the screen. The plan is the daemon's own ScreenPower, printed (KioskCore.PowerPlan).
import Feed
import Kiosk
import KioskCore

enum PowerPlanCommand {
    static let help = """
        usage: tickerboard power-plan [--config FILE] --from YYYY-MM-DD --to YYYY-MM-DD [--time-zone ZONE] [--tsv]

        Prints the screen's plan from the start of --from to the end of --to (local days), as the
        daemon follows it: the [power] schedule and, with follow-markets = on, the watched exchanges'
        sessions from `lead` before the open to `trail` after the close. Each line is one interval of
        one state (on, dim N%, off) and its reason ("XNYS closed: Christmas Day"). Touches and
        blank-after-idle are not planned. Times are in the system's zone (the daemon's), or ZONE.
        --tsv: one interval a line, tab-separated: start and end in ISO 8601 with the UTC offset,
        the state, the reason.
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "power-plan", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        let configPath = try args.option("--config")
        guard let from = try args.value("--from", expected: "a date like 2025-12-22", CalendarCommand.parseDate) else {
            throw UsageError("power-plan: --from YYYY-MM-DD is required")
        }
        guard let to = try args.value("--to", expected: "a date like 2026-01-05", CalendarCommand.parseDate) else {
            throw UsageError("power-plan: --to YYYY-MM-DD is required")
        }
        let zoneName = try args.option("--time-zone")
        let tsv = args.flag("--tsv")
        try args.finish()
        guard from <= to else { throw UsageError("power-plan: --from is after --to") }
        guard to.daysSinceEpoch - from.daysSinceEpoch <= 3 * 366 else { throw UsageError("power-plan: at most three years at a time") }

        let (config, path) = try Config.loadForCommand("power-plan", path: configPath)
        let setup = Daemon.setup(for: config, file: path ?? "")
        for problem in setup.problems { Log.write(.warning, "power-plan: config: \(problem)") }
        var local = setup.localZone
        if let zoneName {
            do { local = try ExchangeTimeZone(identifier: zoneName) } catch {
                throw UsageError("power-plan: --time-zone \(zoneName): \(error)")
            }
        }
        let power = ScreenPower(config: config, timeZone: local, zones: setup.zones)
        let start = local.startOfDay(from), end = local.startOfDay(to.adding(days: 1))
        let intervals = PowerPlan.intervals(power, from: start, to: end)
        if !tsv {
            var head = "power plan \(from) to \(to), \(local.identifier)"
            if let m = power.markets {
                head += "; follows \(m.exchanges.map(\.calendar.mic).joined(separator: " ")), lead \(minutes(m.leadSeconds)), trail \(minutes(m.trailSeconds))"
            }
            printLine(head)
        }
        var lines: [String] = []
        for i in intervals {
            lines.append(tsv ? tsvLine(i, zone: local) : textLine(i, zone: local))
        }
        if !lines.isEmpty { printLine(lines.joined(separator: "\n")) }
        return 0
    }

    static func minutes(_ seconds: Int64) -> String {
        seconds % 3600 == 0 && seconds > 0 ? "\(seconds / 3600)h" : "\(seconds / 60)m"
    }

    /// `2025-12-24T13:30:00-05:00`
    static func iso(_ t: Int64, _ zone: ExchangeTimeZone) -> String {
        let c = zone.localDateTime(atUnixTime: t)
        let s = c.description
        return String(s.prefix(10)) + "T" + String(s.dropFirst(11)) + formatUTCOffset(zone.utcOffset(atUnixTime: t))
    }

    static func tsvLine(_ i: PowerPlan.Interval, zone: ExchangeTimeZone) -> String {
        [iso(i.start, zone), iso(i.end, zone), i.state, i.reason].joined(separator: "\t")
    }

    /// `Wed 2025-12-24 13:30 EST - Fri 2025-12-26 09:00 EST  off     XNYS closed: Christmas Day`
    static func textLine(_ i: PowerPlan.Interval, zone: ExchangeTimeZone) -> String {
        func local(_ t: Int64) -> String {
            let c = zone.localDateTime(atUnixTime: t)
            return "\(c.date.weekday.abbreviation) \(c.date) \(c.hourMinute) \(zone.abbreviation(atUnixTime: t))"
        }
        let state = i.state + String(repeating: " ", count: max(1, 9 - i.state.count))
        return "\(local(i.start)) - \(local(i.end))  \(state)\(i.reason)"
    }
}
