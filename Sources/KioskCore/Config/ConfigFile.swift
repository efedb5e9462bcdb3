import Control
import Feed

/// One problem in a config file, as `check-config` prints it: `FILE:LINE: key: message`.
public struct ConfigIssue: Equatable, Sendable, CustomStringConvertible {
    public enum Severity: Sendable { case error, warning }
    public var file: String
    public var line: Int
    public var key: String
    public var message: String
    public var severity: Severity

    public init(file: String, line: Int, key: String, message: String, severity: Severity) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
        self.severity = severity
    }

    public var description: String {
        "\(file):\(line): \(key.isEmpty ? "" : key + ": ")\(message)"
    }

    /// At most `perFile` issues of each file, then one that counts the rest and names the first of
    /// them (an error when any of them is): a file of a million unknown keys is one screen of
    /// messages, not a million lines in the journal.
    public static func summarized(_ issues: [ConfigIssue], perFile: Int = ConfigSources.messagesPerFile) -> [ConfigIssue] {
        ConfigSources.summarized(issues, perFile: perFile, file: \.file, line: \.line, isError: { $0.severity == .error },
                                 text: { ($0.key.isEmpty ? "" : $0.key + ": ") + $0.message },
                                 make: { ConfigIssue(file: $0, line: $1, key: "", message: $2, severity: $3 ? .error : .warning) })
    }
}

/// A parsed systemd-style file: `[Section]` headers and `key = value` lines; `#` and `;` start
/// comments. Values keep their text; meaning is given by `Config`.
struct ConfigFile {
    struct Entry {
        var file: String
        var section: String
        var key: String
        var value: String
        var line: Int
    }

    var entries: [Entry] = []
    /// Each section header, as an entry without a key: a section whose keys all have defaults
    /// (`[output second]` alone) still means something.
    var headers: [Entry] = []
    var issues: [ConfigIssue] = []

    /// A line that is not config, as a message may quote it: a short excerpt when it reads like
    /// config text (letters, digits, spaces and the punctuation of settings), else only its length.
    /// `check-config` is handed any file, `/etc/shadow` among them: its lines must not be echoed.
    static func excerpt<S: StringProtocol>(_ line: S) -> String {
        let allowed = Set(" \t[]._-/:@,'\"#%+()*&!?<>".unicodeScalars)
        let plain = line.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || allowed.contains($0) }
        guard plain else { return "(a line of \(line.count) characters, not shown: not config text)" }
        let limit = 40
        return "\"" + (line.count > limit ? String(line.prefix(limit - 1)) + "…" : String(line)) + "\""
    }

    /// A line that did not parse, as a message says it: never quoted. A drop-in may be a link to a
    /// key file inside the config's directory, or any file `check-config` is handed: a key, a password
    /// or a line of `/etc/shadow` reads like config text and must not reach the journal (issue 54
    /// item 19). Its first word is named only when it is a key or section this program knows, so a
    /// typo such as `cycle-interval 3s` still says where to look.
    static func unparsed<S: StringProtocol>(_ line: S) -> String {
        let word = String(line.drop { $0 == "[" }.prefix { !" \t:=]".contains($0) }).lowercased()
        let known = Config.sectionKeys.contains { entry in
            entry.keys.contains(word) || entry.section.split(separator: " ").first.map(String.init) == word
        }
        return known && !word.isEmpty
            ? "a line of \(line.count) characters beginning with \"\(word)\" (the rest not shown)"
            : "a line of \(line.count) characters (not shown: it may be no config text)"
    }

    init(text: String, file: String) {
        var section = ""
        var lineNumber = 0
        // "\r\n" is one Character in Swift: splitting on "\n" alone would make a CRLF file one line.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if lineNumber == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
            let trimmed = line.trimmingWhitespace()
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]"), trimmed.count > 2 else {
                    issues.append(ConfigIssue(file: file, line: lineNumber, key: "",
                                              message: "expected a section header like [display], found \(Self.unparsed(trimmed))",
                                              severity: .error))
                    section = "?"
                    continue
                }
                // Section kinds are case-insensitive; an instrument's name (`[instrument AAPL]`) is not:
                // it is shown on screen and names the instrument in messages.
                let header = String(trimmed.dropFirst().dropLast()).trimmingWhitespace()
                let kind = header.prefix { $0 != " " && $0 != "\t" && $0 != "." }
                section = kind.lowercased() + header.dropFirst(kind.count)
                headers.append(Entry(file: file, section: section, key: "", value: "", line: lineNumber))
                continue
            }
            guard let eq = trimmed.firstIndex(of: "=") else {
                issues.append(ConfigIssue(file: file, line: lineNumber, key: "",
                                          message: "expected \"key = value\", found \(Self.unparsed(trimmed))", severity: .error))
                continue
            }
            let key = String(trimmed[..<eq]).trimmingWhitespace().lowercased()
            var value = String(trimmed[trimmed.index(after: eq)...]).trimmingWhitespace()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard !key.isEmpty else {
                issues.append(ConfigIssue(file: file, line: lineNumber, key: "", message: "a value without a key",
                                          severity: .error))
                continue
            }
            if section.isEmpty {
                issues.append(ConfigIssue(file: file, line: lineNumber, key: key,
                                          message: "outside any section; put it under a header like [chart]",
                                          severity: .error))
                continue
            }
            entries.append(Entry(file: file, section: section, key: key, value: value, line: lineNumber))
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace { end = scalars.index(before: end) }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[start..<end])
        return String(out)
    }
}
