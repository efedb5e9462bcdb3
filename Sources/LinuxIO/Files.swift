import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Files other programs read while we write them (status, preview, ready file, the fetcher's
/// data): written to a hidden temporary name in the same directory (never a name a config mentions
/// or a directory watch acts on) and renamed over the old one, so a reader sees the old file or the
/// new one, never half of either.
///
/// The temporary name is unpredictable and created exclusively without following links: a
/// predictable name in a directory someone else can write to would let them plant a symbolic link
/// there and have root's write land on (and re-mode) any file. It carries the writer's PID, so
/// `removeStaleTemporaries` can tell a killed writer's leftovers from a live one's work.
public enum AtomicFile {
    /// - durable: flush the file before the rename and the directory after it, so a power cut
    ///   leaves the old file or the new one (data worth keeping); without it only readers are served
    ///   (a status file rewritten every second need not cost a disk flush).
    public static func write(_ bytes: [UInt8], to path: String, permissions: mode_t = 0o644, durable: Bool = false) throws(Errno) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let prefix = (slash == nil ? "" : directory + "/") + "." + name + ".tmp-\(getpid())-"
        var temporary = ""
        var opened: FileDescriptor?
        for _ in 0..<8 where opened == nil {
            temporary = prefix + String(UInt64.random(in: 1...UInt64.max), radix: 36)
            do { opened = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .exclusive, .noFollow],
                                                  permissions: permissions) } catch where error == .fileExists { continue }
        }
        guard let fd = opened else { throw Errno.fileExists }
        do throws(Errno) {
            // Exactly `permissions`: a service's UMask=0077 would otherwise hide a status file from
            // the monitoring agent (or the daemon, for the fetcher's data) that reads it.
            if fchmod(fd.rawValue, permissions) != 0 { throw Errno.current }
            var offset = 0
            while offset < bytes.count {
                let n = try fd.write(bytes[offset...])
                if n <= 0 { throw Errno.ioError }
                offset += n
            }
            if durable && fsync(fd.rawValue) != 0 { throw Errno.current }
        } catch {
            try? fd.close()
            unlink(temporary)
            throw error
        }
        try fd.close()
        try rename(temporary, to: path)
        // The rename itself is durable once the directory is flushed.
        if durable, let dir = try? FileDescriptor.open(directory, .readOnly, options: .directory) {
            _ = fsync(dir.rawValue)
            try? dir.close()
        }
    }

    /// Deletes what writers of `path` that no longer run left behind (`kill -9` mid-write leaves a
    /// temporary as large as the file). Returns the names removed. A live writer's temporary is
    /// kept: it is about to be renamed.
    @discardableResult
    public static func removeStaleTemporaries(of path: String) -> [String] {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let prefix = "." + name + ".tmp-"
        var removed: [String] = []
        for entry in FileSystem.list(directory) where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ pid_t($0) }), pid > 0 else { continue }
            // kill(pid, 0): ESRCH means no such process; EPERM means someone else's, alive.
            if pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH { continue }
            let full = directory + "/" + entry
            // lstat, not stat: a planted link is removed as a link, its target untouched.
            var info = stat()
            guard lstat(full, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG || (info.st_mode & S_IFMT) == S_IFLNK else { continue }
            if unlink(full) == 0 { removed.append(entry) }
        }
        return removed
    }

    /// `rename(2)`: atomic within one file system.
    public static func rename(_ from: String, to path: String) throws(Errno) {
        if Glibc.rename(from, path) != 0 {
            let e = Errno.current
            unlink(from)
            throw e
        }
    }
}


/// What this process holds, for the status file and the statistics line.
public enum ProcessResources {
    /// Resident memory now, in KiB (`/proc/self/statm`); nil when /proc is not mounted.
    public static func residentKB() -> Int? {
        guard let fd = try? FileDescriptor.open("/proc/self/statm", .readOnly) else { return nil }
        defer { try? fd.close() }
        guard let bytes = try? fd.read(upTo: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    /// Open file descriptors (`/proc/self/fd`, less the one reading it); nil without /proc.
    public static func openDescriptors() -> Int? {
        guard FileSystem.isDirectory("/proc/self/fd") else { return nil }
        return FileSystem.list("/proc/self/fd").count - 1
    }

    /// For a process that runs for months: blocks of 256 KiB and more (price series, pictures)
    /// come from `mmap` and go back to the kernel when freed, instead of glibc's default of raising
    /// that threshold after the first such free, after which replaced series are carved out of the
    /// heap and fragment it (the soak saw RSS creep by ~2 MB over a month that way).
    public static func returnLargeBlocksToTheKernel() {
        _ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
        _ = mallopt(M_TRIM_THRESHOLD, 1 << 20)
    }

    /// Returns free heap pages to the kernel (`malloc_trim`): after a large structure is replaced.
    public static func releaseFreeMemory() {
        _ = malloc_trim(0)
    }

    /// Writes to a pipe or socket whose reader has left fail with EPIPE instead of ending the
    /// process with SIGPIPE (status 141: `tickerboard ctl screenshot | head -c 8192` killed a daemon
    /// started by hand; systemd's default masks it for the unit only). Children get the default
    /// back (`ChildProcess` resets every signal).
    public static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Peak resident memory of this program in KiB: the kernel's VmHWM. Not `getrusage`'s maxrss,
    /// which keeps the peak of the process before `execve` (under `swift run` it said 121 MB where
    /// VmHWM said 33 MB); that only where /proc cannot be read.
    public static func peakKB() -> Int {
        let hwm = ProcessStatus.kilobytes("VmHWM")
        if hwm > 0 { return hwm }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}

/// Why a file could not be read whole.
public enum FileReadError: Error, Equatable, Sendable, CustomStringConvertible {
    case notFound
    case isDirectory
    /// A FIFO, socket or device: reading one could block the daemon or never end.
    case notRegularFile
    case tooLarge(bytes: Int64, limit: Int64)
    case system(Errno)

    public var description: String {
        switch self {
        case .notFound: "no such file"
        case .isDirectory: "it is a directory"
        case .notRegularFile: "not a regular file"
        case .tooLarge(let bytes, let limit): "larger than \(limit) bytes (\(bytes) or more)"
        case .system(let e): e.description
        }
    }
}

/// Reading files that other programs write (config, price data, time zones, sysfs attributes):
/// the one whole-file reader, so every bound lives in one place (swift-system's `FileHelpers`
/// plays this part there).
public enum RegularFile {
    /// The whole regular file at `path`, refusing more than `limit` bytes.
    ///
    /// Opened with `O_NONBLOCK`, so a FIFO without a writer cannot hang `open`; `fstat` then refuses
    /// anything but a regular file before a byte is read. The size from `fstat` is a hint, not a
    /// promise (a file being appended to grows; sysfs and procfs report 4096 or 0): reading stops
    /// at end of file or at `limit + 1` bytes, whichever is first, so memory never exceeds the limit.
    public static func read(_ path: String, limit: Int) throws(FileReadError) -> [UInt8] {
        try readWithMode(path, limit: limit).bytes
    }

    /// Opens `path` without blocking (a FIFO without a writer cannot hang `open`) and refuses, by
    /// `fstat` on that descriptor, anything but a regular file of at most `limit` bytes.
    static func openRegular(_ path: String, limit: Int, followSymlinks: Bool = true) throws(FileReadError)
        -> (FileDescriptor, stat) {
        let fd: FileDescriptor
        let options: FileDescriptor.OpenOptions = followSymlinks ? .nonBlocking : [.nonBlocking, .noFollow]
        do { fd = try FileDescriptor.open(path, .readOnly, options: options) } catch {
            if error == .noSuchFileOrDirectory || error.rawValue == ENOTDIR { throw .notFound }
            throw .system(error)
        }
        var info = stat()
        let problem: FileReadError?
        if fstat(fd.rawValue, &info) != 0 { problem = .system(.current) } else {
            switch info.st_mode & S_IFMT {
            case S_IFREG: problem = Int64(info.st_size) > Int64(limit) ? .tooLarge(bytes: Int64(info.st_size), limit: Int64(limit)) : nil
            case S_IFDIR: problem = .isDirectory
            default: problem = .notRegularFile
            }
        }
        if let problem {
            try? fd.close()
            throw problem
        }
        return (fd, info)
    }

    /// `read`, plus the file's permission bits as `fstat` saw them on the descriptor that was read
    /// (no window between checking and reading); `followSymlinks: false` refuses a link.
    public static func readWithMode(_ path: String, limit: Int, followSymlinks: Bool = true) throws(FileReadError)
        -> (bytes: [UInt8], mode: mode_t) {
        let (fd, info) = try openRegular(path, limit: limit, followSymlinks: followSymlinks)
        defer { try? fd.close() }
        let size = Int64(info.st_size)

        var bytes = [UInt8](repeating: 0, count: min(Int(max(size, 0)), limit) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                if count > limit { throw .tooLarge(bytes: Int64(count), limit: Int64(limit)) }
                bytes.append(contentsOf: repeatElement(0, count: min(max(count, 4096), limit + 1 - count)))
            }
            let n: Int
            do {
                n = try bytes.withUnsafeMutableBytes { raw in
                    Result { () throws(Errno) in try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...])) }
                }.get()
            } catch { throw .system(error) }
            if n == 0 { break }
            count += n
        }
        if count > limit { throw .tooLarge(bytes: Int64(count), limit: Int64(limit)) }
        bytes.removeSubrange(count...)
        return (bytes, info.st_mode & 0o7777)
    }
}

/// A regular file mapped read-only, for large files a C library reads in place (fonts, for
/// FreeType): the same checks as `RegularFile.read` (no FIFO, no device, a size limit), but only
/// the pages touched cost memory, and they are the page cache's, shared with every other reader.
/// Files that are replaced by rename (as packages do) keep the mapped inode intact.
public final class MappedFile: @unchecked Sendable {
    /// The file's bytes, valid while this object lives.
    public let bytes: UnsafeRawBufferPointer

    public init(_ path: String, limit: Int) throws(FileReadError) {
        let (fd, info) = try RegularFile.openRegular(path, limit: limit)
        defer { try? fd.close() }
        let size = Int64(info.st_size)
        guard size > 0 else { bytes = UnsafeRawBufferPointer(start: nil, count: 0); return }
        guard let p = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, fd.rawValue, 0), p != MAP_FAILED else {
            throw .system(.current)
        }
        bytes = UnsafeRawBufferPointer(start: p, count: Int(size))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
