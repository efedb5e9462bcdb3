// Control: the control socket's protocol (version 1), with nothing behind it — the requests a
// client may send, their one-line answers, and the per-connection rules (framing, size, rate,
// idle) as a pure state machine. The daemon's core answers the requests; `tickerboard ctl` and the
// MQTT bridge write them. No I/O here, so the parser is fuzzed and the limits tested on a manual clock.
//
// Wire format: UTF-8 lines ending in "\n", at most `ControlLimits.lineBytes` bytes each. A request
// is words separated by spaces; a word with spaces, quotes or backslashes is written in double quotes
// with `\"` and `\\` escapes. Every request gets exactly one answer line, in order:
// `ok` or `ok TEXT`, or `error KIND: MESSAGE`. `screenshot` carries an open descriptor in the same
// message (SCM_RIGHTS): the PNG is written to it, the daemon opens nothing of the client's.

import StatusModel

/// The protocol's version, answered by `version`.
public let controlProtocolVersion = 1

/// What a client asks for.
public enum ControlCommand: Sendable, Equatable {
    /// What `status.json` says, as one line of JSON.
    case status
    /// An instrument (by its `[instrument ID]`), optionally on a range; holds the cycle there.
    case show(instrument: String, range: String?)
    case range(String)
    case scene(String)
    /// The next instrument (the cycle's next step, at once).
    case next
    case pause
    case resume
    case screen(ScreenMode)
    /// A brightness level in percent (0–100), for the light policy.
    case brightness(Int)
    /// Re-read the configuration (as SIGHUP); the answer says whether it was applied.
    case reload
    /// A banner over the picture for `seconds` (nil: the default).
    case message(text: String, seconds: Double?)
    /// Clear the banner.
    case clearMessage
    /// The frame on the glass as a PNG, written to the descriptor passed with the request.
    case screenshot
    case version
    /// Every instrument with its latest price, change and market, and the ranges and scenes there
    /// are (one line of JSON): what a remote (the MQTT bridge) offers.
    case instruments

    public enum ScreenMode: String, Sendable, CaseIterable {
        /// Lit regardless of the schedule and idle timeout, until `auto`.
        case on
        /// Dark regardless of the schedule until `auto`; a touch still lights it for the wake time.
        case off
        /// The schedule and idle timeout decide, as without a control socket.
        case auto
    }

    /// The scenes `scene NAME` may name (the daemon refuses the watchlist when it has none); the
    /// name stays a word on the wire, so a client older or newer than the daemon is answered by it.
    public static let scenes: [SceneKind] = [.chart, .bars, .draw, .watchlist]

    /// The words every command starts with, for help and did-you-mean.
    public static let verbs = ["status", "show", "range", "scene", "next", "pause", "resume", "screen", "brightness",
                               "reload", "message", "clear-message", "screenshot", "version", "instruments"]

    /// The longest banner, in characters.
    public static let messageCharacters = 200
    public static let messageScalars = 400
    /// The longest a banner stays (a day); the default is a minute.
    public static let messageSecondsLimit = 86_400.0
    public static let messageSecondsDefault = 60.0

    /// Parses one request line (without its "\n").
    public static func parse(_ line: String) -> Result<ControlCommand, ControlError> {
        let words: [String]
        switch tokenize(line) {
        case .success(let w): words = w
        case .failure(let e): return .failure(e)
        }
        guard let verb = words.first?.lowercased() else { return .failure(.usage("empty request; try \"status\"")) }
        let args = Array(words.dropFirst())
        func arity(_ range: ClosedRange<Int>, _ usage: String) -> ControlError? {
            range.contains(args.count) ? nil : .usage("expected \"\(usage)\"")
        }
        switch verb {
        case "status", "next", "pause", "resume", "reload", "screenshot", "version", "clear-message", "instruments":
            if let e = arity(0...0, verb) { return .failure(e) }
            switch verb {
            case "status": return .success(.status)
            case "next": return .success(.next)
            case "pause": return .success(.pause)
            case "resume": return .success(.resume)
            case "reload": return .success(.reload)
            case "screenshot": return .success(.screenshot)
            case "clear-message": return .success(.clearMessage)
            case "instruments": return .success(.instruments)
            default: return .success(.version)
            }
        case "show":
            if let e = arity(1...2, "show INSTRUMENT [RANGE]") { return .failure(e) }
            guard validName(args[0]) else { return .failure(.usage("an instrument name has 1 to 64 printable characters")) }
            return .success(.show(instrument: args[0], range: args.count > 1 ? args[1].uppercased() : nil))
        case "range":
            if let e = arity(1...1, "range 1D|5D|1M|6M|YTD|1Y|5Y|MAX") { return .failure(e) }
            return .success(.range(args[0].uppercased()))
        case "scene":
            if let e = arity(1...1, "scene " + scenes.map(\.name).joined(separator: "|")) { return .failure(e) }
            return .success(.scene(args[0].lowercased()))
        case "screen":
            guard args.count == 1, let mode = ScreenMode(rawValue: args[0].lowercased()) else {
                return .failure(.usage("expected \"screen on|off|auto\""))
            }
            return .success(.screen(mode))
        case "brightness":
            var text = args.first ?? ""
            if text.hasSuffix("%") { text.removeLast() }
            guard args.count == 1, let n = Int(text), (0...100).contains(n) else {
                return .failure(.usage("expected \"brightness N\" with N a percentage from 0 to 100"))
            }
            return .success(.brightness(n))
        case "message":
            if let e = arity(1...2, "message TEXT [SECONDS]") { return .failure(e) }
            let text = args[0]
            // Characters as people count them, and Unicode scalars too: one "character" can be a
            // cluster of a thousand combining marks, each of them drawn.
            guard !text.isEmpty, text.count <= messageCharacters, text.unicodeScalars.count <= messageScalars else {
                return .failure(.usage("a message has 1 to \(messageCharacters) characters (at most \(messageScalars) Unicode scalars)"))
            }
            guard text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                return .failure(.usage("a message is one line of printable text"))
            }
            var seconds: Double?
            if args.count == 2 {
                guard let s = parseSeconds(args[1]), s > 0, s <= messageSecondsLimit else {
                    return .failure(.usage("expected the seconds to show it, from 1 to \(Int(messageSecondsLimit)) (or 30s, 10m, 2h), found \(quoted(args[1]))"))
                }
                seconds = s
            }
            return .success(.message(text: text, seconds: seconds))
        default:
            let close = verbs.filter { editDistance($0, verb) <= 2 }
            return .failure(.unknown("unknown command \(quoted(verb))"
                                     + (close.isEmpty ? "" : "; did you mean \(close.joined(separator: " or "))?")))
        }
    }

    /// The request line for this command (without "\n"): what `ctl` and the bridge send.
    public var line: String {
        switch self {
        case .status: "status"
        case .show(let id, let range): "show " + Self.word(id) + (range.map { " " + Self.word($0) } ?? "")
        case .range(let r): "range " + Self.word(r)
        case .scene(let s): "scene " + Self.word(s)
        case .next: "next"
        case .pause: "pause"
        case .resume: "resume"
        case .screen(let mode): "screen " + mode.rawValue
        case .brightness(let n): "brightness \(n)"
        case .reload: "reload"
        case .message(let text, let seconds):
            "message " + Self.word(text) + (seconds.map { " " + ($0 == $0.rounded() ? String(Int64($0)) : String($0)) } ?? "")
        case .clearMessage: "clear-message"
        case .screenshot: "screenshot"
        case .version: "version"
        case .instruments: "instruments"
        }
    }

    /// A word as the parser reads it back: quoted when it must be (`ctl` joins its arguments so).
    public static func word(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { $0 != " " && $0 != "\"" && $0 != "\\" && $0 != "\t" }
        if plain { return s }
        var out = "\""
        for c in s.unicodeScalars {
            if c == "\"" || c == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(c)
        }
        return out + "\""
    }

    static func tokenize(_ line: String) -> Result<[String], ControlError> {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        var inWord = false, inQuotes = false, escaped = false
        for c in line.unicodeScalars {
            if c.value < 0x20 && c != "\t" || c.value == 0x7F {
                return .failure(.usage("a request is one line of printable text"))
            }
            if escaped {
                current.append(c)
                escaped = false
            } else if inQuotes {
                if c == "\\" { escaped = true } else if c == "\"" { inQuotes = false } else { current.append(c) }
            } else if c == " " || c == "\t" {
                if inWord { words.append(String(current)); current = String.UnicodeScalarView(); inWord = false }
            } else if c == "\"" {
                inQuotes = true
                inWord = true
            } else {
                current.append(c)
                inWord = true
            }
            if words.count > 8 { return .failure(.usage("too many words in one request")) }
        }
        if inQuotes || escaped { return .failure(.usage("a quote is not closed")) }
        if inWord { words.append(String(current)) }
        return .success(words)
    }

    static func validName(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 64 && s.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }

    /// "90", "90s", "10m", "2h".
    static func parseSeconds(_ text: String) -> Double? {
        var digits = Substring(text.lowercased())
        var unit = 1.0
        if let last = digits.last, "smh".contains(last) {
            unit = last == "s" ? 1 : last == "m" ? 60 : 3600
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Double(digits) else {
            return nil
        }
        return n * unit
    }

}

/// Edit distance, for "did you mean" hints (the control protocol's verbs, the config's keys).
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

/// A request the daemon did not carry out, and why; `kind` is the word after `error`.
public enum ControlError: Error, Sendable, Equatable {
    /// The request is malformed (arguments, quoting).
    case usage(String)
    case unknown(String)
    /// The peer may not use the socket.
    case permission(String)
    /// Too many clients, or requests faster than the rate.
    case busy(String)
    case tooLong(String)
    /// Well-formed, but not possible now or with this config (no such instrument, no display).
    case refused(String)

    public var kind: String {
        switch self {
        case .usage: "usage"
        case .unknown: "unknown"
        case .permission: "permission"
        case .busy: "busy"
        case .tooLong: "too-long"
        case .refused: "refused"
        }
    }

    public var message: String {
        switch self {
        case .usage(let m), .unknown(let m), .permission(let m), .busy(let m), .tooLong(let m), .refused(let m): m
        }
    }
}

/// One answer line.
public enum ControlReply: Sendable, Equatable {
    case ok(String?)
    case error(ControlError)

    /// The line on the wire (with its "\n"); any line break in a text becomes a space.
    public var line: String {
        switch self {
        case .ok(let text?): "ok " + Self.oneLine(text) + "\n"
        case .ok(nil): "ok\n"
        case .error(let e): "error \(e.kind): " + Self.oneLine(e.message) + "\n"
        }
    }

    static func oneLine(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }

    /// Reads an answer line (without "\n"), as a client does: nil when it is not an answer.
    public static func parse(_ line: String) -> ControlReply? {
        if line == "ok" { return .ok(nil) }
        if line.hasPrefix("ok ") { return .ok(String(line.dropFirst(3))) }
        guard line.hasPrefix("error ") else { return nil }
        let rest = line.dropFirst(6)
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let kind = String(rest[..<colon])
        let message = String(rest[rest.index(after: colon)...].drop { $0 == " " })
        switch kind {
        case "usage": return .error(.usage(message))
        case "unknown": return .error(.unknown(message))
        case "permission": return .error(.permission(message))
        case "busy": return .error(.busy(message))
        case "too-long": return .error(.tooLong(message))
        case "refused": return .error(.refused(message))
        default: return nil
        }
    }
}

func quoted(_ s: String) -> String {
    "\"" + (s.count > 40 ? String(s.prefix(39)) + "…" : s) + "\""
}
