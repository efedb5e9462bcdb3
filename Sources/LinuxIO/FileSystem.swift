// Questions about paths (does it exist, is it a directory, what is in it, where does a link
// point), so that no other module calls access, stat, readdir or readlink itself.

#if canImport(Glibc)
import Glibc
#endif

public enum FileSystem {
    /// What a path names, following symbolic links.
    public enum Kind: Sendable, Equatable {
        case regular, directory, characterDevice, other
    }

    /// True when `path` names something (a dangling link counts as nothing).
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// True when this process may read `path`.
    public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

    /// Why `path` cannot be read (nil when it can): the errno `access(R_OK)` gives.
    public static func readProblem(_ path: String) -> Errno? { access(path, R_OK) == 0 ? nil : Errno.current }

    /// What `path` is, following links; nil when it does not exist or cannot be looked at.
    public static func kind(of path: String) -> Kind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFCHR: return .characterDevice
        default: return .other
        }
    }

    public static func isDirectory(_ path: String) -> Bool { kind(of: path) == .directory }

    /// The names in `directory` (without `.` and `..`), in the order the file system gives them;
    /// empty when it cannot be read.
    public static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `path` with every symbolic link and `.`/`..` resolved (`realpath(3)`); nil when it does not
    /// exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The other processes that hold `device` open, as "PID (comm)", read from /proc/PID/fd: only
    /// those this process may look into (its own user's, or all of them as root). Empty when none
    /// can be seen: the caller then says it does not know.
    public static func openers(of device: String) -> [String] {
        let me = String(getpid())
        var found: [String] = []
        for pid in list("/proc") where pid != me && pid.allSatisfy(\.isNumber) {
            let fds = "/proc/\(pid)/fd"
            guard list(fds).contains(where: { readLink(fds + "/" + $0) == device }) else { continue }
            let comm = (try? RegularFile.read("/proc/\(pid)/comm", limit: 64)).map { String(decoding: $0, as: UTF8.self) }
            found.append(pid + (comm.map { " (" + $0.filter { $0 != "\n" } + ")" } ?? ""))
        }
        return found
    }

    /// Where the symbolic link `path` points (as written in the link); nil when it is no link.
    public static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A descriptor with one owner, closed when the owner lets go of it (device files held for a
/// display's or a terminal's life). `release()` hands it over without closing it.
public final class OwnedDescriptor {
    public private(set) var descriptor: FileDescriptor?

    public init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// The raw number for ioctls and C libraries; -1 once closed or released.
    public var rawValue: CInt { descriptor?.rawValue ?? -1 }

    /// Closes now (idempotent).
    public func close() {
        try? descriptor?.close()
        descriptor = nil
    }

    /// Gives the descriptor up without closing it.
    public func release() -> FileDescriptor? {
        defer { descriptor = nil }
        return descriptor
    }

    deinit { try? descriptor?.close() }
}

/// Standard output and standard error as byte sinks: unbuffered, whole writes retried, errors
/// ignored (there is no one left to tell when stderr itself is gone).
public enum StandardStream {
    case output, error

    public func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(self == .output ? 1 : 2, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
        }
    }
}
