// The thin shell around the pure parts: performs one job (request, check, merge, replace, status),
// runs a pass over all instruments (`--once`) or forever (the service), and keeps the scheduler's
// memory (request times, backoffs) in a state file so a restart neither bursts the budget nor
// forgets a Retry-After.

import Feed
import FoundationEssentials
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// Log lines on stderr; under systemd with `<N>` priority prefixes for journald.
public struct FetchLog: Sendable {
    public enum Priority: Int, Sendable { case error = 3, warning = 4, notice = 5, info = 6 }
    public var write: @Sendable (Priority, String) -> Void

    public init(write: @escaping @Sendable (Priority, String) -> Void) { self.write = write }

    public static let standardError = FetchLog { priority, message in
        let prefixed = isatty(2) == 0 ? "<\(priority.rawValue)>" : ""
        StandardStream.error.write(prefixed + message + "\n")
    }
}

public final class Fetcher {
    public enum Mode: Sendable { case write, dryRun }

    /// What one job did.
    public struct JobResult: Sendable, Equatable {
        public var job: JobID
        public var provider: String
        public var outcome: Result<Summary, FetchProblem>
    }

    public struct Summary: Sendable, Equatable {
        public var bars: Int
        public var newBars: Int
        public var changed: Bool
        public var rendered: [UInt8]
        public var lastBar: Int64?
    }

    public let config: FetchConfig
    public let mode: Mode
    public private(set) var scheduler: Scheduler
    public private(set) var secrets: [Secret] = []
    /// Problems found while setting up (unreadable keys): reported, the provider is still usable.
    public private(set) var setupProblems: [String] = []
    var providers: [String: any Provider] = [:]
    var markets: [String: MarketHours] = [:]
    let transport: any HTTPTransport
    let log: FetchLog
    var random: () -> Double
    /// Per job, the problem last logged, so a problem is logged once and not every minute.
    var logged: [String: String] = [:]

    public var statePath: String { config.path(of: ".tickerboard-fetch.state") }
    /// The alerts' states as the fetcher judged them (for `alert-command`), beside the request log.
    public var alertStatePath: String { config.path(of: ".tickerboard-fetch.alerts") }
    /// The alerts that run a command, in the service only (not --once or a dry run).
    public var alertHooks: AlertHooks?
    /// Requests, failures and rate-limit answers per provider, for `metricsPath`; a reload carries
    /// them over (counters only ever grow while the process lives).
    public var metrics = FetchMetrics()
    /// `--metrics`: where the service writes `tickerboard-fetch.prom` after each request (nil: not).
    public var metricsPath: String?
    /// The executable's version, for the metrics' build_info.
    public var version = "unknown"

    public init(config: FetchConfig, transport: (any HTTPTransport)? = nil, mode: Mode = .write,
                environment: [String: String], log: FetchLog = .standardError,
                random: @escaping () -> Double = { Double.random(in: 0..<1) }) {
        self.config = config
        self.mode = mode
        self.log = log
        self.random = random
        self.transport = transport ?? CurlTransport(limits: config.limits)
        scheduler = Scheduler(policy: config.policy, limits: config.providers.mapValues(\.rate))
        for (name, var settings) in config.providers.sorted(by: { $0.key < $1.key }) {
            switch Secrets.load(provider: name, keyFile: config.keyFiles[name], environment: environment) {
            case .success(let key):
                settings.key = key
                if let key { secrets.append(key) }
            case .failure(let error): setupProblems.append("[provider \(name)] \(error)")
            }
            providers[name] = Providers.make(settings)
        }
        for inst in config.instruments {
            let calendar = inst.exchange.flatMap(ExchangeCalendar.named) ?? ExchangeCalendar.forTimeZone(inst.timeZone)
            // An exchange without a time-zone line brings its own zone.
            let zoneName = inst.exchange != nil && !inst.timeZoneSet ? calendar?.timeZoneIdentifier ?? inst.timeZone : inst.timeZone
            let tz = zone(zoneName) ?? .utc
            markets[inst.id] = MarketHours(hours: inst.session, zone: tz, extendedHours: inst.extendedHours, calendar: calendar)
        }
        loadState()
        if mode == .write { removeStaleTemporaries() }
    }

    /// The latest time a bar or price may carry: 36 hours after now (a session in a zone far
    /// ahead of ours, a daily bar stamped at its date's midnight), saturating at the end of time.
    static func horizon(_ now: Int64) -> Int64 {
        let (t, overflow) = now.addingReportingOverflow(36 * 3600)
        return overflow ? .max : t
    }

    /// A fetcher killed mid-write leaves its temporary beside the file (as large as the file);
    /// the next start clears what writers no longer running left.
    func removeStaleTemporaries() {
        var paths = [statePath, alertStatePath]
        for inst in config.instruments {
            paths.append(statusPath(inst.id))
            for slot in Slot.allCases { if let file = inst.file(for: slot) { paths.append(config.path(of: file)) } }
        }
        for path in paths {
            for name in AtomicFile.removeStaleTemporaries(of: path) {
                log.write(.notice, "\(path): removed \(name), left by a writer that no longer runs")
            }
        }
    }

    /// The jobs of every configured instrument, in config order (daily before intraday).
    public var jobs: [JobSpec] {
        var out: [JobSpec] = []
        for inst in config.instruments {
            for slot in Slot.allCases where inst.file(for: slot) != nil {
                let usable = inst.providers.filter { providers[$0]?.supports(slot) ?? false }
                guard !usable.isEmpty, let market = markets[inst.id] else { continue }
                out.append(JobSpec(id: JobID(instrument: inst.id, slot: slot), providers: usable, market: market))
            }
        }
        return out
    }

    func redact(_ text: String) -> String { Secrets.redact(text, secrets) }

    // MARK: One job

    /// Fetches `job` from `providerName` at `now`; files are replaced only when the data is good
    /// and different, the status file always says what happened.
    @discardableResult
    public func perform(_ job: JobID, provider providerName: String, now: Int64) -> JobResult {
        func fail(_ problem: FetchProblem, requested: Bool) -> JobResult {
            if requested {
                scheduler.record(Outcome(problem), job: job, provider: providerName, at: now, random: random())
                metrics.failed(providerName, problem)
            }
            let message = redact("\(providerName): \(problem)")
            noteProblem(job, message: message, now: now)
            return JobResult(job: job, provider: providerName, outcome: .failure(problem))
        }
        guard let inst = config.instruments.first(where: { $0.id == job.instrument }), let file = inst.file(for: job.slot),
            let provider = providers[providerName]
        else {
            return JobResult(job: job, provider: providerName, outcome: .failure(.badData("not configured")))
        }
        let path = config.path(of: file)
        let existing: DataFile.Existing?
        switch DataFile.readExisting(path: path) {
        case .success(let e): existing = e
        case .failure(let problem):
            scheduler.record(.failure(wholeProvider: false, retryAfter: nil), job: job, provider: providerName, at: now, random: random())
            return fail(problem, requested: false)
        }
        let request = FetchRequest(symbol: inst.symbol(for: providerName), slot: job.slot, now: now, fileName: file,
                                   extendedHours: inst.extendedHours, newestBarOnDisk: existing?.bars.last?.time)
        scheduler.recordRequest(provider: providerName, at: now)
        metrics.requested(providerName)
        let response: HTTPResponse
        var http = provider.httpRequest(for: request)
        http.userAgent = config.providers[providerName]?.userAgent
        switch transport.get(http) {
        case .success(let r): response = r
        case .failure(let e): return fail(.transport(e), requested: true)
        }
        var data: ProviderData
        switch provider.parse(response, for: request) {
        case .success(let d): data = d
        case .failure(let p): return fail(p, requested: true)
        }
        // Nothing dated after tomorrow is a price yet: a bar in 2100 would pin the chart and never
        // go stale, a price time there would say "as of" it for good. Such bars are left out (all
        // of them: the answer is refused) and said; a later time of the last price is no time.
        let horizon = Self.horizon(now)
        let future = data.bars.filter { $0.time > horizon }
        if !future.isEmpty {
            data.bars.removeAll { $0.time > horizon }
            let first = CivilDate(unixTime: future[0].time)
            guard !data.bars.isEmpty else {
                return fail(.badData("every bar is dated after now (the first \(first)): the provider's clock or this one is wrong"),
                            requested: true)
            }
            log.write(.warning, "\(job.instrument): \(job.slot) from \(providerName): left out \(future.count) bar"
                      + "\(future.count == 1 ? "" : "s") dated after now (the first \(first))")
        }
        if let t = data.priceTime, t > horizon { data.priceTime = nil }
        if data.tradesAroundTheClock, inst.session == .exchange { markets[inst.id]?.hours = .always }
        if let session = data.regularSession { markets[inst.id]?.reportedSession = session }

        let tz = zone(data.exchangeTimeZone) ?? zone(inst.timeZone) ?? .utc
        if let why = Plausibility.problem(new: data.bars, existing: existing?.bars ?? []) {
            return fail(.badData(why), requested: true)
        }
        let merged = DataFile.merge(existing: (existing?.bars ?? []).filter { $0.time <= horizon }, new: data.bars, slot: job.slot,
                                    sessions: inst.intradaySessions, zone: tz)
        let rendered = DataFile.render(merged, slot: job.slot, zone: tz)
        let changed = rendered != existing?.bytes
        if changed, let why = DataFile.unreadable(rendered, rows: merged.count) {
            return fail(.badData(why + "; the file is kept"), requested: true)
        }
        if changed && mode == .write {
            do throws(Errno) {
                try DataFile.replaceAtomically(path: path, bytes: rendered)
            } catch {
                // This machine's trouble (ENOSPC, EROFS), not the symbol's: no backoff to hours.
                scheduler.record(.notStored, job: job, provider: providerName, at: now, random: random())
                return fail(.badData("cannot write \(path): \(error)"), requested: false)
            }
        }
        scheduler.record(.success, job: job, provider: providerName, at: now, random: random())
        let oldTimes = Set(existing?.bars.map(\.time) ?? [])
        let summary = Summary(bars: merged.count, newBars: merged.filter { !oldTimes.contains($0.time) }.count,
                              changed: changed, rendered: rendered, lastBar: merged.last?.time)
        noteSuccess(job, inst: inst, provider: providerName, data: data, summary: summary, now: now)
        return JobResult(job: job, provider: providerName, outcome: .success(summary))
    }

    // MARK: Status

    func statusPath(_ instrument: String) -> String { FetchStatus.path(forInstrument: instrument, in: config.dataDirectory) }

    func updateStatus(_ instrument: String, _ change: (inout FetchStatus) -> Void) {
        let path = statusPath(instrument)
        var status = FetchStatus.load(path: path) ?? FetchStatus()
        change(&status)
        guard mode == .write else { return }
        do throws(Errno) {
            try DataFile.replaceAtomically(path: path, bytes: Array(status.json().utf8))
        } catch {
            log.write(.error, "\(path): cannot write the status: \(error)")
        }
    }

    func noteProblem(_ job: JobID, message: String, now: Int64) {
        let tagged = "\(job.slot): \(message)"
        if logged[job.key] != tagged {
            logged[job.key] = tagged
            log.write(.warning, "\(job.instrument): \(tagged); the data files are unchanged")
        }
        updateStatus(job.instrument) { status in
            if status.lastError != tagged { status.errorSince = now }
            status.lastError = tagged
            status.attemptedAt = now
        }
    }

    func noteSuccess(_ job: JobID, inst: FetchInstrument, provider: String, data: ProviderData, summary: Summary, now: Int64) {
        if logged[job.key] != nil {
            log.write(.notice, "\(job.instrument): \(job.slot) data from \(provider) again (the problem cleared)")
            logged[job.key] = nil
        }
        if mode == .write {
            log.write(.info, "\(job.instrument): \(job.slot) from \(provider): \(summary.bars) bars, \(summary.newBars) new"
                + (summary.changed ? "" : ", file unchanged"))
        }
        updateStatus(job.instrument) { s in
            s.symbol = inst.symbol(for: provider)
            s.provider = provider
            s.fetchedAt = now
            s.attemptedAt = now
            if job.slot == .intraday || inst.intradayFile == nil { s.lastBarTime = summary.lastBar }
            var priceTime = data.priceTime
            if job.slot == .intraday, let last = data.bars.last?.time { priceTime = max(priceTime ?? last, last) }
            // A remembered time after tomorrow (from before this check, or a clock that was ahead) is
            // no reason to keep an old "as of".
            let remembered = s.lastPriceTime.flatMap { $0 <= Self.horizon(now) ? $0 : nil }
            if let priceTime { s.lastPriceTime = max(priceTime, remembered ?? priceTime) } else { s.lastPriceTime = remembered }
            if let state = data.marketState { s.marketState = state }
            s.delaySeconds = data.delaySeconds ?? s.delaySeconds
            s.currency = data.currency ?? s.currency
            s.exchangeTimeZone = data.exchangeTimeZone ?? s.exchangeTimeZone ?? inst.timeZone
            s.price = data.price ?? (job.slot == .daily ? data.bars.last?.close : s.price)
            s.previousClose = data.previousClose ?? s.previousClose
            if let error = s.lastError, error.hasPrefix("\(job.slot):") {
                s.lastError = nil
                s.errorSince = nil
            }
        }
    }

    // MARK: Passes

    public struct PassReport: Sendable, Equatable {
        public var succeeded: [JobID] = []
        public var failed: [JobID] = []
        /// Not tried: every usable provider was out of budget or backing off.
        public var deferred: [JobID] = []
    }

    /// Every job once, now: each provider in order until one delivers; a provider out of budget
    /// ends the attempt for that job (it is deferred, not failed over).
    public func runOnce(clock: () -> Int64) -> PassReport {
        var report = PassReport()
        scheduler.forgetFuture(now: clock())
        for job in jobs {
            var done = false
            var tried = false
            for name in job.providers {
                let now = clock()
                if scheduler.blockedByBackoff(job.id, provider: name, now: now) != nil { continue }
                guard scheduler.budgets[name]?.hasRoom(at: now) ?? true else { break }
                tried = true
                if case .success = perform(job.id, provider: name, now: now).outcome {
                    done = true
                    break
                }
            }
            if done { report.succeeded.append(job.id) } else if tried { report.failed.append(job.id) } else {
                report.deferred.append(job.id)
                noteDeferred(job, now: clock())
            }
        }
        saveState()
        return report
    }

    func noteDeferred(_ job: JobSpec, now: Int64) {
        let waits = job.providers.map { name in
            scheduler.blockedByBackoff(job.id, provider: name, now: now) ?? scheduler.budgets[name]?.nextAvailable(at: now) ?? now
        }
        let wait = (waits.min() ?? now) - now
        log.write(.notice, "\(job.id.instrument): \(job.id.slot) deferred \(wait) s (request budget or backoff of \(job.providers.joined(separator: ", ")))")
    }

    /// `--once`: every alert judged on the files as they are now, the commands of those that fire
    /// started and waited for (each until its `alert-command-timeout`, then killed).
    public func judgeAlertsOnce(clock: () -> Int64, wait: (Int64) -> Void = { _ in usleep(50_000) }) {
        if alertHooks == nil { alertHooks = AlertHooks(config: config, log: log, statePath: alertStatePath) }
        guard let hooks = alertHooks else { return }
        hooks.judge(instrument: nil, now: clock())
        while !hooks.running.isEmpty {
            wait(clock())
            hooks.poll(now: clock())
        }
    }

    /// Runs until `sleep` returns false. `sleep(seconds)` waits (or is interrupted) and says whether
    /// to go on; the loop asks the scheduler again after every wake-up.
    public func runForever(clock: () -> Int64, sleep: (Int64) -> Bool) {
        if mode == .write, alertHooks == nil {
            alertHooks = AlertHooks(config: config, log: log, statePath: alertStatePath)
        }
        if let hooks = alertHooks {
            log.write(.info, "tickerboard-fetch: \(hooks.alerts.count) alert\(hooks.alerts.count == 1 ? "" : "s") with a command")
        }
        saveMetrics(now: clock())
        // Files fetched before a restart count as fresh, from their status.
        for job in jobs {
            if let fetched = FetchStatus.load(path: statusPath(job.id.instrument))?.fetchedAt,
                scheduler.lastSuccess[job.id.key] == nil
            {
                scheduler.assumeFetched(job.id, at: fetched)
            }
        }
        while true {
            let now = clock()
            scheduler.forgetFuture(now: now)
            switch scheduler.next(now: now, jobs: jobs) {
            case .fetch(let job, let provider):
                // An alert is judged on what was just written; its command starts and is not waited for.
                if case .success(let summary) = perform(job, provider: provider, now: now).outcome, summary.changed {
                    alertHooks?.judge(instrument: job.instrument, now: now)
                }
                saveState()
                saveMetrics(now: now)
            case .wait(let until):
                var wake = until ?? now + 3600
                if let hooks = alertHooks { wake = min(wake, hooks.nextWake(now: now)) }
                let seconds = min(max(wake - now, 1), 3600)
                if !sleep(seconds) { saveState(); return }
            }
            alertHooks?.poll(now: clock())
            // Hooks a reload kept only to collect their commands go once those are collected.
            if alertHooks?.isSpent == true { alertHooks = nil }
        }
    }

    // MARK: State file

    struct State: Codable {
        var sent: [String: [Int64]]
        var providerBackoff: [String: [Int64]]
        var symbolBackoff: [String: [Int64]]
        var lastSuccess: [String: Int64]
    }

    func saveState() {
        guard mode == .write else { return }
        let state = State(sent: scheduler.budgets.mapValues(\.sent),
                          providerBackoff: scheduler.providerBackoff.mapValues { [Int64($0.failures), $0.until] },
                          symbolBackoff: scheduler.symbolBackoff.mapValues { [Int64($0.failures), $0.until] },
                          lastSuccess: scheduler.lastSuccess)
        guard let data = try? JSONEncoder().encode(state) else { return }
        do throws(Errno) {
            try DataFile.replaceAtomically(path: statePath, bytes: Array(data), permissions: 0o600)
        } catch {
            log.write(.warning, "\(statePath): cannot save the request log: \(error)")
        }
    }

    /// `tickerboard-fetch.prom`, replaced atomically so a scrape never reads half of it.
    func saveMetrics(now: Int64) {
        guard mode == .write, let metricsPath else { return }
        let text = metrics.text(names: Array(providers.keys), scheduler: scheduler, version: version, now: now)
        do throws(Errno) {
            // Not made durable: a scrape wants the latest, and an fsync a request wears an SD card.
            try AtomicFile.write(Array(text.utf8), to: metricsPath, permissions: 0o644)
        } catch {
            if logged["metrics"] != "\(error)" { log.write(.warning, "\(metricsPath): cannot write the metrics: \(error)") }
            logged["metrics"] = "\(error)"
        }
    }

    func loadState() {
        guard let bytes = try? FeedFileReader.read(path: statePath, limit: 4 << 20),
            let state = try? decodeJSON(State.self, bytes).get()
        else { return }
        for (name, times) in state.sent where scheduler.budgets[name] != nil {
            scheduler.budgets[name] = RequestBudget(limits: scheduler.budgets[name]!.limits, sent: times)
        }
        func backoff(_ v: [Int64]) -> Backoff? { v.count == 2 ? Backoff(failures: Int(v[0]), until: v[1]) : nil }
        scheduler.providerBackoff = state.providerBackoff.compactMapValues(backoff)
        scheduler.symbolBackoff = state.symbolBackoff.compactMapValues(backoff)
        scheduler.lastSuccess = state.lastSuccess
    }
}
