// The syntax of an `[alert NAME]` section's keys and of an alert command line, in one place that
// both sides use: the daemon's config (banner, check-config) and the fetcher's (alert-command).

extension AlertConfig {
    public static let keys = ["instrument", "above", "below", "move", "stale", "hysteresis", "banner", "command"]

    /// Applies `key = value` (a line of `file`) to this alert: `.invalid` with the message for a bad
    /// value, `.unknown` for a key that is not an alert's. Every key is replaced by a later file's;
    /// the condition (above, below, move or stale: one per alert) too, whichever of them it is.
    public mutating func apply(_ key: String, _ value: String, file: String? = nil) -> FetchKeyCheck {
        func amount(_ text: String) -> ExactDecimal? {
            // Below 10^15, so products of amounts stay far inside ExactDecimal's bound.
            guard let v = ExactDecimal(text), v.magnitude < ExactDecimal(units: 1_000_000_000_000_000 * 1_000_000_000_000) else { return nil }
            return v
        }
        func percent(_ v: String) -> ExactDecimal? {
            let t = v.hasSuffix("%") ? String(v.dropLast().drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) : v
            guard let p = amount(t), !p.isNegative, p < ExactDecimal(1000) else { return nil }
            return p
        }
        func setCondition(_ c: Condition) -> FetchKeyCheck {
            if condition != nil, conditionFile == file {
                return .invalid("[alert \(name)] already has a condition; one of above, below, move, stale per alert")
            }
            condition = c
            conditionFile = file
            return .ok
        }
        switch key {
        case "instrument":
            instrument = value
            return .ok
        case "above", "below":
            guard let level = amount(value), !level.isNegative, !level.isZero else {
                return .invalid("expected a price above 0 in the instrument's currency as quoted, like 300 or 151.20, found \"\(value)\"")
            }
            return setCondition(key == "above" ? .above(level) : .below(level))
        case "move":
            guard let p = percent(value), !p.isZero else {
                return .invalid("expected a change against the previous close like 5% (above 0, below 1000%), found \"\(value)\"")
            }
            return setCondition(.move(p))
        case "stale":
            guard let s = FetchSettings.parseDuration(value), s >= 60, s <= 36_500 * 86_400 else {
                return .invalid("expected a duration like 30m or 2h (at least 1min), found \"\(value)\"")
            }
            return setCondition(.stale(Int64(s)))
        case "hysteresis":
            guard let p = percent(value) else { return .invalid("expected a percentage like 0.5%, found \"\(value)\"") }
            hysteresis = p
            return .ok
        case "banner":
            guard let s = FetchSettings.parseDuration(value), s >= 1, s <= 86_400 else {
                return .invalid("expected a duration from 1s to 24h like 5min, found \"\(value)\"")
            }
            bannerSeconds = Int64(s)
            return .ok
        case "command":
            switch AlertCommand.split(value) {
            case .success(let argv): command = argv
            case .failure(let problem): return .invalid(problem.message)
            }
            return .ok
        default:
            return .unknown
        }
    }
}

/// An alert command line: the program and its arguments, split without a shell.
///
/// Words are separated by spaces or tabs. `"…"` and `'…'` make one word of what they enclose (with
/// its spaces); inside double quotes `\"` and `\\` stand for `"` and `\`, inside single quotes
/// nothing is special; outside quotes a backslash takes the next character as it is. Nothing else
/// is special: no variables, globs, pipes or redirections (`$HOME`, `*`, `|`, `>` are passed as
/// written). The program is an absolute path (no PATH search). `none` alone is no command.
public enum AlertCommand {
    public struct Problem: Error, Equatable, Sendable { public var message: String }

    public static let maximumLength = 4096
    public static let maximumWords = 64

    public static func split(_ text: String) -> Result<[String], Problem> {
        let usage = "expected an absolute program path and its arguments like /usr/local/bin/notify --topic prices (no shell: quote a word with spaces)"
        if text.lowercased() == "none" { return .success([]) }
        guard text.utf8.count <= maximumLength else { return .failure(Problem(message: "at most \(maximumLength) bytes; " + usage)) }
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            // Not even quoted: a command line is one line of plain words.
            if c == "\0" || c == "\n" || c == "\r" { return .failure(Problem(message: "a control character in the command; " + usage)) }
            if escaped {
                // In double quotes only \" and \\ are escapes; another backslash stays as written.
                if quote == "\"", c != "\"", c != "\\" { word.append("\\") }
                word.append(c)
                escaped = false
                continue
            }
            switch (quote, c) {
            case ("'", "'"), ("\"", "\""): quote = nil
            case ("\"", "\\"): escaped = true
            case ("'", _), ("\"", _): word.append(c)
            case (nil, "\\"): escaped = true; inWord = true
            case (nil, "'"), (nil, "\""): quote = c; inWord = true
            case (nil, " "), (nil, "\t"):
                if inWord { words.append(word); word = ""; inWord = false }
            default:
                word.append(c); inWord = true
            }
        }
        if quote != nil { return .failure(Problem(message: "an unterminated \(quote == "'" ? "'" : "\"") quote; " + usage)) }
        if escaped { return .failure(Problem(message: "a backslash at the end; " + usage)) }
        if inWord { words.append(word) }
        guard let program = words.first else { return .failure(Problem(message: usage)) }
        guard program.hasPrefix("/"), !program.hasSuffix("/") else {
            return .failure(Problem(message: "the program \"\(program.prefix(60))\" is not an absolute path; " + usage))
        }
        guard words.count <= maximumWords else { return .failure(Problem(message: "at most \(maximumWords) words; " + usage)) }
        return .success(words)
    }
}
