// LinuxIO: thin typed wrappers over the Linux syscalls the daemon uses — errno as a typed error,
// file descriptors, epoll, timerfd, signalfd, inotify, netlink uevents, sd_notify — and a small
// single-threaded event loop on top. Every raw libc call lives in this module, in small wrappers;
// callers see Swift types and `throws(Errno)`.

#if canImport(Glibc)
import Glibc
#endif

/// A POSIX error number. A struct, not an enum, so codes without a name still round-trip.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The calling thread's `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    /// `EPERM`.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `ENOENT`.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EINTR`.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EIO`.
    public static let ioError = Errno(rawValue: EIO)
    /// `ENXIO`.
    public static let noSuchDeviceOrAddress = Errno(rawValue: ENXIO)
    /// `EBADF`.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `EAGAIN` (same value as `EWOULDBLOCK` on Linux).
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `ENOMEM`.
    public static let noMemory = Errno(rawValue: ENOMEM)
    /// `EACCES`.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EBUSY`.
    public static let resourceBusy = Errno(rawValue: EBUSY)
    /// `EEXIST`.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `ENODEV`.
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    /// `EINVAL`.
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `ENOTTY`: the ioctl does not apply to this file.
    public static let notATerminal = Errno(rawValue: ENOTTY)
    /// `ENOSPC`.
    public static let noSpace = Errno(rawValue: ENOSPC)
    /// `ENAMETOOLONG`.
    public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)
    /// `ENOSYS`.
    public static let notImplemented = Errno(rawValue: ENOSYS)
    /// `EOPNOTSUPP`.
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    /// `ECONNREFUSED`.
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    /// `ETIMEDOUT`.
    public static let timedOut = Errno(rawValue: ETIMEDOUT)

    /// The C library's text alone, e.g. "Permission denied".
    public var message: String { strerror(rawValue).map { String(cString: $0) } ?? "errno \(rawValue)" }

    /// The C library's text for the code, e.g. "Permission denied (errno 13)".
    public var description: String {
        guard let text = strerror(rawValue) else { return "errno \(rawValue)" }
        return "\(String(cString: text)) (errno \(rawValue))"
    }

    /// Turns the `-errno` convention (libdrm's mode calls, kernel-style APIs) into a throw.
    @inlinable
    public static func checkNegated(_ result: CInt) throws(Errno) {
        if result < 0 { throw Errno(rawValue: -result) }
    }
}

/// Runs a call that returns -1 and sets `errno` on failure, retrying on `EINTR`.
@inlinable
public func retryingOnInterrupt<T: FixedWidthInteger>(_ call: () -> T) throws(Errno) -> T {
    while true {
        let result = call()
        if result != -1 { return result }
        let error = Errno.current
        if error != .interrupted { throw error }
    }
}

/// Memory figures of this process from `/proc/self/status` (VmRSS now, VmHWM the peak).
public enum ProcessStatus {
    /// The value of `key` ("VmRSS", "VmHWM", ...) in KiB; 0 when it cannot be read.
    public static func kilobytes(_ key: String) -> Int {
        guard let fd = try? FileDescriptor.open("/proc/self/status", .readOnly) else { return 0 }
        defer { try? fd.close() }
        let text = String(decoding: (try? fd.read(upTo: 8192)) ?? [], as: UTF8.self)
        return kilobytes(key, in: text) ?? 0
    }

    /// `key` in the text of a status file: lines like "VmRSS:\t   11328 kB" (a tab, then spaces).
    public static func kilobytes(_ key: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped at zero.
    var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}

extension timespec {
    init(nanoseconds: UInt64) {
        self.init(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}
