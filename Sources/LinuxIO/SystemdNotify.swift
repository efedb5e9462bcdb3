import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// systemd's readiness/watchdog protocol (`sd_notify(3)`) without libsystemd: one datagram of
/// `KEY=VALUE` lines to the `AF_UNIX` socket named by `$NOTIFY_SOCKET` (a path, or `@name` for
/// the abstract namespace).
public enum SystemdNotify {
    /// Sends `state`; false when not started by systemd (no `$NOTIFY_SOCKET`), which is normal.
    @discardableResult
    public static func send(_ state: String, socketPath: String? = nil) throws(Errno) -> Bool {
        guard let path = socketPath ?? environment("NOTIFY_SOCKET"), !path.isEmpty else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract: leading NUL, no terminator
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .nameTooLong }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: pathBytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes[0] == 0 ? 0 : 1))

        let fd = try retryingOnInterrupt { socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0) }
        defer { _ = close(fd) }
        let message = Array(state.utf8)
        let sent = try message.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    Result { () throws(Errno) in
                        try retryingOnInterrupt { sendto(fd, bytes.baseAddress, bytes.count, CInt(MSG_NOSIGNAL), sa, length) }
                    }
                }
            }
        }.get()
        return sent == message.count
    }

    /// `READY=1`: startup finished (send it once the first frame is on screen).
    @discardableResult public static func ready() throws(Errno) -> Bool { try send("READY=1") }
    /// `WATCHDOG=1`: the service is alive.
    @discardableResult public static func watchdog() throws(Errno) -> Bool { try send("WATCHDOG=1") }
    /// `STOPPING=1`: shutdown has begun.
    @discardableResult public static func stopping() throws(Errno) -> Bool { try send("STOPPING=1") }
    /// `RELOADING=1`: a configuration reload has begun (send `READY=1` when done).
    @discardableResult public static func reloading() throws(Errno) -> Bool { try send("RELOADING=1") }
    /// `STATUS=…`: one line shown by `systemctl status`.
    @discardableResult public static func status(_ text: String) throws(Errno) -> Bool {
        try send("STATUS=" + text.split(separator: "\n").joined(separator: " "))
    }

    /// Half of `$WATCHDOG_USEC` (systemd's advice for the ping period) if the watchdog is meant
    /// for this process (`$WATCHDOG_PID` unset or ours); nil when no watchdog is configured.
    public static var watchdogPingInterval: Duration? {
        guard let usecText = environment("WATCHDOG_USEC"), let usec = UInt64(usecText), usec > 0 else { return nil }
        if let pidText = environment("WATCHDOG_PID"), let pid = Int32(pidText), pid != getpid() { return nil }
        return .microseconds(usec / 2)
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
