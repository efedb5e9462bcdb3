import LinuxIO

/// Where a config's drop-ins are and which of them count, for the daemon, the fetcher and
/// `check-config` alike: `*.conf` files in `conf.d` beside the main file (for the shipped
/// `/etc/tickerboard/tickerboard.conf`, `/etc/tickerboard/conf.d`), read in lexical (byte) order
/// after the main file, as systemd reads its own drop-ins. Later files win; sections merge.
public enum ConfigDropIns {
    /// `conf.d` in the directory of `configPath`.
    public static func defaultDirectory(for configPath: String) -> String {
        guard let slash = configPath.lastIndex(of: "/") else { return "conf.d" }
        let directory = configPath[..<slash]
        return (directory.isEmpty ? "" : String(directory)) + "/conf.d"
    }

    /// The drop-ins in `directory`, in the order they are read: names ending in `.conf` that do not
    /// start with a dot (editors' and package managers' leftovers such as `.#x.conf` or
    /// `x.conf.dpkg-old` are not read), regular files only. A missing directory has none.
    public static func files(in directory: String) -> [String] {
        FileSystem.list(directory)
            .filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") && $0.count > 5 }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { directory.hasSuffix("/") ? directory + $0 : directory + "/" + $0 }
            .filter { FileSystem.kind(of: $0) == .regular }
    }
}
