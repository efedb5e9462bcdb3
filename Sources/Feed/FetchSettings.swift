// The syntax of the fetcher's keys in tickerboard.conf (`[instrument X] symbol/providers/...`,
// `[provider NAME]`, `[fetch]`), in one place that both sides use: the fetcher to build its
// settings, the daemon's `check-config` to validate a file without linking the fetcher.

/// At most `count` requests in any `seconds`-long window.
public struct RateLimit: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var count: Int
    public var seconds: Int

    public init(count: Int, seconds: Int) {
        self.count = count
        self.seconds = seconds
    }

    public var description: String {
        switch seconds {
        case 60: return "\(count)/min"
        case 3600: return "\(count)/hour"
        case 86_400: return "\(count)/day"
        default: return "\(count)/\(seconds)s"
        }
    }
}

/// When an instrument trades, for refresh planning.
public enum SessionHours: Sendable, Equatable {
    /// From the instrument's exchange calendar (`exchange = MIC`, else the one of its time zone:
    /// holidays, early closes); Monday to Friday 09:00-17:30 local for a zone without one.
    case exchange
    /// Around the clock, every day (crypto).
    case always
    /// The given weekdays (0 = Sunday), `open..<close` in local seconds of the day.
    case weekly(days: Set<Int>, open: Int, close: Int)
}

/// The outcome of checking one key.
public enum FetchKeyCheck: Sendable, Equatable {
    case ok
    case invalid(String)
    /// Not a fetcher key: the caller reports it as unknown.
    case unknown
}

public enum FetchSettings {
    /// Provider kinds the fetcher has adapters for.
    public static let providerKinds = ProviderKind.all.map(\.name)
    /// `[instrument X]` keys the fetcher reads (the daemon ignores them), plus `PROVIDER-symbol`.
    public static let instrumentKeys = ["symbol", "providers", "session", "extended-hours", "intraday-sessions"]
    public static let providerKeys = ["kind", "base-url", "key-file", "rate", "user-agent"]
    public static let fetchKeys = ["intraday-interval", "daily-interval", "after-close", "timeout", "max-body",
                                   "alert-command", "alert-command-timeout", "alert-command-interval", "alert-command-rate"]

    /// Is `key = value` valid in an `[instrument X]` section as far as the fetcher is concerned?
    public static func checkInstrumentKey(_ key: String, _ value: String) -> FetchKeyCheck {
        switch key {
        case "symbol":
            return isValidSymbol(value) ? .ok : .invalid("expected a ticker symbol like AAPL, ^GSPC or BTC-USD, found \"\(value)\"")
        case "providers":
            return providerList(value) == nil
                ? .invalid("expected provider names separated by spaces, like \"yahoo stooq\", found \"\(value)\"") : .ok
        case "session":
            return parseSession(value) == nil
                ? .invalid("expected auto, 24/7 or days and hours like \"Mon-Fri 09:00-17:30\", found \"\(value)\"") : .ok
        case "extended-hours":
            return parseBool(value) == nil ? .invalid("expected yes or no, found \"\(value)\"") : .ok
        case "intraday-sessions":
            guard let n = Int(value), (1...30).contains(n) else {
                return .invalid("expected a number of sessions from 1 to 30, found \"\(value)\"")
            }
            return .ok
        default:
            if key.hasSuffix("-symbol"), isValidProviderName(String(key.dropLast("-symbol".count))) {
                return isValidSymbol(value) ? .ok : .invalid("expected a ticker symbol, found \"\(value)\"")
            }
            return .unknown
        }
    }

    /// Is `key = value` valid in a `[provider NAME]` section?
    public static func checkProviderKey(name: String, _ key: String, _ value: String) -> FetchKeyCheck {
        switch key {
        case "kind":
            return providerKinds.contains(value.lowercased()) ? .ok
                : .invalid("expected one of \(providerKinds.joined(separator: ", ")), found \"\(value)\"")
        case "base-url":
            return isHTTPURL(value) ? .ok : .invalid("expected an http:// or https:// URL, found \"\(value)\"")
        case "key-file":
            return value.hasPrefix("/") || value.hasPrefix("credential:") ? .ok
                : .invalid("expected an absolute path or credential:NAME (systemd LoadCredential=), found \"\(value)\"")
        case "rate":
            return parseRate(value) == nil
                ? .invalid("expected limits like \"5/min 500/day\" (per s, min, hour or day), found \"\(value)\"") : .ok
        case "user-agent":
            return value.isEmpty || value.unicodeScalars.contains { $0.value < 0x20 } ? .invalid("expected one line of text") : .ok
        default:
            return .unknown
        }
    }

    /// Is `key = value` valid in the `[fetch]` section?
    public static func checkFetchKey(_ key: String, _ value: String) -> FetchKeyCheck {
        switch key {
        case "intraday-interval", "daily-interval", "after-close", "timeout":
            guard let s = parseDuration(value), s >= (key == "after-close" ? 0 : 1) else {
                return .invalid("expected a duration like 1min, 15min or 30s, found \"\(value)\"")
            }
            // Bounded: the values become whole seconds, deadlines and libcurl's milliseconds, and a
            // value past these means a typo, not a wish (1e17 s trapped the first request).
            let limit = maximumDuration(of: key)
            guard s <= limit else {
                return .invalid("at most \(key == "timeout" ? "10min" : "7d"), found \"\(value)\"")
            }
            return .ok
        case "max-body":
            return parseSize(value) == nil ? .invalid("expected a size like 8M or 512K, found \"\(value)\"") : .ok
        case "alert-command":
            if case .failure(let problem) = AlertCommand.split(value) { return .invalid(problem.message) }
            return .ok
        case "alert-command-timeout":
            guard let s = parseDuration(value), s >= 1, s <= 600 else {
                return .invalid("expected a duration from 1s to 10min like 30s, found \"\(value)\"")
            }
            return .ok
        case "alert-command-interval":
            guard let s = parseDuration(value), s <= 7 * 86_400 else {
                return .invalid("expected a duration up to 7d like 15min (0: no spacing), found \"\(value)\"")
            }
            return .ok
        case "alert-command-rate":
            guard let limits = parseRate(value), limits.allSatisfy({ $0.count <= 10_000 }) else {
                return .invalid("expected runs per time like 10/hour or \"6/hour 30/day\", found \"\(value)\"")
            }
            return .ok
        default:
            return .unknown
        }
    }

    /// The largest value of a `[fetch]` duration key, in seconds: a request waits at most 10 minutes,
    /// an interval or the after-close check at most a week.
    public static func maximumDuration(of key: String) -> Double { key == "timeout" ? 600 : 7 * 86_400 }

    /// Does a section header name a fetcher section (`provider NAME` or `fetch`)?
    public static func isFetchSection(_ section: String) -> Bool {
        section == "fetch" || section.hasPrefix("provider ")
    }

    /// `provider yahoo` -> `yahoo`.
    public static func providerName(ofSection section: String) -> String? {
        guard section.hasPrefix("provider ") else { return nil }
        let name = String(section.dropFirst("provider ".count)).filter { $0 != " " && $0 != "\t" }
        return isValidProviderName(name) ? name : nil
    }

    public static func isValidProviderName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 40 && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }
    }

    public static func isValidSymbol(_ symbol: String) -> Bool {
        !symbol.isEmpty && symbol.count <= 40
            && symbol.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "._-^=:/".contains($0) }
            && !symbol.contains("..") && !symbol.hasPrefix("/")
    }

    /// `yahoo stooq` or `yahoo, stooq` -> the names in order, without repeats; nil if one is malformed.
    public static func providerList(_ text: String) -> [String]? {
        var out: [String] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }) {
            let name = word.lowercased()
            guard isValidProviderName(name) else { return nil }
            if !out.contains(name) { out.append(name) }
        }
        return out.isEmpty ? nil : out
    }

    /// `5/min 500/day`, `8/min, 800/day`, `2/s`, `5/10s` -> the limits; nil when malformed.
    public static func parseRate(_ text: String) -> [RateLimit]? {
        var limits: [RateLimit] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }) {
            let parts = word.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let count = Int(parts[0]), count > 0 else { return nil }
            let unit = parts[1].lowercased()
            let seconds: Int
            switch unit {
            case "s", "sec", "second": seconds = 1
            case "min", "m", "minute": seconds = 60
            case "h", "hour": seconds = 3600
            case "d", "day": seconds = 86_400
            default:
                guard let d = parseDuration(unit), d >= 1, d <= 86_400 * 31 else { return nil }
                seconds = Int(d)
            }
            limits.append(RateLimit(count: count, seconds: seconds))
        }
        return limits.isEmpty ? nil : limits
    }

    /// `auto`, `24/7`, `Mon-Fri 09:00-17:30`.
    public static func parseSession(_ text: String) -> SessionHours? {
        let t = text.lowercased().trimmingCharacters(" \t")
        if t == "auto" || t == "exchange" { return .exchange }
        if t == "24/7" || t == "always" { return .always }
        let words = t.split(separator: " ").map(String.init)
        guard words.count == 2 else { return nil }
        let names = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
        let dayParts = words[0].split(separator: "-").map { String($0.prefix(3)) }
        guard (1...2).contains(dayParts.count), let d0 = names.firstIndex(of: dayParts[0]),
            let d1 = names.firstIndex(of: dayParts.last!)
        else { return nil }
        var days: Set<Int> = [d0]
        var d = d0
        while d != d1 { d = (d + 1) % 7; days.insert(d) }
        let times = words[1].split(separator: "-").map(String.init)
        guard times.count == 2, let open = secondsOfDay(times[0]), let close = secondsOfDay(times[1]), open < close else {
            return nil
        }
        return .weekly(days: days, open: open, close: close)
    }

    static func secondsOfDay(_ text: String) -> Int? {
        let hm = text.split(separator: ":")
        guard hm.count == 2, let h = Int(hm[0]), let m = Int(hm[1]), (0...24).contains(h), (0...59).contains(m),
            h * 60 + m <= 1440
        else { return nil }
        return (h * 60 + m) * 60
    }

    /// `8`, `8s`, `90min`, `2h`, `3d`, `500ms` -> seconds.
    public static func parseDuration(_ text: String) -> Double? {
        let t = text.lowercased().filter { $0 != " " && $0 != "\t" }
        for (suffix, factor) in [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        where t.hasSuffix(suffix) {
            guard let v = Double(t.dropLast(suffix.count)), v.isFinite, v >= 0 else { return nil }
            return v * factor
        }
        guard let v = Double(t), v.isFinite, v >= 0 else { return nil }
        return v
    }

    /// `8M`, `512K`, `1048576` -> bytes (1 KiB to 1 GiB).
    public static func parseSize(_ text: String) -> Int? {
        let t = text.uppercased().filter { $0 != " " }
        var factor = 1
        var digits = Substring(t)
        if t.hasSuffix("K") || t.hasSuffix("KB") || t.hasSuffix("KIB") { factor = 1 << 10 } else if t.hasSuffix("M")
            || t.hasSuffix("MB") || t.hasSuffix("MIB")
        {
            factor = 1 << 20
        }
        while let last = digits.last, last.isLetter { digits = digits.dropLast() }
        guard let n = Int(digits), n > 0, n.multipliedReportingOverflow(by: factor).overflow == false else { return nil }
        let bytes = n * factor
        return (1 << 10...1 << 30).contains(bytes) ? bytes : nil
    }

    public static func parseBool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: return nil
        }
    }

    public static func isHTTPURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return false }
        let rest = lower.drop { $0 != "/" }.dropFirst(2)
        return !rest.isEmpty && !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F }
    }
}

extension String {
    fileprivate func trimmingCharacters(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
