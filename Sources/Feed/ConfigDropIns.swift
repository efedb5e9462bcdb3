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
    public static func files(in directory: String) -> [String] { scan(directory).files }

    /// A `*.conf` name in the directory that is not read, and why.
    public struct Refused: Sendable, Equatable {
        public var file: String
        public var reason: String
    }

    /// The drop-ins read (as `files(in:)`) and those refused with a reason (issue 54: they were
    /// skipped without a word, and a link to /etc/shadow or a provider's key file was read, its
    /// lines echoed in the warnings): a symbolic link whose target is outside the config's own
    /// directory (the one holding `conf.d`), and anything that is not a regular file (a FIFO would
    /// block the start, a device or a directory is no config).
    public static func scan(_ directory: String) -> (files: [String], refused: [Refused]) {
        let names = FileSystem.list(directory)
            .filter { $0.hasSuffix(".conf") && !$0.hasPrefix(".") && $0.count > 5 }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        guard !names.isEmpty else { return ([], []) }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        // The config's own tree: the directory conf.d is in, as the kernel resolves it.
        let home = FileSystem.realPath(base).map { parent(of: $0) }
        var files: [String] = []
        var refused: [Refused] = []
        for name in names {
            let path = base + "/" + name
            if FileSystem.readLink(path) != nil {
                guard let target = FileSystem.realPath(path) else {
                    refused.append(Refused(file: path, reason: "a symbolic link to nothing; not read"))
                    continue
                }
                guard let home, target.hasPrefix(home + "/") else {
                    refused.append(Refused(file: path, reason: "a symbolic link out of the config's directory (to \(target)); not read"))
                    continue
                }
            }
            switch FileSystem.kind(of: path) {
            case .regular?: files.append(path)
            case .directory?: refused.append(Refused(file: path, reason: "a directory, not a file; not read"))
            case .characterDevice?: refused.append(Refused(file: path, reason: "a device, not a file; not read"))
            case .other?: refused.append(Refused(file: path, reason: "not a regular file (a FIFO, socket or block device); not read"))
            case nil: refused.append(Refused(file: path, reason: "cannot be looked at; not read"))
            }
        }
        return (files, refused)
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
