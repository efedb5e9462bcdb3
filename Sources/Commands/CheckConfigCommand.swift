import Kiosk
import KioskCore

/// `tickerboard check-config [FILE]`: every problem as `FILE:LINE: key: message`; non-zero if any error.
enum CheckConfigCommand {
    static let help = """
        usage: tickerboard check-config [FILE]

        Checks a configuration file (default /etc/tickerboard/tickerboard.conf) and the fonts and data
        it names, printing each problem as FILE:LINE: key: message. Exits 1 if there is any error;
        warnings (unknown keys) alone exit 0.
        """

    static func run(_ raw: [String]) throws(UsageError) -> Int32 {
        var args = Arguments(command: "check-config", raw)
        if args.wantsHelp() { printLine(help); return 0 }
        var rest = raw.filter { !$0.hasPrefix("-") }
        for option in raw where option.hasPrefix("-") { throw UsageError("check-config: unknown option \"\(option)\"") }
        guard rest.count <= 1 else { throw UsageError("check-config: expected at most one FILE") }
        let path = rest.popLast() ?? Config.defaultPath
        let (config, issues) = Config.load(path: path)
        var errors = issues.filter { $0.severity == .error }.count
        // Every warning printed is counted, a data file's (skipped rows) and a font's too.
        var warnings = issues.count - errors
        for issue in issues { printLine((issue.severity == .warning ? "warning: " : "") + issue.description) }
        for finding in DataCheck.findings(in: config, file: path) {
            printLine(finding.text)
            if finding.isError { errors += 1 } else { warnings += 1 }
        }
        if errors == 0 { printLine("\(path): OK (\(warnings) warning(s))") }
        return errors == 0 ? 0 : 1
    }
}
