// When to ask whom: pure decisions over time and events. The scheduler is told the time, what
// jobs exist, and what happened (a request sent, a success, a failure), and answers which job to
// fetch from which provider now, or when to wake up. Nothing here sleeps, reads a clock or does I/O,
// so every rule below is tested with a manual clock.
//
// The rules:
// - A request budget per provider (any number of "N per window" limits), shared by all instruments;
//   a request is only made when every window has room.
// - While an instrument's market is open: intraday bars every `intradayInterval`, daily bars every
//   `dailyInterval`. After the close: one more fetch once `afterClose` has passed (the final bars).
//   While closed: nothing, except one check when there is no fetch since the last close.
// - Failures back off exponentially with jitter; `Retry-After` is honoured. Problems of the whole
//   provider (429, 5xx, timeouts, a refused key) hold back all its instruments; problems of one
//   symbol (unknown, bad data) only that instrument.
// - Of an instrument's providers the first one not backing off is used; on failure the next one.
//   A provider that is only out of budget is waited for, not skipped: the budget exists to protect
//   its quota, failing over would only spend the next provider's.

import Feed

/// One file to keep fresh: an instrument's daily or intraday bars.
public struct JobID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var instrument: String
    public var slot: Slot

    public init(instrument: String, slot: Slot) {
        self.instrument = instrument
        self.slot = slot
    }

    public static func < (a: JobID, b: JobID) -> Bool { (a.instrument, a.slot.rawValue) < (b.instrument, b.slot.rawValue) }
    public var description: String { "\(instrument) \(slot)" }
    var key: String { "\(instrument)|\(slot.rawValue)" }
}

/// What the scheduler needs to know about a job.
public struct JobSpec: Sendable {
    public var id: JobID
    /// Provider names in order of preference, already limited to those that serve this slot.
    public var providers: [String]
    public var market: MarketHours

    public init(id: JobID, providers: [String], market: MarketHours) {
        self.id = id
        self.providers = providers
        self.market = market
    }
}

/// Refresh and backoff settings.
public struct SchedulePolicy: Sendable, Equatable {
    public var intradayInterval: Int64 = 60
    public var dailyInterval: Int64 = 15 * 60
    /// How long after the close the final bars are fetched (providers settle the close late).
    public var afterClose: Int64 = 20 * 60
    /// First retry after a provider-wide problem, doubling up to the cap.
    public var providerBackoffBase: Int64 = 30
    public var providerBackoffCap: Int64 = 60 * 60
    /// First retry after a problem of one symbol (unknown, bad data): these rarely clear quickly.
    public var symbolBackoffBase: Int64 = 5 * 60
    public var symbolBackoffCap: Int64 = 6 * 60 * 60

    public init() {}
}

/// When a market is open, from a calendar and, when a provider reported it, the real session.
public struct MarketHours: Sendable {
    public var hours: SessionHours
    public var zone: ExchangeTimeZone
    public var extendedHours: Bool
    /// A regular session a provider reported ([start, end) unix s); authoritative for its date.
    public var reportedSession: Range<Int64>?
    /// The exchange's calendar for `.exchange` hours; nil: Monday to Friday 09:00-17:30 local.
    public var calendar: ExchangeCalendar?

    public init(hours: SessionHours, zone: ExchangeTimeZone, extendedHours: Bool = false, reportedSession: Range<Int64>? = nil,
                calendar: ExchangeCalendar? = nil) {
        self.hours = hours
        self.zone = zone
        self.extendedHours = extendedHours
        self.reportedSession = reportedSession
        self.calendar = calendar ?? ExchangeCalendar.forTimeZone(zone.identifier)
    }

    /// Where `now` is relative to the sessions.
    public struct State: Sendable, Equatable {
        public var isOpen: Bool
        /// The end of the most recent session that has ended (nil when none within two weeks).
        public var lastClose: Int64?
        /// The start of the next session (now's session when open); nil for around-the-clock.
        public var nextOpen: Int64?
    }

    /// The session on `date` as [open, close) instants, nil when the market does not open that day.
    public func session(on date: CivilDate) -> Range<Int64>? {
        if let reported = reportedSession, zone.localDate(atUnixTime: reported.lowerBound) == date {
            return extendedHours ? widened(reported, date: date) : reported
        }
        let local: (open: Int, close: Int)?
        switch hours {
        case .always: return zone.startOfDay(date)..<zone.startOfDay(date.adding(days: 1))
        case .weekly(let days, let open, let close):
            local = days.contains(date.weekday.rawValue) ? (open, close) : nil
        case .exchange:
            if let calendar {
                if calendar.isAlwaysOpen { return zone.startOfDay(date)..<zone.startOfDay(date.adding(days: 1)) }
                local = calendar.localHours(on: date).map { ($0.open, $0.close) }
            } else {
                local = date.weekday.isWeekend ? nil : (9 * 3600, 17 * 3600 + 1800)
            }
        }
        guard let local else { return nil }
        let range = instant(date, local.open)..<instant(date, local.close)
        return extendedHours ? widened(range, date: date) : range
    }

    /// Pre- and post-market: the exchange's extended hours (04:00 to 20:00 in New York); elsewhere
    /// two hours either side.
    private func widened(_ range: Range<Int64>, date: CivilDate) -> Range<Int64> {
        if let extended = calendar?.extendedHours {
            return instant(date, extended.preOpen)..<instant(date, extended.postClose)
        }
        return (range.lowerBound - 7200)..<(range.upperBound + 7200)
    }

    private func instant(_ date: CivilDate, _ secondOfDay: Int) -> Int64 {
        // 24:00 (a session to midnight, which check-config accepts) is the next day's 00:00; no
        // value traps here.
        let day = date.adding(days: secondOfDay / 86_400), s = secondOfDay % 86_400
        guard secondOfDay >= 0, let t = CivilDateTime(date: day, hour: s / 3600, minute: s / 60 % 60, second: s % 60) else {
            return zone.startOfDay(date) + Int64(secondOfDay)
        }
        return zone.unixTime(for: t)
    }

    public func state(at now: Int64) -> State {
        if case .always = hours { return State(isOpen: true, lastClose: nil, nextOpen: nil) }
        let today = zone.localDate(atUnixTime: now)
        var state = State(isOpen: false, lastClose: nil, nextOpen: nil)
        for back in 0...14 {
            if let s = session(on: today.adding(days: -back)) {
                if s.contains(now) { state.isOpen = true; state.nextOpen = s.lowerBound }
                if s.upperBound <= now { state.lastClose = s.upperBound; break }
            }
        }
        if !state.isOpen {
            for ahead in 0...14 {
                if let s = session(on: today.adding(days: ahead)), s.lowerBound > now {
                    state.nextOpen = s.lowerBound
                    break
                }
            }
        }
        return state
    }
}

/// At most `limits` requests; remembers when requests were made (within the longest window).
public struct RequestBudget: Sendable, Equatable {
    public var limits: [RateLimit]
    public private(set) var sent: [Int64] = []

    public init(limits: [RateLimit], sent: [Int64] = []) {
        self.limits = limits
        self.sent = sent.sorted()
    }

    /// The earliest time (>= now) at which one more request fits every window.
    public func nextAvailable(at now: Int64) -> Int64 {
        var earliest = now
        for limit in limits where limit.count > 0 {
            // Requests within (t - window, t] must be fewer than count. The count-th most recent
            // request leaves the window at its time + window.
            let inWindow = sent.filter { $0 > now - Int64(limit.seconds) }
            if inWindow.count >= limit.count {
                let blocking = inWindow[inWindow.count - limit.count]
                earliest = max(earliest, blocking + Int64(limit.seconds))
            }
        }
        return earliest
    }

    public func hasRoom(at now: Int64) -> Bool { nextAvailable(at: now) <= now }

    public mutating func record(at now: Int64) {
        sent.append(now)
        if sent.count > 1, sent[sent.count - 2] > now { sent.sort() }
        let longest = Int64(limits.map(\.seconds).max() ?? 60)
        if let first = sent.first, first <= now - longest { sent.removeAll { $0 <= now - longest } }
    }
}

/// Consecutive failures and when the next attempt is allowed.
public struct Backoff: Sendable, Equatable {
    public var failures: Int
    public var until: Int64

    public init(failures: Int, until: Int64) {
        self.failures = failures
        self.until = until
    }

    /// The delay after the `failures`-th failure in a row: `base * 2^(failures-1)` capped, then
    /// "equal jitter" (between half and all of it, `random` in [0, 1)), and never less than the
    /// server's `Retry-After`.
    public static func delay(failures: Int, base: Int64, cap: Int64, random: Double, retryAfter: Int?) -> Int64 {
        let exponent = min(max(failures - 1, 0), 30)
        let raw = min(cap, base << Int64(exponent))
        let jittered = raw / 2 + Int64(Double(raw - raw / 2) * min(max(random, 0), 0.999_999))
        return max(jittered, Int64(retryAfter ?? 0), 1)
    }
}

/// How a request ended, as far as scheduling goes.
public enum Outcome: Sendable, Equatable {
    case success
    /// `wholeProvider`: every instrument of the provider would see it (see `FetchProblem`).
    case failure(wholeProvider: Bool, retryAfter: Int?)
    /// The answer was good but could not be stored here (disk full, read-only): nothing to hold
    /// against the provider or the symbol; tried again after `localRetry` seconds, not backed off
    /// to hours, so the file is fresh soon after space is back.
    case notStored

    /// How soon a job whose answer could not be stored is tried again.
    public static let localRetry: Int64 = 60

    public init(_ problem: FetchProblem) {
        self = .failure(wholeProvider: problem.affectsWholeProvider, retryAfter: problem.retryAfter)
    }
}

public struct Scheduler: Sendable, Equatable {
    public enum Decision: Sendable, Equatable {
        case fetch(JobID, provider: String)
        /// Nothing to do before this time (nil: nothing at all, e.g. no jobs).
        case wait(until: Int64?)
    }

    public var policy: SchedulePolicy
    public var budgets: [String: RequestBudget] = [:]
    public var providerBackoff: [String: Backoff] = [:]
    /// Keyed by `instrument|slot|provider`.
    public var symbolBackoff: [String: Backoff] = [:]
    public var lastSuccess: [String: Int64] = [:]

    public init(policy: SchedulePolicy = SchedulePolicy(), limits: [String: [RateLimit]]) {
        self.policy = policy
        for (name, l) in limits { budgets[name] = RequestBudget(limits: l) }
    }

    /// When `job` should next be fetched, ignoring providers (their budget and backoff).
    public func dueTime(_ job: JobSpec, now: Int64) -> Int64 {
        let last = lastSuccess[job.id.key]
        let state = job.market.state(at: now)
        let interval = job.id.slot == .intraday ? policy.intradayInterval : policy.dailyInterval
        if state.isOpen { return last.map { $0 + interval } ?? now }
        guard let last else { return now }  // the one check while closed
        guard let close = state.lastClose else { return state.nextOpen ?? now + 86_400 }
        let settled = close + policy.afterClose
        if last >= settled { return state.nextOpen ?? now + 86_400 }
        // Fetched during (or just after) the session: once more when the close has settled, unless
        // the next session starts first.
        return min(settled, state.nextOpen ?? settled)
    }

    /// Until when `provider` may not be asked for `job` because of failures (nil: it may).
    public func blockedByBackoff(_ job: JobID, provider: String, now: Int64) -> Int64? {
        let until = max(providerBackoff[provider]?.until ?? 0, symbolBackoff[job.key + "|" + provider]?.until ?? 0)
        return until > now ? until : nil
    }

    /// The provider to use for `job` now, or when one will be usable.
    public func choose(_ job: JobSpec, now: Int64) -> (provider: String?, wake: Int64?) {
        var earliestBackoffEnd: Int64?
        for provider in job.providers {
            if let until = blockedByBackoff(job.id, provider: provider, now: now) {
                earliestBackoffEnd = min(earliestBackoffEnd ?? until, until)
                continue
            }
            let available = budgets[provider]?.nextAvailable(at: now) ?? now
            return available <= now ? (provider, nil) : (nil, min(available, earliestBackoffEnd ?? available))
        }
        return (nil, earliestBackoffEnd)
    }

    /// What to do at `now`: the most overdue job that has a usable provider, or when to look again.
    public func next(now: Int64, jobs: [JobSpec]) -> Decision {
        var best: (due: Int64, job: JobID, provider: String)?
        var wake: Int64?
        func wakeAt(_ t: Int64) { wake = min(wake ?? t, t) }
        for job in jobs {
            let due = dueTime(job, now: now)
            if due > now { wakeAt(due); continue }
            let (provider, providerWake) = choose(job, now: now)
            if let provider {
                if best == nil || due < best!.due { best = (due, job.id, provider) }
            } else if let providerWake {
                wakeAt(max(providerWake, now + 1))
            }
        }
        if let best { return .fetch(best.job, provider: best.provider) }
        return .wait(until: wake)
    }

    /// Call just before sending a request.
    public mutating func recordRequest(provider: String, at now: Int64) {
        budgets[provider, default: RequestBudget(limits: [RateLimit(count: 60, seconds: 60)])].record(at: now)
    }

    /// Call when a request has ended; `random` in [0, 1) jitters the backoff.
    public mutating func record(_ outcome: Outcome, job: JobID, provider: String, at now: Int64, random: Double) {
        let symbolKey = job.key + "|" + provider
        switch outcome {
        case .success:
            lastSuccess[job.key] = now
            providerBackoff[provider] = nil
            symbolBackoff[symbolKey] = nil
        case .failure(let wholeProvider, let retryAfter):
            if wholeProvider {
                let failures = (providerBackoff[provider]?.failures ?? 0) + 1
                let delay = Backoff.delay(failures: failures, base: policy.providerBackoffBase, cap: policy.providerBackoffCap,
                                          random: random, retryAfter: retryAfter)
                providerBackoff[provider] = Backoff(failures: failures, until: now + delay)
            } else {
                let failures = (symbolBackoff[symbolKey]?.failures ?? 0) + 1
                let delay = Backoff.delay(failures: failures, base: policy.symbolBackoffBase, cap: policy.symbolBackoffCap,
                                          random: random, retryAfter: retryAfter)
                symbolBackoff[symbolKey] = Backoff(failures: failures, until: now + delay)
            }
        case .notStored:
            symbolBackoff[symbolKey] = Backoff(failures: 0, until: now + Outcome.localRetry)
        }
    }

    /// What was remembered at a clock that was ahead (a bad RTC or NTP answer, corrected since)
    /// must not hold fetching back until the clock catches up: a success "in the future" is one
    /// now, requests "in the future" leave the budgets, and no backoff lasts past its cap from now.
    public mutating func forgetFuture(now: Int64) {
        for (key, time) in lastSuccess where time > now { lastSuccess[key] = now }
        for (name, budget) in budgets where budget.sent.last.map({ $0 > now }) == true {
            budgets[name] = RequestBudget(limits: budget.limits, sent: budget.sent.filter { $0 <= now })
        }
        for (name, backoff) in providerBackoff where backoff.until > now + policy.providerBackoffCap {
            providerBackoff[name] = Backoff(failures: backoff.failures, until: now + policy.providerBackoffCap)
        }
        for (key, backoff) in symbolBackoff where backoff.until > now + policy.symbolBackoffCap {
            symbolBackoff[key] = Backoff(failures: backoff.failures, until: now + policy.symbolBackoffCap)
        }
    }

    /// Marks a job as fetched at `time` without a request (a restart that finds fresh files).
    public mutating func assumeFetched(_ job: JobID, at time: Int64) {
        lastSuccess[job.key] = max(lastSuccess[job.key] ?? time, time)
    }
}
