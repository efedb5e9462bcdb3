import KioskCore
import LinuxIO

// Reading the config file is the shell's: the core parses text it is handed.

extension Config {
    /// Reads and parses `path`. A missing or unreadable file is one error naming it.
    public static func load(path: String) -> (Config, [ConfigIssue]) {
        switch readTextFile(path) {
        case .success(let text): return parse(text, file: path)
        case .failure(let reason):
            return (Config(), [ConfigIssue(file: path, line: 0, key: "", message: reason.message, severity: .error)])
        }
    }
}

extension ConfigReload {
    public static func reload(current: Config, path: String) -> Outcome {
        outcome(current: current, parsed: Config.load(path: path), file: path)
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
