// The pure scheduler with a manual clock: request budgets, market hours, backoff, failover.

import Testing

@testable import Feed
@testable import Fetch

@Suite struct SchedulerTests {
    let newYork = try! ExchangeTimeZone(identifier: "America/New_York")

    func jobs(_ count: Int, slot: Slot = .daily, providers: [String] = ["yahoo"], hours: SessionHours = .exchange) -> [JobSpec] {
        (0..<count).map { i in
            JobSpec(id: JobID(instrument: "I\(i)", slot: slot), providers: providers,
                    market: MarketHours(hours: hours, zone: newYork))
        }
    }

    /// Runs the scheduler like the service does: every fetch succeeds at once, waits jump the clock.
    /// Returns the request times per provider.
    func simulate(_ scheduler: inout Scheduler, jobs: [JobSpec], from start: Int64, until end: Int64,
                  fails: (JobID, String, Int64) -> Outcome = { _, _, _ in .success }) -> [(Int64, JobID, String)] {
        var now = start
        var log: [(Int64, JobID, String)] = []
        var steps = 0
        while now < end {
            steps += 1
            precondition(steps < 100_000, "the scheduler does not settle")
            switch scheduler.next(now: now, jobs: jobs) {
            case .fetch(let job, let provider):
                scheduler.recordRequest(provider: provider, at: now)
                log.append((now, job, provider))
                scheduler.record(fails(job, provider, now), job: job, provider: provider, at: now, random: 0.5)
            case .wait(let until):
                guard let until else { return log }
                #expect(until > now, "a wait must move time forward")
                now = until
            }
        }
        return log
    }

    func maxInWindow(_ times: [Int64], seconds: Int64) -> Int {
        var best = 0
        for (i, t) in times.enumerated() { best = max(best, times[i...].prefix { $0 < t + seconds }.count) }
        return best
    }

    @Test("five AM inute and twenty instruments never exceeds the rate") func fiveAMinuteAndTwentyInstrumentsNeverExceedsTheRate() {
        // Saturday 2024-10-05 10:00 New York: closed, so each file gets its one check.
        let start = Fixtures.newYork(2024, 10, 5, 10)
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 5, seconds: 60)]])
        let work = jobs(20)
        let log = simulate(&scheduler, jobs: work, from: start, until: Fixtures.newYork(2024, 10, 7, 9))
        let times = log.map(\.0)
        #expect(maxInWindow(times, seconds: 60) <= 5)
        #expect(Set(log.map(\.1)) == Set(work.map(\.id)), "every instrument refreshed")
        // Documented: ceil(20 / 5) minutes; the last batch starts 3 minutes after the first.
        #expect(times.max()! - start <= 3 * 60)
        #expect(log.count == 20, "nothing more while the market is closed")
    }

    /// A full or read-only disk was counted as the symbol's bad data: the backoff grew to 6 h and
    /// the file stayed old for hours after space was back.
    @Test("an answer that could not be stored is tried again a minute later, however often it happens")
    func notStoredIsRetriedSoon() {
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 1000, seconds: 60)]])
        let job = JobID(instrument: "I0", slot: .daily)
        var now: Int64 = 1_727_985_700
        for _ in 0..<20 {
            scheduler.record(.notStored, job: job, provider: "yahoo", at: now, random: 0.5)
            #expect(scheduler.blockedByBackoff(job, provider: "yahoo", now: now) == now + Outcome.localRetry)
            now += Outcome.localRetry
        }
        #expect(scheduler.blockedByBackoff(job, provider: "yahoo", now: now) == nil)
        // Bad data after it starts its own backoff from the first step.
        scheduler.record(.failure(wholeProvider: false, retryAfter: nil), job: job, provider: "yahoo", at: now, random: 0.5)
        #expect(scheduler.symbolBackoff[job.key + "|yahoo"]?.failures == 1)
    }

    /// After the clock was ahead once (a bad RTC or NTP answer, then corrected), remembered
    /// successes, requests and backoffs lay in the future and nothing was fetched until the clock
    /// caught up; with a daily budget even `--once` said "deferred 31622400 s".
    @Test("times remembered from a clock that was ahead do not hold fetching back")
    func futureMemoriesAreForgotten() {
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 1, seconds: 86_400)]])
        let jobs = jobs(1, hours: .always)
        let ahead: Int64 = 1_790_000_000 + 366 * 86_400
        scheduler.recordRequest(provider: "yahoo", at: ahead)
        scheduler.record(.success, job: jobs[0].id, provider: "yahoo", at: ahead, random: 0.5)
        scheduler.symbolBackoff[jobs[0].id.key + "|yahoo"] = Backoff(failures: 3, until: ahead + 600)
        let now: Int64 = 1_790_000_000
        if case .fetch = scheduler.next(now: now, jobs: jobs) { Issue.record("fetched while the memories were ahead: the test shows nothing") }
        scheduler.forgetFuture(now: now)
        #expect(scheduler.budgets["yahoo"]?.sent.isEmpty == true)
        #expect(scheduler.lastSuccess[jobs[0].id.key] == now)
        #expect((scheduler.symbolBackoff[jobs[0].id.key + "|yahoo"]?.until ?? 0) <= now + scheduler.policy.symbolBackoffCap)
        // Due again after its interval, not after a year.
        guard case .wait(let until) = scheduler.next(now: now, jobs: jobs), let until else { Issue.record("no wait"); return }
        #expect(until <= now + scheduler.policy.symbolBackoffCap)
    }

    @Test("a daily limit holds across the day") func aDailyLimitHoldsAcrossTheDay() {
        let start = Fixtures.newYork(2024, 10, 7, 9, 30)  // a Monday, open
        var scheduler = Scheduler(limits: ["alphavantage": [RateLimit(count: 5, seconds: 60), RateLimit(count: 25, seconds: 86_400)]])
        let log = simulate(&scheduler, jobs: jobs(3, slot: .intraday, providers: ["alphavantage"]), from: start, until: start + 86_400)
        let times = log.map(\.0)
        #expect(maxInWindow(times, seconds: 86_400) <= 25)
        #expect(maxInWindow(times, seconds: 60) <= 5)
        #expect(log.count == 25, "the whole daily budget is used, no more")
    }

    @Test("refreshes during the session then once after the close then nothing") func refreshesDuringTheSessionThenOnceAfterTheCloseThenNothing() {
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 100, seconds: 60)]])
        let open = Fixtures.newYork(2024, 10, 4, 9, 30)  // Friday
        let close = Fixtures.newYork(2024, 10, 4, 16)
        let intraday = jobs(1, slot: .intraday)
        let log = simulate(&scheduler, jobs: intraday, from: open, until: Fixtures.newYork(2024, 10, 7, 9, 29))
        let inSession = log.filter { $0.0 < close }.map(\.0)
        #expect(inSession.count == 390, "one a minute for 6.5 hours")
        #expect(zip(inSession, inSession.dropFirst()).allSatisfy { $1 - $0 == 60 })
        let after = log.filter { $0.0 >= close }.map(\.0)
        #expect(after == [close + SchedulePolicy().afterClose], "one fetch for the final bars, none over the weekend")

        var daily = Scheduler(limits: ["yahoo": [RateLimit(count: 100, seconds: 60)]])
        let dailyLog = simulate(&daily, jobs: jobs(1), from: open, until: close).map(\.0)
        #expect(dailyLog.count == 26, "every 15 minutes in a 6.5-hour session")
    }

    @Test("holidays and early closes follow the exchange calendar") func holidaysAndEarlyClosesFollowTheExchangeCalendar() {
        let market = MarketHours(hours: .exchange, zone: newYork)
        // 2024-12-25 is a holiday; 2024-12-24 closes at 13:00.
        #expect(!market.state(at: Fixtures.newYork(2024, 12, 25, 11)).isOpen)
        #expect(market.state(at: Fixtures.newYork(2024, 12, 25, 11)).nextOpen == Fixtures.newYork(2024, 12, 26, 9, 30))
        #expect(market.state(at: Fixtures.newYork(2024, 12, 24, 12)).isOpen)
        #expect(!market.state(at: Fixtures.newYork(2024, 12, 24, 13, 30)).isOpen)
        #expect(market.state(at: Fixtures.newYork(2024, 12, 24, 13, 30)).lastClose == Fixtures.newYork(2024, 12, 24, 13))
        let extended = MarketHours(hours: .exchange, zone: newYork, extendedHours: true)
        #expect(extended.state(at: Fixtures.newYork(2024, 10, 4, 5)).isOpen)
        #expect(!market.state(at: Fixtures.newYork(2024, 10, 4, 5)).isOpen)
    }

    @Test("a session the provider reports wins over the calendar") func aSessionTheProviderReportsWinsOverTheCalendar() throws {
        let berlin = try ExchangeTimeZone(identifier: "Europe/Berlin")
        // A weekday the generic calendar thinks is open, reported as 09:00-17:30 CEST by the provider.
        let reportedStart = berlin.unixTime(for: CivilDateTime(year: 2023, month: 9, day: 4, hour: 9, minute: 0)!)
        let market = MarketHours(hours: .exchange, zone: berlin, reportedSession: reportedStart..<(reportedStart + 8 * 3600 + 1800))
        #expect(market.state(at: reportedStart + 60).isOpen)
        #expect(!market.state(at: reportedStart - 60).isOpen)
        let weekly = MarketHours(hours: FetchSettings.parseSession("Mon-Fri 10:00-11:00")!, zone: berlin)
        #expect(weekly.state(at: reportedStart + 3600 + 60).isOpen)
        #expect(!weekly.state(at: reportedStart + 2 * 3600 + 60).isOpen)
    }

    @Test("a session to midnight (24:00, which check-config accepts) is open to midnight, never a trap")
    func sessionToMidnight() throws {
        let berlin = try ExchangeTimeZone(identifier: "Europe/Berlin")
        let hours = try #require(FetchSettings.parseSession("Mon-Fri 08:00-24:00"))
        let market = MarketHours(hours: hours, zone: berlin)
        let monday = berlin.unixTime(for: CivilDateTime(year: 2026, month: 11, day: 30, hour: 23, minute: 30)!)
        #expect(market.state(at: monday).isOpen)
        #expect(!market.state(at: monday + 3600).isOpen)   // Tuesday 00:30
        #expect(market.state(at: monday + 9 * 3600).isOpen)   // Tuesday 08:30
    }

    @Test("[fetch] durations past their bound are refused, not trapped on", arguments: [
        ("timeout", "1e17"), ("timeout", "11min"), ("intraday-interval", "1e300"), ("daily-interval", "8d"), ("after-close", "1e300s"),
    ])
    func boundedDurations(key: String, value: String) {
        guard case .invalid(let message) = FetchSettings.checkFetchKey(key, value) else {
            Issue.record("\(key) = \(value) accepted"); return
        }
        #expect(message.hasPrefix("at most "))
        if case .invalid = FetchSettings.checkFetchKey(key, key == "timeout" ? "10min" : "7d") { Issue.record("the bound itself refused") }
    }

    @Test("crypto refreshes around the clock") func cryptoRefreshesAroundTheClock() {
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 100, seconds: 60)]])
        let sunday = Fixtures.newYork(2024, 10, 6, 3)
        let log = simulate(&scheduler, jobs: jobs(1, slot: .intraday, hours: .always), from: sunday, until: sunday + 3600)
        #expect(log.count == 60)
    }

    @Test("backoff doubles with jitter and honours retry after") func backoffDoublesWithJitterAndHonoursRetryAfter() {
        let base: Int64 = 30, cap: Int64 = 3600
        for failures in 1...10 {
            let full = min(cap, base << Int64(failures - 1))
            let low = Backoff.delay(failures: failures, base: base, cap: cap, random: 0, retryAfter: nil)
            let high = Backoff.delay(failures: failures, base: base, cap: cap, random: 0.999, retryAfter: nil)
            #expect(low == full / 2)
            #expect(high <= full && high >= full - full / 500 - 1)
        }
        #expect(Backoff.delay(failures: 1, base: base, cap: cap, random: 0.5, retryAfter: 600) == 600)
    }

    @Test("a 429 holds back the whole provider until retry after") func a429HoldsBackTheWholeProviderUntilRetryAfter() {
        let start = Fixtures.newYork(2024, 10, 5, 10)
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 60, seconds: 60)]])
        let work = jobs(3)
        var first = true
        let log = simulate(&scheduler, jobs: work, from: start, until: start + 3600) { _, _, _ in
            defer { first = false }
            return first ? .failure(wholeProvider: true, retryAfter: 120) : .success
        }
        #expect(log.count == 4)
        #expect(log[0].0 == start)
        #expect(log.dropFirst().allSatisfy { $0.0 >= start + 120 }, "nobody asks yahoo before Retry-After")
    }

    @Test("failure fails over but an empty budget waits") func failureFailsOverButAnEmptyBudgetWaits() {
        let start = Fixtures.newYork(2024, 10, 5, 10)
        let work = jobs(1, providers: ["yahoo", "stooq"])
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 5, seconds: 60)], "stooq": [RateLimit(count: 5, seconds: 60)]])
        let log = simulate(&scheduler, jobs: work, from: start, until: start + 600) { _, provider, _ in
            provider == "yahoo" ? .failure(wholeProvider: true, retryAfter: nil) : .success
        }
        #expect(log.map(\.2) == ["yahoo", "stooq"], "straight to the next provider, and done")

        // Out of budget is not a failure: wait for yahoo rather than spend stooq's quota.
        var busy = Scheduler(limits: ["yahoo": [RateLimit(count: 1, seconds: 60)], "stooq": [RateLimit(count: 5, seconds: 60)]])
        busy.recordRequest(provider: "yahoo", at: start - 10)
        #expect(busy.next(now: start, jobs: work) == .wait(until: start + 50))
    }

    @Test("symbol problems stay with the symbol") func symbolProblemsStayWithTheSymbol() {
        let start = Fixtures.newYork(2024, 10, 5, 10)
        var scheduler = Scheduler(limits: ["yahoo": [RateLimit(count: 60, seconds: 60)]])
        let work = jobs(2)
        scheduler.recordRequest(provider: "yahoo", at: start)
        scheduler.record(.failure(wholeProvider: false, retryAfter: nil), job: work[0].id, provider: "yahoo", at: start, random: 0)
        #expect(scheduler.next(now: start, jobs: work) == .fetch(work[1].id, provider: "yahoo"))
        #expect(scheduler.blockedByBackoff(work[0].id, provider: "yahoo", now: start) == start + SchedulePolicy().symbolBackoffBase / 2)
    }

    @Test("budget windows slide") func budgetWindowsSlide() {
        var budget = RequestBudget(limits: [RateLimit(count: 2, seconds: 10)])
        budget.record(at: 100)
        budget.record(at: 105)
        #expect(!budget.hasRoom(at: 109))
        #expect(budget.nextAvailable(at: 109) == 110)
        #expect(budget.hasRoom(at: 110))
        budget.record(at: 110)
        #expect(budget.nextAvailable(at: 110) == 115)
    }
}
