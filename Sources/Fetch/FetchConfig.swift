// The fetcher's view of tickerboard.conf: the data directory, the instruments that name a symbol
// or providers, the [provider NAME] sections and [fetch]. Sections and keys that belong to the
// display daemon are skipped without a word (the daemon's `check-config` reports on those); the
// syntax of the fetcher's own keys is checked by `FetchSettings` in Feed, the same code the
// daemon's check uses.

import Feed

#if canImport(Glibc)
import Glibc
#endif

/// One instrument the fetcher keeps fresh.
public struct FetchInstrument: Sendable, Equatable {
    public var id: String
    /// The symbol for providers without their own `PROVIDER-symbol` (default: the instrument's name).
    public var symbol: String
    public var providers: [String]
    public var providerSymbols: [String: String] = [:]
    public var dailyFile: String?
    public var intradayFile: String?
    public var timeZone = "America/New_York"
    /// `exchange = MIC`; nil: from the time zone (ExchangeCalendar.forTimeZone).
    public var exchange: String?
    /// Whether the section has its own `time-zone` line (else an `exchange` brings its zone).
    public var timeZoneSet = false
    public var session: SessionHours = .exchange
    public var extendedHours = false
    public var intradaySessions = 5
    /// `price = adjusted`: alerts judge the adjusted close.
    public var adjusted = false
    /// Where the section starts, for messages.
    public var line = 0

    public func symbol(for provider: String) -> String { providerSymbols[provider] ?? symbol }

    public func file(for slot: Slot) -> String? { slot == .daily ? dailyFile : intradayFile }
}

public struct FetchConfig: Sendable, Equatable {
    public var dataDirectory = "/var/lib/tickerboard"
    public var instruments: [FetchInstrument] = []
    /// Every provider the instruments may name: the built-in kinds plus `[provider NAME]` sections.
    public var providers: [String: ProviderSettings] = [:]
    /// `key-file` per provider name (read later, so `--print` and `--check` work without keys).
    public var keyFiles: [String: String] = [:]
    public var policy = SchedulePolicy()
    public var limits = HTTPLimits()
    /// `[alert NAME]` sections, and the `[fetch] alert-command` keys: what runs when one fires.
    public var alerts: [AlertConfig] = []
    public var alertPolicy = AlertCommandPolicy()
    /// Every instrument an alert names (fetched here or not), for its files.
    public var alertInstruments: [FetchInstrument] = []
    /// What `check-config` refuses in the `[alert]` sections (a bad value, no instrument or an
    /// unknown one, no condition): such an alert is not run. `--check` fails on them, as
    /// `check-config` does; the service says them as warnings.
    public var alertIssues: [Issue] = []

    public init() {
        for kind in ProviderKind.all where kind.isBuiltIn {
            providers[kind.name] = ProviderSettings(name: kind.name, kind: kind.name)
        }
    }

    public static let defaultPath = "/etc/tickerboard/tickerboard.conf"

    /// `FILE:LINE: message` problems; errors stop the fetcher, warnings do not.
    public struct Issue: Sendable, Equatable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var message: String
        public var isError: Bool
        public var description: String { "\(file):\(line): \(isError ? "" : "warning: ")\(message)" }
    }

    /// Reads `path` and then its drop-ins (`dropIns`, in order: `ConfigDropIns.files`), as the daemon does.
    /// `refused`: drop-ins not read (`ConfigDropIns.scan`), each said as a warning.
    public static func load(path: String, dropIns: [String] = [], refused: [ConfigDropIns.Refused] = []) -> (FetchConfig, [Issue]) {
        // Within the bounds the daemon keeps too (ConfigSources: issue 54 item 18).
        let read = ConfigSources.read([path] + dropIns)
        if let p = read.unreadable { return (FetchConfig(), [Issue(file: p.file, line: p.line, message: p.message, isError: true)]) }
        let (config, issues) = parse(read.sources)
        let over = read.over.map { [Issue(file: $0.file, line: $0.line, message: $0.message, isError: true)] } ?? []
        // The bound first: it must not be hidden among a file's 40 shown messages.
        let all = refused.map { Issue(file: $0.file, line: 0, message: $0.reason, isError: false) } + over + issues
        return (config, ConfigSources.summarized(all, file: \.file, line: \.line, isError: \.isError, text: \.message,
                                                 make: { Issue(file: $0, line: $1, message: $2, isError: $3) }))
    }

    public static func parse(_ text: String, file: String) -> (FetchConfig, [Issue]) {
        parse([(text, file)])
    }

    /// The main file and its drop-ins, read in order: later files win, sections merge.
    public static func parse(_ sources: [(text: String, file: String)]) -> (FetchConfig, [Issue]) {
        var config = FetchConfig()
        var issues: [Issue] = []
        // Lines are numbered across the files (a drop-in's first line follows the previous file's
        // last), so one number locates a line in any of them.
        var starts: [(first: Int, file: String)] = []
        func located(_ line: Int, _ message: String, error: Bool) -> Issue {
            let source = starts.last { $0.first <= line } ?? (0, sources.first?.file ?? "")
            return Issue(file: source.file, line: line == 0 ? 0 : line - source.first + 1, message: message, isError: error)
        }
        func issue(_ line: Int, _ message: String, error: Bool = true) { issues.append(located(line, message, error: error)) }
        func alertIssue(_ line: Int, _ message: String) { config.alertIssues.append(located(line, message, error: true)) }
        var section = ""
        var instruments: [String: FetchInstrument] = [:]
        var order: [String] = []
        var fetched: Set<String> = []
        var providerLines: [String: Int] = [:]
        var sectionLine = 0
        var alertsByName: [String: AlertConfig] = [:]
        var alertOrder: [String] = []
        var declared: [String: (kind: String?, baseURL: String?, rate: [RateLimit]?, userAgent: String?)] = [:]
        var lineNumber = 0
        for (text, file) in sources {
            starts.append((lineNumber + 1, file))
            section = ""
            for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
                lineNumber += 1
                var line = raw.trimmingCharacters(in: " \t\r")
                if index == 0, line.hasPrefix("\u{FEFF}") { line = String(line.dropFirst()) }
                if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
                if line.hasPrefix("[") {
                    let header = line.hasSuffix("]") ? String(line.dropFirst().dropLast()).trimmingCharacters(in: " \t") : "?"
                    let kind = header.prefix { $0 != " " && $0 != "\t" && $0 != "." }
                    section = kind.lowercased() + header.dropFirst(kind.count)
                    sectionLine = lineNumber
                    if section.hasPrefix("provider ") {
                        if let name = FetchSettings.providerName(ofSection: section) {
                            providerLines[name] = lineNumber
                            if declared[name] == nil { declared[name] = (nil, nil, nil, nil) }
                        } else {
                            issue(lineNumber, "[\(header)]: a provider name is letters, digits, - and _")
                        }
                    }
                    continue
                }
                guard let eq = line.firstIndex(of: "=") else { continue }  // the daemon's check reports it
                let key = line[..<eq].trimmingCharacters(in: " \t").lowercased()
                var value = line[line.index(after: eq)...].trimmingCharacters(in: " \t")
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }

                if section == "data", key == "directory" {
                    config.dataDirectory = value
                } else if section.hasPrefix("instrument ") || section.hasPrefix("instrument.") || section.hasPrefix("fx ") {
                    // An [fx USDEUR] pair is fetched like an instrument whose daily file holds the rate:
                    // its id is fx-USDEUR (status file fx-USDEUR.status), its default symbol Yahoo's
                    // USDEUR=X, its default zone London's (the FX day ends there for most providers).
                    let isFX = section.hasPrefix("fx ")
                    let name = String(section.dropFirst(isFX ? "fx ".count : "instrument ".count)).trimmingCharacters(in: " \t")
                    let pair = name.uppercased().filter { $0 != "/" && $0 != "-" }
                    let id = isFX ? "fx-" + pair : name
                    guard !name.isEmpty else { continue }
                    if instruments[id] == nil {
                        var inst = FetchInstrument(id: id, symbol: isFX ? pair + "=X" : id, providers: [], line: sectionLine)
                        if isFX { inst.timeZone = "Europe/London" }
                        instruments[id] = inst
                        order.append(id)
                    }
                    var inst = instruments[id]!
                    switch key {
                    case "daily", "file": inst.dailyFile = value
                    case "intraday": inst.intradayFile = value
                    case "time-zone", "timezone": inst.timeZone = value; inst.timeZoneSet = true
                    case "exchange": inst.exchange = value  // checked by the daemon's check-config
                    case "price": inst.adjusted = ["adj close", "adjusted", "adj-close"].contains(value.lowercased())
                    default:
                        switch FetchSettings.checkInstrumentKey(key, value) {
                        case .unknown: break  // the daemon's key
                        case .invalid(let message): issue(lineNumber, "\(key): \(message)")
                        case .ok:
                            fetched.insert(id)
                            switch key {
                            case "symbol": inst.symbol = value
                            case "providers": inst.providers = FetchSettings.providerList(value) ?? []
                            case "session": inst.session = FetchSettings.parseSession(value) ?? .exchange
                            case "extended-hours": inst.extendedHours = FetchSettings.parseBool(value) ?? false
                            case "intraday-sessions": inst.intradaySessions = Int(value) ?? 5
                            default: inst.providerSymbols[String(key.dropLast("-symbol".count))] = value
                            }
                        }
                    }
                    instruments[id] = inst
                } else if section.hasPrefix("alert ") {
                    // The daemon's check-config reports every alert key; here a bad value leaves the
                    // alert without it (it is then not run), and a bad command is said.
                    let name = String(section.dropFirst("alert ".count)).trimmingCharacters(in: " \t")
                    guard !name.isEmpty else { continue }
                    if !alertOrder.contains(name) { alertOrder.append(name); alertsByName[name] = AlertConfig(name: name, line: sectionLine) }
                    switch alertsByName[name]!.apply(key, value, file: starts.last { $0.first <= lineNumber }?.file) {
                    case .invalid(let message) where key == "command": issue(lineNumber, "\(key): \(message)")
                    case .invalid(let message): alertIssue(lineNumber, "\(key): \(message)")
                    case .unknown: alertIssue(lineNumber, "\(key): unknown key in [alert \(name)] (known: \(AlertConfig.keys.joined(separator: ", ")))")
                    case .ok: break
                    }
                } else if let name = FetchSettings.providerName(ofSection: section) {
                    switch FetchSettings.checkProviderKey(name: name, key, value) {
                    case .unknown: issue(lineNumber, "\(key): unknown key in [provider \(name)] (known: \(FetchSettings.providerKeys.joined(separator: ", ")))", error: false)
                    case .invalid(let message): issue(lineNumber, "\(key): \(message)")
                    case .ok:
                        switch key {
                        case "kind": declared[name]!.kind = value.lowercased()
                        case "base-url": declared[name]!.baseURL = value
                        case "key-file": config.keyFiles[name] = value
                        case "rate": declared[name]!.rate = FetchSettings.parseRate(value)
                        default: declared[name]!.userAgent = value
                        }
                    }
                } else if section == "fetch" {
                    switch FetchSettings.checkFetchKey(key, value) {
                    case .unknown: issue(lineNumber, "\(key): unknown key in [fetch] (known: \(FetchSettings.fetchKeys.joined(separator: ", ")))", error: false)
                    case .invalid(let message): issue(lineNumber, "\(key): \(message)")
                    case .ok:
                        let seconds = FetchSettings.parseDuration(value) ?? 0
                        switch key {
                        case "intraday-interval": config.policy.intradayInterval = Int64(seconds)
                        case "daily-interval": config.policy.dailyInterval = Int64(seconds)
                        case "after-close": config.policy.afterClose = Int64(seconds)
                        case "timeout": config.limits.totalTimeout = seconds
                        case "alert-command": config.alertPolicy.command = (try? AlertCommand.split(value).get()) ?? []
                        case "alert-command-timeout": config.alertPolicy.timeout = Int64(seconds)
                        case "alert-command-interval": config.alertPolicy.interval = Int64(seconds)
                        case "alert-command-rate": config.alertPolicy.rate = FetchSettings.parseRate(value) ?? config.alertPolicy.rate
                        default: config.limits.maximumBody = FetchSettings.parseSize(value) ?? config.limits.maximumBody
                        }
                    }
                }
            }
        }

        for (name, d) in declared {
            let line = providerLines[name] ?? 0
            guard let kind = d.kind ?? (FetchSettings.providerKinds.contains(name) ? name : nil) else {
                issue(line, "[provider \(name)] needs kind = one of \(FetchSettings.providerKinds.joined(separator: ", "))")
                continue
            }
            if ProviderKind.named(kind)?.isBuiltIn == false && d.baseURL == nil {
                issue(line, "[provider \(name)] (\(kind)) needs base-url = the URL of the directory with the CSV files")
            }
            config.providers[name] = ProviderSettings(name: name, kind: kind, baseURL: d.baseURL, rate: d.rate, userAgent: d.userAgent)
        }

        config.alerts = alertOrder.compactMap { alertsByName[$0] }
        for alert in config.alerts {
            if let id = alert.instrument {
                if instruments[id] == nil {
                    alertIssue(alert.line, "[alert \(alert.name)] instrument: no [instrument \(id)] (it has: \(order.joined(separator: " ")))")
                }
            } else {
                alertIssue(alert.line, "[alert \(alert.name)] needs instrument = ID")
            }
            if alert.condition == nil { alertIssue(alert.line, "[alert \(alert.name)] needs one of above =, below =, move = or stale =") }
        }
        let named = Set(config.alerts.compactMap(\.instrument))
        config.alertInstruments = order.filter { named.contains($0) }.compactMap { instruments[$0] }
        if !config.dataDirectory.hasPrefix("/") { issue(0, "[data] directory must be an absolute path") }
        for id in order where fetched.contains(id) {
            var inst = instruments[id]!
            if inst.providers.isEmpty { inst.providers = ProviderKind.defaultProviders }
            for name in inst.providers {
                guard let settings = config.providers[name] else {
                    let builtIn = ProviderKind.all.filter(\.isBuiltIn).map(\.name).joined(separator: ", ")
                    issue(inst.line, "[instrument \(id)] providers: no provider \"\(name)\" (built in: \(builtIn); others need a [provider \(name)] section)")
                    continue
                }
                // The crypto adapters need a pair (BTC-EUR): an [instrument BTC] without one is said here, not by each request.
                if let why = Providers.symbolProblem(settings, symbol: inst.symbol(for: name)) {
                    issue(inst.line, "[instrument \(id)] \(why)")
                }
            }
            if inst.dailyFile == nil && inst.intradayFile == nil {
                issue(inst.line, "[instrument \(id)] names a symbol but no file: add daily = \(id).csv and/or intraday = \(id)-1m.csv")
            }
            if (try? ExchangeTimeZone(identifier: inst.timeZone)) == nil && inst.timeZone != "UTC" {
                issue(inst.line, "[instrument \(id)] time-zone \"\(inst.timeZone)\" is not in the tz database")
            }
            config.instruments.append(inst)
        }
        return (config, issues)
    }

    /// `file` resolved against the data directory.
    public func path(of file: String) -> String {
        if file.hasPrefix("/") { return file }
        return dataDirectory.hasSuffix("/") ? dataDirectory + file : dataDirectory + "/" + file
    }
}
