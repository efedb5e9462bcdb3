#if canImport(Glibc)
import Glibc
#endif

/// Files other programs read while we write them (status, preview, ready file): written to a
/// temporary name in the same directory and renamed over the old one, so a reader sees the old
/// file or the new one, never half of either.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String, permissions: mode_t = 0o644) throws(Errno) {
        let temporary = path + ".tmp"
        let fd = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate], permissions: permissions)
        // Exactly `permissions`: a service's UMask=0077 would otherwise hide a status file from the
        // monitoring agent that reads it.
        _ = fchmod(fd.rawValue, permissions)
        do throws(Errno) {
            var offset = 0
            while offset < bytes.count {
                let n = try fd.write(bytes[offset...])
                if n <= 0 { throw Errno.ioError }
                offset += n
            }
        } catch {
            try? fd.close()
            unlink(temporary)
            throw error
        }
        try fd.close()
        try rename(temporary, to: path)
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

/// The wall clock (`CLOCK_REALTIME`), Unix seconds: it can step (NTP, `timedatectl`).
public enum WallClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
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
        guard let dir = opendir("/proc/self/fd") else { return nil }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { count += 1 }
        }
        return count - 1
    }

    /// Peak resident memory in KiB (`getrusage`).
    public static func peakKB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}
