import Chart
import Feed
import KioskCore
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// Live market data: watches the CSV files of the configured instruments and reports a fresh
/// `PriceSeries` whenever one of them changes on disk.
///
/// Why the *directory* is watched and not the file: the recommended way to update a data file is to
/// write a temporary file and `rename(2)` it over the old one (atomic replace). A watch on the file
/// itself follows the old inode, which is gone after the rename; a watch on the directory sees the
/// new name arrive (`IN_MOVED_TO`) as well as in-place rewrites (`IN_CLOSE_WRITE`), new files
/// (`IN_CREATE`) and deletions (`IN_DELETE`).
///
/// Why debounced: a writer that creates, writes and closes a file produces a burst of events, and a
/// file being appended to is incomplete until it is closed. A change is parsed once the file has
/// been quiet for `debounce`, but never later than `maxDelay` after the first event, so a file that
/// is rewritten without pause still updates.
///
/// Why the last good series is kept: a wall ticker must never go blank because a fetch script
/// crashed half-way. A file that cannot be parsed, or that parses but lost more than half its rows
/// compared with the last good version (a half-written file), does not replace what is shown. The
/// problem is logged once per distinct message, not once per event. A shorter file that stays the
/// same for `confirmShrinkAfter` is taken as deliberate (the user trimmed history) and accepted.
///
/// Wiring (the daemon): `loop.watch(live.pollDescriptor) { _ in live.handleReadable() }`. The
/// descriptor is an epoll instance holding the inotify descriptor and a timerfd for the debounce,
/// so the daemon watches one descriptor and nothing runs between changes.
public final class LiveData {
    /// Which of an instrument's two files changed.
    public typealias Slot = Feed.Slot

    public typealias Source = DataSources.Source
    public typealias Update = DataSources.Update
    public typealias Verdict = DataSources.Verdict

    // MARK: State

    public let sources: [Source]
    public let debounce: Duration
    public let maxDelay: Duration
    public let confirmShrinkAfter: Duration
    /// The last series accepted per path.
    public private(set) var lastGood: [String: PriceSeries] = [:]

    private let onUpdate: (Update) -> Void
    private let log: (String) -> Void
    private let clock: () -> UInt64
    private let inotify: Inotify
    private let timer: TimerFD
    private let epoll: Epoll
    /// Directory watches: which directory each watch is, and which file names in it matter.
    /// (One watch can stand for several names of a directory: a link to it and the real path.)
    private var watchedDirectories: [Inotify.Watch: Set<String>] = [:]
    private var pathsByDirectory: [String: Set<String>] = [:]
    /// Names that lead to the data through symbolic links, by the directory they are in: the real
    /// place of a linked file (its changes are the file's), and links on the way to a data
    /// directory (`data -> release-N`: when one is re-pointed every watch is made again).
    private var linkInterests: [String: [String: LinkInterest]] = [:]
    private enum LinkInterest: Equatable { case file(String), relink }
    /// Files waiting for their debounce: when the first event came and when to parse.
    private var pending: [String: (first: UInt64, due: UInt64)] = [:]
    /// A shorter file seen once; accepted if it is still the same at the re-check.
    private var shrinkCandidate: [String: PriceSeries] = [:]
    /// The last problem logged per path, so one broken file is one log line, not one per event.
    private var lastProblem: [String: String] = [:]
    /// Directories that could not be watched (not there yet, removed): retried every
    /// `watchRetry` until they can, then their files are read at once.
    private var unwatchedDirectories: Set<String> = []
    private var watchRetryDue: UInt64?
    public let watchRetry: Duration = .seconds(2)
    private let mask: Inotify.Mask = [.closeWrite, .movedTo, .create, .delete, .movedFrom]

    /// The current problem of each file that has one (path -> message): unreadable, garbage,
    /// suspiciously short, or rows skipped.
    public var problems: [String: String] { lastProblem }

    /// Called with each new problem (path, message) instead of logging it, when set: the daemon
    /// words it with the config line that names the file.
    public var onProblem: ((String, String) -> Void)?

    /// The fetcher's status file of each instrument (`ID.status` beside the data): path -> id.
    public private(set) var statusFiles: [String: String] = [:]
    /// Called with an instrument's fetch status whenever its file changes (nil: gone or garbage).
    public var onStatus: ((String, FetchStatus?) -> Void)?

    /// The descriptor to watch for readability; then call ``handleReadable()``.
    public var pollDescriptor: CInt { epoll.descriptor.rawValue }

    /// Watches the directories of `sources`. A directory that does not exist (yet) is logged and
    /// skipped: the rest keeps working.
    public init(sources: [Source], debounce: Duration = .milliseconds(300), maxDelay: Duration = .seconds(2),
                confirmShrinkAfter: Duration = .seconds(60), clock: @escaping () -> UInt64 = MonotonicClock.now,
                log: @escaping (String) -> Void = { Log.warning("data: \($0)") },
                onUpdate: @escaping (Update) -> Void) throws(Errno) {
        self.sources = sources
        self.debounce = debounce
        self.maxDelay = maxDelay
        self.confirmShrinkAfter = confirmShrinkAfter
        self.clock = clock
        self.log = log
        self.onUpdate = onUpdate
        inotify = try Inotify()
        timer = try TimerFD()
        epoll = try Epoll()
        try epoll.add(inotify.descriptor.rawValue, events: .readable, token: 1)
        try epoll.add(timer.descriptor.rawValue, events: .readable, token: 2)
        for source in sources {
            let (directory, name) = DataSources.split(source.path)
            pathsByDirectory[directory, default: []].insert(name)
            // The fetcher's status for the instrument lives beside its data files.
            let status = FetchStatus.path(forInstrument: source.instrumentID, in: directory)
            statusFiles[status] = source.instrumentID
            pathsByDirectory[directory, default: []].insert(DataSources.split(status).name)
        }
        linkInterests = Self.linkInterests(of: Array(statusFiles.keys) + sources.map(\.path))
        for directory in Set(pathsByDirectory.keys).union(linkInterests.keys).sorted() where !addWatch(directory) {
            log("cannot watch \(directory) yet; looking again every \(watchRetry.components.seconds) s")
            unwatchedDirectories.insert(directory)
        }
        if !unwatchedDirectories.isEmpty {
            watchRetryDue = clock() &+ UInt64(watchRetry.wholeNanoseconds)
            armTimer(now: clock())
        }
    }

    private func addWatch(_ directory: String) -> Bool {
        guard let watch = try? inotify.addWatch(directory, mask: mask) else { return false }
        watchedDirectories[watch, default: []].insert(directory)
        return true
    }

    /// For each path that goes through a symbolic link: the link's own directory and name (a
    /// re-pointed link re-makes the watches), and for a linked file its real directory and name.
    private static func linkInterests(of paths: [String]) -> [String: [String: LinkInterest]] {
        var out: [String: [String: LinkInterest]] = [:]
        for path in paths {
            var prefix = ""
            for component in path.split(separator: "/") {
                prefix += "/" + component
                guard FileSystem.readLink(prefix) != nil else { continue }
                let (directory, name) = DataSources.split(prefix)
                if prefix == path {
                    // The file itself is a link: its own name (re-pointed) and its target's.
                    out[directory, default: [:]][name] = .relink
                    if let real = FileSystem.realPath(path) {
                        let (realDirectory, realName) = DataSources.split(real)
                        if out[realDirectory]?[realName] == nil { out[realDirectory, default: [:]][realName] = .file(path) }
                    }
                } else {
                    out[directory, default: [:]][name] = .relink
                }
            }
        }
        return out
    }

    /// A link on the way to the data was re-pointed: every watch is made again from the paths as
    /// they resolve now, and every file is read again.
    private func relink(now: UInt64) {
        for watch in watchedDirectories.keys { try? inotify.removeWatch(watch) }
        watchedDirectories = [:]
        unwatchedDirectories = []
        linkInterests = Self.linkInterests(of: Array(statusFiles.keys) + sources.map(\.path))
        for directory in Set(pathsByDirectory.keys).union(linkInterests.keys).sorted() where !addWatch(directory) {
            unwatchedDirectories.insert(directory)
        }
        if !unwatchedDirectories.isEmpty, watchRetryDue == nil { watchRetryDue = now &+ UInt64(watchRetry.wholeNanoseconds) }
        for source in sources { schedule(source.path, now: now) }
        for path in statusFiles.keys { schedule(path, now: now) }
    }

    /// Tries the directories that could not be watched; a directory that appeared has its files
    /// read now (they may have arrived with it).
    private func retryWatches(now: UInt64) {
        watchRetryDue = nil
        for directory in unwatchedDirectories.sorted() where addWatch(directory) {
            unwatchedDirectories.remove(directory)
            log("watching \(directory) again")
            for name in pathsByDirectory[directory] ?? [] { schedule(DataSources.resolve(name, in: directory), now: now) }
        }
        if !unwatchedDirectories.isEmpty { watchRetryDue = now &+ UInt64(watchRetry.wholeNanoseconds) }
    }

    /// Takes over what an earlier instance (before a reload) knew was good, for the files both watch.
    public func inherit(from other: LiveData) {
        for source in sources { if let series = other.lastGood[source.path] { lastGood[source.path] = series } }
    }

    /// Convenience: the sources of `config`.
    public convenience init(config: Config, debounce: Duration = .milliseconds(300),
                            log: @escaping (String) -> Void = { Log.warning("data: \($0)") },
                            onUpdate: @escaping (Update) -> Void) throws(Errno) {
        try self.init(sources: DataSources.sources(for: config), debounce: debounce, log: log, onUpdate: onUpdate)
    }

    /// Parses every source now (start-up), keeping the good ones as baselines. Problems are logged
    /// once each; the returned updates are the series that loaded.
    /// `progress(done, total)` is called after each file: reading a hundred files at the row limit
    /// takes a minute, and the caller keeps systemd informed meanwhile.
    public func loadAll(progress: (Int, Int) -> Void = { _, _ in }) -> [Update] {
        for (path, id) in statusFiles.sorted(by: { $0.key < $1.key }) { onStatus?(id, FetchStatus.load(path: path)) }
        var out: [Update] = []
        var seen = Set<String>()
        for (i, source) in sources.enumerated() {
            if seen.insert(source.path).inserted { out += check(path: source.path) }
            progress(i + 1, sources.count)
        }
        return out
    }

    // MARK: Events

    /// Reads what is queued (file events, the debounce timer), parses the files that are due and
    /// reports each new series through `onUpdate`. Never blocks.
    public func handleReadable() {
        let events: [Inotify.Event]
        do { events = try inotify.readEvents() } catch {
            log("reading file events failed: \(error)")
            events = []
        }
        _ = try? timer.readExpirations()
        note(events)
        flushDue()
    }

    /// Marks the files named in `events` as changed (tests feed events here directly).
    public func note(_ events: [Inotify.Event]) {
        let now = clock()
        for event in events {
            if event.mask.contains(.overflow) {
                // The kernel dropped events: re-check everything.
                for source in sources { schedule(source.path, now: now) }
                continue
            }
            guard let directories = watchedDirectories[event.watch] else { continue }
            if event.mask.contains(.ignored) {
                for directory in directories.sorted() {
                    log("\(directory) was removed or unmounted; watching for it to come back")
                    unwatchedDirectories.insert(directory)
                }
                watchedDirectories[event.watch] = nil
                if watchRetryDue == nil { watchRetryDue = now &+ UInt64(watchRetry.wholeNanoseconds) }
                continue
            }
            guard let name = event.name else { continue }
            var relinked = false
            for directory in directories.sorted() {
                if pathsByDirectory[directory]?.contains(name) == true { schedule(DataSources.resolve(name, in: directory), now: now) }
                switch linkInterests[directory]?[name] {
                case .file(let path): schedule(path, now: now)
                case .relink: relinked = true
                case nil: break
                }
            }
            if relinked { relink(now: now) }
        }
        armTimer(now: now)
    }

    /// Parses the files whose debounce has run out; returns when the next one is due (monotonic ns).
    @discardableResult
    public func flushDue() -> UInt64? {
        let now = clock()
        if let due = watchRetryDue, due <= now { retryWatches(now: now) }
        let due = pending.filter { $0.value.due <= now }.map(\.key).sorted()
        for path in due {
            pending[path] = nil
            if let id = statusFiles[path] { onStatus?(id, FetchStatus.load(path: path)) }
            for update in check(path: path) { onUpdate(update) }
        }
        armTimer(now: now)
        return nextDeadline
    }

    /// When the next parse or watch retry is due (monotonic ns), or nil when nothing is pending.
    public var nextDeadline: UInt64? { (pending.values.map(\.due) + [watchRetryDue].compactMap { $0 }).min() }

    private func schedule(_ path: String, now: UInt64) {
        let debounceNanos = UInt64(debounce.wholeNanoseconds)
        let maxNanos = UInt64(maxDelay.wholeNanoseconds)
        let first = pending[path]?.first ?? now
        pending[path] = (first, min(now &+ debounceNanos, first &+ maxNanos))
    }

    private func armTimer(now: UInt64) {
        if let next = nextDeadline {
            try? timer.arm(initial: .nanoseconds(Int64(next > now ? next - now : 1)))
        } else {
            try? timer.disarm()
        }
    }

    /// Parses the file at `path` once and gives every instrument that names it the series (two
    /// `[instrument]` sections may share a file: the second waited for ever when the first's
    /// reading had made the file "unchanged").
    private func check(path: String) -> [Update] {
        let sharing = sources.filter { $0.path == path }
        guard let first = sharing.first, let update = check(first) else { return [] }
        return [update] + sharing.dropFirst().map { source in
            var series = update.series
            series.priceField = source.priceField
            return Update(instrumentID: source.instrumentID, slot: source.slot, path: path, series: series)
        }
    }

    /// Parses one source and applies the verdict; returns an update when the series changed.
    private func check(_ source: Source) -> Update? {
        let path = source.path
        // Complete lines only: a row being appended this moment must not show as a price.
        let result = Result { () throws(FeedError) in
            try YahooCSV.load(path: path, priceField: source.priceField, completeLinesOnly: true)
        }
        let verdict = DataSources.judge(result, lastGood: lastGood[path], path: path)
        switch verdict {
        case .unchanged:
            shrinkCandidate[path] = nil
            clearProblem(path)
            return nil
        case .keep(let message):
            report(path, message)
            return nil
        case .suspiciouslyShort(let series, let message):
            if let candidate = shrinkCandidate[path], candidate == series {
                // Unchanged since the last look: the user meant it.
                shrinkCandidate[path] = nil
                log("\(path): accepting the shorter file (\(series.count) rows), unchanged for "
                    + "\(confirmShrinkAfter.components.seconds) s")
                return accept(source, series, result)
            }
            shrinkCandidate[path] = series
            report(path, message)
            // Look again later: a half-written file will have been completed (or replaced) by then.
            let now = clock()
            pending[path] = (now, now &+ UInt64(confirmShrinkAfter.wholeNanoseconds))
            return nil
        case .accept(let series):
            return accept(source, series, result)
        }
    }

    private func accept(_ source: Source, _ series: PriceSeries,
                        _ result: Result<(PriceSeries, ParseReport), FeedError>) -> Update {
        shrinkCandidate[source.path] = nil
        lastGood[source.path] = series
        if case .success(let (_, parseReport)) = result, let message = parseReport.message {
            report(source.path, message)  // skipped rows: said once, the good rows are shown
        } else {
            clearProblem(source.path)
        }
        return Update(instrumentID: source.instrumentID, slot: source.slot, path: source.path, series: series)
    }

    private func report(_ path: String, _ message: String) {
        guard lastProblem[path] != message else { return }
        lastProblem[path] = message
        if let onProblem { onProblem(path, message) } else { log(message) }
    }

    private func clearProblem(_ path: String) {
        if lastProblem[path] != nil {
            lastProblem[path] = nil
            log("\(path): good again")
        }
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `Int64` (negative durations count as zero).
    var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        if seconds >= Int64.max / 1_000_000_000 { return Int64.max }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
