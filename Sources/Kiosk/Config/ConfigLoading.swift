import Feed
import KioskCore
import LinuxIO

// Reading the config file is the shell's: the core parses text it is handed.

extension Config {
    /// The config file and its drop-ins together, read at most.
    public static let totalBytesLimit = 4 << 20

    /// Reads and parses `path` and its drop-ins (`dropInDirectory`, default `conf.d` beside it:
    /// `ConfigDropIns`). A missing or unreadable file is one error naming it; a missing drop-in
    /// directory is none.
    public static func load(path: String, dropInDirectory: String? = nil) -> (Config, [ConfigIssue]) {
        var sources: [(text: String, file: String)] = []
        let directory = dropInDirectory ?? ConfigDropIns.defaultDirectory(for: path)
        let scan = ConfigDropIns.scan(directory)
        var total = 0
        var unread: [String] = []
        for file in [path] + scan.files {
            // The config and its drop-ins together: a megabyte each, four in all.
            guard unread.isEmpty else { unread.append(file); continue }
            switch readTextFile(file) {
            case .success(let text):
                total += text.utf8.count
                if total > Config.totalBytesLimit { unread.append(file); continue }
                sources.append((text, file))
            case .failure(let reason):
                return (Config(), [ConfigIssue(file: file, line: 0, key: "", message: reason.message, severity: .error)])
            }
        }
        let (config, issues) = parse(sources)
        let over = unread.first.map {
            ConfigIssue(file: $0, line: 0, key: "", message: "not read, nor the \(unread.count - 1) drop-in(s) after it: the config "
                            + "and its drop-ins are limited to \(Config.totalBytesLimit >> 20) MB in all", severity: .error)
        }
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
