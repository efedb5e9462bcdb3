import Feed
import KioskCore
import LinuxIO

// Reading the config file is the shell's: the core parses text it is handed.

extension Config {
    /// Reads and parses `path` and its drop-ins (`dropInDirectory`, default `conf.d` beside it:
    /// `ConfigDropIns`), within `ConfigSources`' bounds. A missing or unreadable file is one error
    /// naming it; a missing drop-in directory is none.
    public static func load(path: String, dropInDirectory: String? = nil) -> (Config, [ConfigIssue]) {
        let scan = ConfigDropIns.scan(dropInDirectory ?? ConfigDropIns.defaultDirectory(for: path))
        let read = ConfigSources.read([path] + scan.files)
        func issue(_ p: ConfigSources.Problem, _ severity: ConfigIssue.Severity) -> ConfigIssue {
            ConfigIssue(file: p.file, line: p.line, key: "", message: p.message, severity: severity)
        }
        if let unreadable = read.unreadable { return (Config(), [issue(unreadable, .error)]) }
        let (config, issues) = parse(read.sources)
        let over = read.over.map { issue($0, .error) }
        return (config, scan.refused.map { ConfigIssue(file: $0.file, line: 0, key: "", message: $0.reason, severity: .warning) }
                    + issues + (over.map { [$0] } ?? []))
    }
}

extension ConfigReload {
    public static func reload(current: Config, path: String, dropInDirectory: String? = nil) -> Outcome {
        outcome(current: current, parsed: Config.load(path: path, dropInDirectory: dropInDirectory), file: path)
    }
}

/// Reads a small text file (a regular file only: a FIFO or device given as the config must not
/// block start-up or a reload); the failure is a human message naming the problem.
package func readTextFile(_ path: String, limit: Int = 1 << 20) -> Result<String, ConfigValueError> {
    do { return .success(String(decoding: try RegularFile.read(path, limit: limit), as: UTF8.self)) } catch {
        switch error {
        case .notFound: return .failure(ConfigValueError(message: "cannot open: No such file or directory"))
        case .tooLarge: return .failure(ConfigValueError(message: "larger than \(limit >> 20) MB; not a config file"))
        case .system(let e): return .failure(ConfigValueError(message: "cannot open: \(e)"))
        default: return .failure(ConfigValueError(message: "cannot open: \(error)"))
        }
    }
}
