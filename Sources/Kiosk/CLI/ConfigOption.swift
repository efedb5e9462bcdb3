#if canImport(Glibc)
import Glibc
#endif

extension Config {
    /// The config a command other than `run` works with: `explicitPath` (`--config`, which must be
    /// readable), else the default file when there is one, else the defaults. Problems are logged
    /// and the key keeps its default, as `run` does, so the command shows what the daemon would do.
    static func loadForCommand(_ command: String, path explicitPath: String?) throws(UsageError) -> (Config, path: String?) {
        if let explicitPath, access(explicitPath, R_OK) != 0 {
            throw UsageError("\(command): --config \(explicitPath): \(String(cString: strerror(errno)))")
        }
        guard let path = explicitPath ?? (access(defaultPath, F_OK) == 0 ? defaultPath : nil) else { return (Config(), nil) }
        let (config, issues) = load(path: path)
        for issue in issues {
            Log.write(issue.severity == .error ? .error : .warning, "\(command): config: \(issue)")
        }
        return (config, path)
    }
}
