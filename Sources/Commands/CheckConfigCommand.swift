import Feed
import Kiosk
import KioskCore

/// `tickerboard check-config [FILE]`: every problem as `FILE:LINE: key: message`; non-zero if any error.
enum CheckConfigCommand {
    static let help = """
        usage: tickerboard check-config [--config-dir DIR] [FILE]
               tickerboard check-config --keys

        Checks a configuration file (default /etc/tickerboard/tickerboard.conf) merged with its drop-ins
        (conf.d/*.conf beside it, or DIR, in lexical order: later files win, sections merge) and the
        fonts and data it names, printing each problem as FILE:LINE: key: message, FILE being the
        drop-in the line is in. Exits 1 if there is any error; warnings (unknown keys) alone exit 0.
        --keys lists every section and key the file may have, one "[section] key" a line.
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "check-config", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        if args.flag("--keys") {
            for (section, keys) in Config.sectionKeys { for key in keys { printLine("[\(section)] \(key)") } }
            return 0
        }
        let directory = try args.option("--config-dir")
        var rest = try args.positionals()
        guard rest.count <= 1 else { throw UsageError("check-config: expected at most one FILE") }
        let path = rest.popLast() ?? Config.defaultPath
        let (config, issues) = Config.load(path: path, dropInDirectory: directory)
        let dropIns = ConfigDropIns.files(in: directory ?? ConfigDropIns.defaultDirectory(for: path))
        var errors = issues.filter { $0.severity == .error }.count
        // Every warning printed is counted, a data file's (skipped rows) and a font's too.
        var warnings = issues.count - errors
        for issue in issues { printLine((issue.severity == .warning ? "warning: " : "") + issue.description) }
        for finding in DataCheck.findings(in: config, file: path) {
            printLine(finding.text)
            if finding.isError { errors += 1 } else { warnings += 1 }
        }
        let merged = dropIns.isEmpty ? "" : " with \(dropIns.count) drop-in(s): " + dropIns.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: ", ")
        if errors == 0 { printLine("\(path)\(merged): OK (\(warnings) warning(s))") }
        return errors == 0 ? 0 : 1
    }
}
