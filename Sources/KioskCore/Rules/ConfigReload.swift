/// SIGHUP semantics in one place: a config that fails to load keeps the running one.
///
/// Why not just use what `Config.parse` returns: it parses as much as it can (every good key is
/// applied, every bad key keeps its default), which is right for `check-config` and start-up
/// messages but wrong for a running appliance: a typo in one key would silently reset every other
/// setting the broken value shadowed. Errors therefore reject the whole file; warnings (unknown
/// keys) do not.
public enum ConfigReload {
    public struct Outcome: Sendable {
        /// The configuration to run with: the fresh one when `applied`, else the current one.
        public var config: Config
        /// Everything the file's parse reported (log warnings as warnings, errors as errors).
        public var issues: [ConfigIssue]
        public var applied: Bool
        /// True when the fresh config differs from the current one (nothing to rebuild otherwise).
        public var changed: Bool
        /// One line for the log and `STATUS=`.
        public var summary: String
    }

    public static func reload(current: Config, text: String, file: String) -> Outcome {
        outcome(current: current, parsed: Config.parse(text, file: file), file: file)
    }

    /// The outcome for a config already parsed (the shell reads the file).
    public static func outcome(current: Config, parsed: (Config, [ConfigIssue]), file: String) -> Outcome {
        let (fresh, issues) = parsed
        let errors = issues.filter { $0.severity == .error }.count
        if errors > 0 {
            return Outcome(config: current, issues: issues, applied: false, changed: false,
                           summary: "reload: \(file) has \(errors) error(s); keeping the running configuration")
        }
        let warnings = issues.count
        return Outcome(config: fresh, issues: issues, applied: true, changed: fresh != current,
                       summary: "reload: \(file) loaded" + (warnings > 0 ? " (\(warnings) warning(s))" : ""))
    }
}
