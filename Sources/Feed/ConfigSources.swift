import LinuxIO

/// The config and its drop-ins as text, within bounds the daemon, the fetcher and the bridge share:
/// a megabyte a file, four in all, 50,000 lines in all, and at most 40 messages a file (then one
/// that counts the rest). Thirty drop-ins of a megabyte of unknown keys held 657 MB and printed 2.7
/// million warnings in the daemon, and about 500 MB and 1.3 million lines in each of the fetcher and
/// the bridge, which read the same drop-ins without its bounds (issue 54 item 18). What is over a
/// bound is not read, and one problem says so.
public enum ConfigSources {
    public static let fileBytes = 1 << 20
    public static let totalBytes = 4 << 20
    /// 256 instruments of 20 keys are 5,000 lines.
    public static let totalLines = 50_000
    public static let messagesPerFile = 40

    public struct Problem: Sendable, Equatable {
        public var file: String
        public var line: Int
        public var message: String
    }

    public struct Read: Sendable {
        /// What was read, in order, each cut to the line bound.
        public var sources: [(text: String, file: String)] = []
        /// The first file that could not be read, and why (the files after it are not read).
        public var unreadable: Problem?
        /// A bound passed: where, and what was left unread.
        public var over: Problem?
    }

    /// Reads `files` in order (the main file, then its drop-ins) within the bounds.
    public static func read(_ files: [String]) -> Read {
        var read = Read()
        var total = 0
        for (index, file) in files.enumerated() {
            let bytes: [UInt8]
            do { bytes = try RegularFile.read(file, limit: fileBytes) } catch {
                let why: String
                switch error {
                case .notFound: why = "cannot open: No such file or directory"
                case .tooLarge: why = "larger than \(fileBytes >> 20) MB; not a config file"
                case .system(let e): why = "cannot open: \(e)"
                default: why = "cannot open: \(error)"
                }
                read.unreadable = Problem(file: file, line: 0, message: why)
                return read
            }
            total += bytes.count
            if total > totalBytes {
                read.over = Problem(file: file, line: 0, message: "not read, nor the \(files.count - index - 1) drop-in(s) after it: the config "
                                        + "and its drop-ins are limited to \(totalBytes >> 20) MB in all")
                break
            }
            read.sources.append((String(decoding: bytes, as: UTF8.self), file))
        }
        let (sources, cut) = limitLines(read.sources)
        read.sources = sources
        if read.over == nil { read.over = cut }
        return read
    }

    /// `sources` cut after `totalLines` lines in all: the rest of the file where the bound falls and
    /// the files after it are left out, and the problem says so.
    public static func limitLines(_ sources: [(text: String, file: String)]) -> ([(text: String, file: String)], Problem?) {
        var budget = totalLines
        var out: [(text: String, file: String)] = []
        for source in sources {
            guard budget > 0 else { break }
            let utf8 = source.text.utf8
            var lines = 0
            var end = utf8.endIndex
            for i in utf8.indices where utf8[i] == UInt8(ascii: "\n") {
                lines += 1
                if lines == budget { end = i; break }
            }
            if lines == budget, utf8.index(after: end) < utf8.endIndex {
                out.append((String(source.text[..<end]), source.file))
                return (out, Problem(file: source.file, line: budget + 1,
                                     message: "more than \(totalLines) lines in the config and its drop-ins: "
                                         + "the rest of this file and the files after it are not read"))
            }
            budget -= lines
            out.append(source)
        }
        return (out, nil)
    }

    /// At most `perFile` messages of each file, then one per file that counts the rest and names the
    /// first of them (an error when any of them is): a file of a million unknown keys is one screen
    /// of messages, not a million lines in the journal. `make(file, line, text, isError)` builds that
    /// last message in the caller's type.
    public static func summarized<Issue>(_ issues: [Issue], perFile: Int = messagesPerFile, file: (Issue) -> String,
                                         line: (Issue) -> Int, isError: (Issue) -> Bool, text: (Issue) -> String,
                                         make: (String, Int, String, Bool) -> Issue) -> [Issue] {
        var shown: [String: Int] = [:]
        var hidden: [String: (count: Int, first: Issue, error: Bool)] = [:]
        var order: [String] = []
        var out: [Issue] = []
        for issue in issues {
            let f = file(issue)
            let n = shown[f, default: 0]
            if n < perFile {
                shown[f] = n + 1
                out.append(issue)
            } else if let h = hidden[f] {
                hidden[f] = (h.count + 1, h.first, h.error || isError(issue))
            } else {
                hidden[f] = (1, issue, isError(issue))
                order.append(f)
            }
        }
        for f in order {
            guard let h = hidden[f] else { continue }
            out.append(make(f, line(h.first), "and \(h.count) more \(h.error ? "problems" : "warnings") in this file, not listed "
                                + "(the first of them: \(text(h.first)))", h.error))
        }
        return out
    }
}
