import Feed

/// Whether the screen should be lit, from the weekly schedule (`[power] schedule`), the idle
/// timeout (`[power] blank-after-idle`) and the last touch. Pure: the daemon asks at a time and gets
/// the state plus the instant of the next change, arms one timer for it, and sleeps with zero
/// wakeups until then (or until a touch, after which it asks again).
///
/// Times are Unix seconds on the wall clock (`CLOCK_REALTIME`): the schedule is in local time. The
/// schedule is read on the local wall clock of `timeZone`, minute by minute, so "07:00" means 07:00
/// whatever the UTC offset is that day: across daylight-saving changes a day is 23 or 25 hours long
/// and the schedule follows. A boundary inside the spring-forward gap (02:30 on that night) takes
/// effect when the gap ends; one inside the repeated hour of the autumn takes effect the first time.
///
/// The state is a level in percent (100 on, 1-99 dimmed, 0 off). Rules:
/// - The scheduled level is the higher of the weekly schedule's and the markets' (100 in a window).
/// - Inside a scheduled on-period (level above 0) the screen has that level, unless
///   `blankAfterIdleSeconds` > 0 and nobody touched it for that long since the later of the last
///   touch and the start of the period (so the screen lights at the start of every on-period even
///   if nobody touched it overnight; a change up to a higher level starts a new period, a change
///   down does not).
/// - A touch lights the screen at full level for `wakeSeconds`, dimmed or off alike.
public struct ScreenPower: Sendable {
    public var schedule: PowerSchedule
    public var timeZone: ExchangeTimeZone
    /// 0 = never blank for idleness.
    public var blankAfterIdleSeconds: Double
    /// How long a touch lights the screen outside the schedule: the idle timeout when one is set,
    /// else two minutes.
    public var wakeSeconds: Double
    /// `follow-markets`: on within these windows too (the schedule's on-periods and the windows
    /// are united). nil, or no exchange with hours: the schedule alone.
    public var markets: MarketHours?

    /// Why the screen is in its state (for the log and `systemctl status`).
    public enum Reason: Sendable, Equatable {
        case schedule, idle, touched
    }

    public struct Decision: Sendable, Equatable {
        /// Percent: 0 off, 100 full.
        public var level: Int
        public var isOn: Bool { level > 0 }
        public var reason: Reason
        /// The next instant (Unix seconds) the state changes unless someone touches the screen; nil
        /// when it will not change on its own. The daemon arms its timer for `nextChange - now`
        /// (a monotonic timerfd). The wall clock can be stepped (NTP at boot, `timedatectl`), so cap
        /// the sleep at `ScreenPower.maximumSleep` and ask again when it fires: one wakeup an hour.
        public var nextChange: Double?
    }

    /// The longest the daemon should sleep on a decision before asking again (wall-clock steps).
    public static let maximumSleep: Double = 3600

    /// How far the schedule is searched for the next change; beyond a week it repeats.
    static let horizon: Int64 = 8 * 86_400

    public init(schedule: PowerSchedule, timeZone: ExchangeTimeZone, blankAfterIdleSeconds: Double = 0,
                wakeSeconds: Double? = nil, markets: MarketHours? = nil) {
        self.schedule = schedule
        self.timeZone = timeZone
        self.blankAfterIdleSeconds = max(0, blankAfterIdleSeconds)
        self.wakeSeconds = wakeSeconds ?? (blankAfterIdleSeconds > 0 ? blankAfterIdleSeconds : 120)
        self.markets = markets.flatMap { $0.exchanges.isEmpty ? nil : $0 }
    }

    /// From the config, in `timeZone` (the shell reads the system's zone); `zones` are the
    /// instruments' resolved zones, which `follow-markets` reads their sessions in.
    public init(config: Config, timeZone: ExchangeTimeZone, zones: [String: ExchangeTimeZone] = [:]) {
        var schedule = config.schedule
        var markets: MarketHours?
        if config.followMarkets {
            let m = MarketHours(config: config, zones: zones)
            if !m.exchanges.isEmpty {
                markets = m
                // Following the markets with no schedule of its own: off outside their windows.
                if config.powerLines["schedule"] == nil { schedule = .never }
            }
        }
        self.init(schedule: schedule, timeZone: timeZone, blankAfterIdleSeconds: config.blankAfterIdleSeconds,
                  markets: markets)
    }

    /// The state at `now` given the last touch (or the daemon's start time, so the idle timeout runs
    /// from start-up), and when it next changes.
    public func decide(at now: Double, lastActivity: Double) -> Decision {
        // Any instant far outside the tz database's range acts as its edge: no trap on a stepped or
        // absurd clock, and the horizon arithmetic below cannot overflow.
        let t = ScreenPower.seconds(now)
        let changes = scheduleChanges(from: t - ScreenPower.horizon, through: t + ScreenPower.horizon)
        // The starts of on-periods: changes up to a higher level (the morning after a dim night
        // lights an idle-blanked screen again; the dim evening after a bright day does not).
        let starts = changes.filter { scheduledLevel(at: $0) > scheduledLevel(at: $0 - 1) }
        let (level, reason) = state(at: now, lastActivity: lastActivity, starts: starts)
        // Candidates: every instant the state may change without a touch.
        var candidates: [Double] = changes.map(Double.init)
        candidates.append(lastActivity + wakeSeconds)
        if blankAfterIdleSeconds > 0 {
            candidates.append(lastActivity + blankAfterIdleSeconds)
            candidates += starts.map { Double($0) + blankAfterIdleSeconds }
        }
        var next: Double?
        for c in candidates.sorted() where c > now {
            if state(at: c, lastActivity: lastActivity, starts: starts).level != level { next = c; break }
        }
        return Decision(level: level, reason: reason, nextChange: next)
    }

    private func state(at time: Double, lastActivity: Double, starts: [Int64]) -> (level: Int, reason: Reason) {
        let t = ScreenPower.seconds(time)
        let touched = time >= lastActivity && time < lastActivity + wakeSeconds
        let scheduled = scheduledLevel(at: t)
        if scheduled > 0 {
            if blankAfterIdleSeconds > 0 {
                // The start of this on-period: the last off-to-on change at or before t.
                var reference = lastActivity
                if let start = starts.last(where: { $0 <= t }) { reference = max(reference, Double(start)) }
                if time >= reference + blankAfterIdleSeconds { return (0, .idle) }
            }
            return scheduled < 100 && touched ? (100, .touched) : (scheduled, .schedule)
        }
        if touched { return (100, .touched) }
        return (0, .schedule)
    }

    /// Whole seconds of `time`, within ±2^52 (about 140 million years): NaN counts as 0.
    static func seconds(_ time: Double) -> Int64 {
        guard !time.isNaN else { return 0 }
        return Int64(min(max(time, -4.5e15), 4.5e15).rounded(.down))
    }

    /// True when the weekly schedule or a market window says on (at any level) at `unixTime`.
    public func isScheduledOn(at unixTime: Int64) -> Bool { scheduledLevel(at: unixTime) > 0 }

    /// The higher of the weekly schedule's level and the markets' (100 inside a window).
    public func scheduledLevel(at unixTime: Int64) -> Int {
        let weekly = weeklyLevel(at: unixTime)
        if weekly < 100, markets?.isOn(at: unixTime) == true { return 100 }
        return weekly
    }

    /// True when the weekly schedule says on at `unixTime` (local wall clock of `timeZone`).
    public func isWeeklyOn(at unixTime: Int64) -> Bool { weeklyLevel(at: unixTime) > 0 }

    /// The weekly schedule's level at `unixTime` (local wall clock of `timeZone`).
    public func weeklyLevel(at unixTime: Int64) -> Int {
        let local = timeZone.localDateTime(atUnixTime: unixTime)
        return schedule.level(weekday: local.date.weekday.rawValue, minute: local.hour * 60 + local.minute)
    }

    /// The first instant after `unixTime` at which the schedule alone changes state, within 8 days.
    public func nextScheduleChange(after unixTime: Int64) -> Int64? {
        scheduleChanges(from: unixTime, through: unixTime + ScreenPower.horizon).first
    }

    /// Every instant in `(start, end]` at which the schedule's state (weekly ∪ markets) changes, ascending.
    func scheduleChanges(from start: Int64, through end: Int64) -> [Int64] {
        let weekly = weeklyChanges(from: start, through: end)
        guard let markets else { return weekly }
        let windows = markets.windows(from: start, to: end + 1)
        func on(_ t: Int64) -> Int {
            let weekly = weeklyLevel(at: t)
            return weekly < 100 && windows.contains { $0.start <= t && t < $0.end } ? 100 : weekly
        }
        var candidates = weekly
        for w in windows { candidates += [w.start, w.end] }
        var out: [Int64] = []
        var state = on(start)
        for c in Set(candidates).sorted() where c > start && c <= end {
            let s = on(c)
            if s != state { out.append(c); state = s }
        }
        return out
    }

    /// Every instant in `(start, end]` at which the weekly schedule's level changes, ascending.
    ///
    /// Walks from one candidate to the next: the next boundary minute of the local day (a range
    /// start or end, or midnight, where the weekday changes) or the next UTC-offset change,
    /// whichever comes first. Between candidates the local clock runs without jumps and crosses no
    /// boundary, so the state is constant there.
    func weeklyChanges(from start: Int64, through end: Int64) -> [Int64] {
        if schedule.isAlwaysOn || schedule.isNeverOn { return [] }
        var boundaries: [[Int]] = []
        for day in 0..<7 { boundaries.append(schedule.boundaries(weekday: day).filter { $0 > 0 } + [1440]) }
        var out: [Int64] = []
        var t = start
        var state = weeklyLevel(at: t)
        var guardCount = 0
        while t < end && guardCount < 10_000 {
            guardCount += 1
            let offset = timeZone.utcOffset(atUnixTime: t)
            let local = timeZone.localDateTime(atUnixTime: t)
            let minuteSeconds = local.hour * 3600 + local.minute * 60 + local.second
            let day = boundaries[local.date.weekday.rawValue]
            let nextBoundary = day.first { $0 * 60 > minuteSeconds } ?? 1440
            var candidate = t + Int64(nextBoundary * 60 - minuteSeconds)
            if timeZone.utcOffset(atUnixTime: candidate) != offset {
                // The offset changes in (t, candidate]: find the first instant of the new offset.
                var low = t, high = candidate
                while high - low > 1 {
                    let mid = low + (high - low) / 2
                    if timeZone.utcOffset(atUnixTime: mid) == offset { low = mid } else { high = mid }
                }
                candidate = high
            }
            t = candidate
            if t > end { break }
            let s = weeklyLevel(at: t)
            if s != state {
                out.append(t)
                state = s
            }
        }
        return out
    }
}

extension ScreenPower.Decision {
    /// A decision of full light or none (the schedule before it had levels).
    public init(isOn: Bool, reason: ScreenPower.Reason, nextChange: Double?) {
        self.init(level: isOn ? 100 : 0, reason: reason, nextChange: nextChange)
    }
}
