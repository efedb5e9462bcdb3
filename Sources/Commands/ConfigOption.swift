import Kiosk
import KioskCore
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

extension Config {
    /// The config a command other than `run` works with: `explicitPath` (`--config`, which must be
    /// readable), else the default file when there is one, else the defaults. Problems are logged
    /// and the key keeps its default, as `run` does, so the command shows what the daemon would do.
    static func loadForCommand(_ command: String, path explicitPath: String?) throws(UsageError) -> (Config, path: String?) {
        if let explicitPath, let problem = FileSystem.readProblem(explicitPath) {
            throw UsageError("\(command): --config \(explicitPath): \(problem.message)")
        }
        guard let path = explicitPath ?? (FileSystem.exists(defaultPath) ? defaultPath : nil) else { return (Config(), nil) }
        let (config, issues) = load(path: path)
        for issue in issues {
            Log.write(issue.severity == .error ? .error : .warning, "\(command): config: \(issue)")
        }
        return (config, path)
    }
}
