// The `tickerboard-fetch` command line.

import Feed

#if canImport(Glibc)
import Glibc
#endif

public enum FetchCommand {
    public static let help = """
        tickerboard-fetch: keeps Tickerboard's price files fresh from market-data providers

        usage: tickerboard-fetch [--config FILE] [--metrics FILE|off]
                                                             run as a service (the default)
               tickerboard-fetch --once [--config FILE]      fetch every instrument once, then exit
               tickerboard-fetch --dry-run [--config FILE]   like --once, but write nothing
               tickerboard-fetch --provider NAME --symbol SYMBOL --print [--intraday] [--base-url URL]
                                                             show the CSV it would write, write nothing
               tickerboard-fetch --check [--config FILE]     check the fetcher's part of the config
               tickerboard-fetch --version                   print the version

        The config is tickerboard.conf (default /etc/tickerboard/tickerboard.conf) and then its drop-ins,
        conf.d/*.conf beside it in lexical order (--config-dir DIR for another directory):
          [instrument AAPL]  symbol = AAPL, providers = yahoo stooq, daily = AAPL.csv, intraday = AAPL-1m.csv
                             stooq-symbol = aapl.us, session = auto | 24/7 | Mon-Fri 09:00-17:30,
                             extended-hours = no, intraday-sessions = 5
          [instrument BTC]   symbol = BTC-EUR (a pair: coinbase, kraken, binance, coingecko need no key),
                             providers = coinbase kraken, session = 24/7
          [provider NAME]    kind = yahoo|stooq|alphavantage|twelvedata|http-csv|coinbase|kraken|binance|
                             coingecko, base-url = URL,
                             key-file = /etc/tickerboard/keys/NAME | credential:NAME, rate = 5/min 500/day
          [fetch]            intraday-interval = 1min, daily-interval = 15min, after-close = 20min,
                             timeout = 30s, max-body = 8M,
                             alert-command = /usr/local/bin/notify ARG…, alert-command-timeout = 30s,
                             alert-command-interval = 15min, alert-command-rate = 10/hour
          [alert NAME]       instrument = ID, above|below = PRICE, move = 5%, stale = 30m,
                             command = /path/prog ARG… (or none): run without a shell when it fires
        --metrics FILE: requests, failures and rate-limit answers per provider for Prometheus
        (node_exporter's textfile format), rewritten after each request; default
        $RUNTIME_DIRECTORY/tickerboard-fetch.prom under systemd (/run/tickerboard-fetch/), else off.
        Keys: $CREDENTIALS_DIRECTORY/NAME (systemd LoadCredential=NAME:FILE) or key-file (mode 600).

        exit status: 0 all fetched (or unchanged), 1 some failed (their files were left as they were),
                     2 usage or configuration error, 3 some deferred by the request budget or backoff
        """

    public static func main(_ arguments: [String], environment: [String: String], version: String = "unknown") -> Int32 {
        ProcessResources.ignoreBrokenPipes()
        var configPath: String?
        var configDirectory: String?
        /// The drop-ins read after the config: `--config-dir`, else `conf.d` beside the config.
        func dropIns(_ path: String) -> (files: [String], refused: [ConfigDropIns.Refused]) {
            ConfigDropIns.scan(configDirectory ?? ConfigDropIns.defaultDirectory(for: path))
        }
        var once = false, dryRun = false, print = false, check = false, intraday = false
        var providerName: String?, symbol: String?, baseURL: String?, metrics: String?
        var args = arguments[...]
        func value(_ option: String) -> String? {
            guard let v = args.popFirst(), !v.hasPrefix("--") else {
                usage("\(option) needs a value")
                return nil
            }
            return v
        }
        while let arg = args.popFirst() {
            switch arg {
            case "--help", "-h": printOut(help); return 0
            case "--config": guard let v = value(arg) else { return 2 }; configPath = v
            case "--config-dir": guard let v = value(arg) else { return 2 }; configDirectory = v
            case "--once": once = true
            case "--dry-run": dryRun = true
            case "--print": print = true
            case "--check": check = true
            case "--intraday": intraday = true
            case "--provider": guard let v = value(arg) else { return 2 }; providerName = v
            case "--symbol": guard let v = value(arg) else { return 2 }; symbol = v
            case "--base-url": guard let v = value(arg) else { return 2 }; baseURL = v
            case "--metrics": guard let v = value(arg) else { return 2 }; metrics = v
            default: usage("unknown argument \"\(arg)\""); return 2
            }
        }
        if print != (providerName != nil && symbol != nil) || (print && (once || dryRun)) {
            usage(print ? "--print needs --provider NAME and --symbol SYMBOL, and no --once/--dry-run"
                : "--provider and --symbol go with --print")
            return 2
        }
        if let baseURL, !FetchSettings.isHTTPURL(baseURL) { usage("--base-url: expected an http:// or https:// URL"); return 2 }

        // --print works without a config file: the built-in providers need none (a key still helps).
        let path = configPath ?? FetchConfig.defaultPath
        let scan = dropIns(path)
        var (config, issues): (FetchConfig, [FetchConfig.Issue]) = (print && configPath == nil && !FileSystem.isReadable(path))
            ? (FetchConfig(), []) : FetchConfig.load(path: path, dropIns: scan.files, refused: scan.refused)
        for issue in issues { printError("\(issue)") }
        if issues.contains(where: \.isError) { return 2 }

        if print {
            return printOne(config: &config, provider: providerName!, symbol: symbol!, intraday: intraday,
                            baseURL: baseURL, environment: environment)
        }
        if check {
            let fetcher = Fetcher(config: config, transport: NoTransport(), mode: .dryRun, environment: environment)
            for problem in fetcher.setupProblems { printError("\(path): \(problem)") }
            for issue in config.alertIssues { printError("\(issue)") }
            for job in fetcher.jobs {
                printOut("\(job.id.instrument) \(job.id.slot): \(job.providers.joined(separator: " then "))")
            }
            if fetcher.jobs.isEmpty { printOut("\(path): no instrument names a symbol or providers: nothing to fetch") }
            return fetcher.setupProblems.isEmpty && config.alertIssues.isEmpty ? 0 : 2
        }
        // What an alert command leaves running (a daemon it forked) becomes ours, not init's: it is
        // found, given the command's time and killed with it, and at the end.
        if !dryRun { ChildProcess.becomeSubreaper() }
        let fetcher = Fetcher(config: config, mode: dryRun ? .dryRun : .write, environment: environment)
        for problem in fetcher.setupProblems { printError(problem) }
        for issue in config.alertIssues { printError("\(issue.file):\(issue.line): warning: \(issue.message); this alert is not judged") }
        if fetcher.jobs.isEmpty {
            printError("\(path): no instrument names a symbol or providers (see tickerboard-fetch --help)")
            return 2
        }
        if once || dryRun {
            let report = fetcher.runOnce(clock: { Int64(time(nil)) })
            printError("tickerboard-fetch: \(report.succeeded.count) fetched, \(report.failed.count) failed, \(report.deferred.count) deferred"
                + (dryRun ? " (dry run: nothing written)" : ""))
            // The alerts are judged on what was written, as the service does, and their commands run
            // to their end (or their timeout): `--once` is how a new alert command is tried.
            if !dryRun {
                fetcher.judgeAlertsOnce(clock: { Int64(time(nil)) })
                fetcher.alertHooks?.killAll()
            }
            return !report.failed.isEmpty ? 1 : !report.deferred.isEmpty ? 3 : 0
        }
        let service = fetcher
        service.version = version
        // systemd's RuntimeDirectory= (the unit's /run/tickerboard-fetch) is where the file goes by
        // default; by hand there is no such place, and none is made up.
        let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init)
        service.metricsPath = metrics == "off" ? nil : metrics ?? runtime.map { $0 + "/tickerboard-fetch.prom" }
        return runService(initial: service, path: path, dropIns: { dropIns(path) }, environment: environment)
    }

    /// The service: SIGHUP re-reads the config (a config with errors keeps the running one),
    /// SIGTERM/SIGINT end it after the current request.
    static func runService(initial: Fetcher, path: String, dropIns: () -> (files: [String], refused: [ConfigDropIns.Refused]),
                           environment: [String: String]) -> Int32 {
        // Sleeps end on a signal, or when the wall clock is set: the schedule is in wall time, and
        // after an NTP step (a board that booted with its clock behind) a sleep of up to an hour
        // on the monotonic clock would fetch nothing for that hour.
        let loop: EventLoop, signalFD: SignalFD
        do {
            loop = try EventLoop()
            // SIGCHLD ends a wait when an alert command ends, so it is collected at once.
            signalFD = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP, SIGCHLD])
        } catch {
            FetchLog.standardError.write(.error, "tickerboard-fetch: cannot set up the wait for signals: \(error)")
            return 1
        }
        var received: CInt?
        var stepped = false
        _ = try? loop.watch(signalFD.descriptor.rawValue) { _ in
            while let info = try? signalFD.next() {
                if received != SIGTERM && received != SIGINT && info.signal != SIGCHLD { received = info.signal }
            }
        }
        let steps = try? ClockStepWatch()
        if let steps {
            _ = try? loop.watch(steps.descriptor.rawValue) { _ in if (try? steps.clockWasSet()) == true { stepped = true } }
        }
        var fetcher = initial
        _ = try? SystemdNotifyShim.send("READY=1\nSTATUS=fetching \(fetcher.jobs.count) files")
        FetchLog.standardError.write(.info, "tickerboard-fetch: keeping \(fetcher.jobs.count) files fresh in \(fetcher.config.dataDirectory)")
        while true {
            var reload = false
            fetcher.runForever(clock: { Int64(time(nil)) }, sleep: { seconds in
                received = nil
                stepped = false
                _ = try? loop.runOnce(timeout: .seconds(seconds))
                if stepped { FetchLog.standardError.write(.notice, "tickerboard-fetch: the wall clock was set; deciding again") }
                if received == SIGHUP { reload = true; return false }
                return received != SIGTERM && received != SIGINT
            })
            guard reload else {
                fetcher.alertHooks?.killAll()
                return 0
            }
            let scan = dropIns()
            let (config, issues) = FetchConfig.load(path: path, dropIns: scan.files, refused: scan.refused)
            for issue in issues { FetchLog.standardError.write(issue.isError ? .error : .warning, "\(issue)") }
            if issues.contains(where: \.isError) {
                FetchLog.standardError.write(.error, "\(path): errors, keeping the running configuration")
                continue
            }
            let previous = fetcher
            fetcher = Fetcher(config: config, mode: .write, environment: environment)
            (fetcher.metrics, fetcher.metricsPath, fetcher.version) = (previous.metrics, previous.metricsPath, previous.version)
            // The commands the old configuration started are still collected (and killed when late).
            if let old = previous.alertHooks {
                fetcher.alertHooks = AlertHooks.afterReload(old: old, new: AlertHooks(config: config, statePath: fetcher.alertStatePath))
            }
            FetchLog.standardError.write(.info, "tickerboard-fetch: configuration reloaded, \(fetcher.jobs.count) files")
        }
    }

    static func printOne(config: inout FetchConfig, provider name: String, symbol: String, intraday: Bool,
                         baseURL: String?, environment: [String: String]) -> Int32 {
        guard var settings = config.providers[name] ?? (FetchSettings.providerKinds.contains(name)
            ? ProviderSettings(name: name, kind: name) : nil)
        else {
            usage("--provider: no provider \"\(name)\" (built in: \(FetchSettings.providerKinds.joined(separator: ", ")))")
            return 2
        }
        if let baseURL { settings.baseURL = baseURL }
        guard FetchSettings.isValidSymbol(symbol) else { usage("--symbol: \"\(symbol)\" is not a ticker symbol"); return 2 }
        if let why = Providers.symbolProblem(settings, symbol: symbol) { usage("--symbol: \(why)"); return 2 }
        if settings.baseURL.isEmpty { usage("--provider \(name): \(settings.kind) needs --base-url"); return 2 }
        let slot: Slot = intraday ? .intraday : .daily
        // Print into a scratch configuration: one instrument, nothing written.
        var scratch = config
        scratch.providers[name] = settings
        let file = intraday ? "\(symbol)-1m.csv" : "\(symbol).csv"
        let existing = config.instruments.first { $0.symbol(for: name) == symbol }
        var inst = existing ?? FetchInstrument(id: symbol, symbol: symbol, providers: [name])
        inst.providers = [name]
        if existing == nil { inst.dailyFile = file; inst.intradayFile = file; scratch.dataDirectory = "/nonexistent-tickerboard-print" }
        scratch.instruments = [inst]
        let fetcher = Fetcher(config: scratch, mode: .dryRun, environment: environment, log: FetchLog { _, _ in })
        for problem in fetcher.setupProblems { printError(problem) }
        let result = fetcher.perform(JobID(instrument: inst.id, slot: slot), provider: name, now: Int64(time(nil)))
        switch result.outcome {
        case .success(let summary):
            let text = String(decoding: summary.rendered, as: UTF8.self)
            printOut(fetcher.redact(text), terminator: "")
            printError("\(symbol) from \(name): \(summary.bars) \(slot) bars (printed, nothing written)")
            return 0
        case .failure(let problem):
            printError(fetcher.redact("\(symbol) from \(name): \(problem)"))
            return 1
        }
    }

    static func usage(_ message: String) { printError("tickerboard-fetch: \(message) (see tickerboard-fetch --help)") }

    static func printOut(_ text: String, terminator: String = "\n") {
        StandardStream.output.write(text + terminator)
    }

    static func printError(_ text: String) {
        StandardStream.error.write(text + "\n")
    }
}

/// For `--check`: no request may leave.
struct NoTransport: HTTPTransport {
    func get(_ request: HTTPRequest) -> Result<HTTPResponse, TransportError> { .failure(.other("no network in --check")) }
}

import LinuxIO

enum SystemdNotifyShim {
    static func send(_ text: String) throws(Errno) { _ = try SystemdNotify.send(text) }
}
