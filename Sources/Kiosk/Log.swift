import KioskCore
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// Log lines on stderr with the `<N>` syslog priority prefixes journald understands, so
/// `journalctl -p warning -u tickerboard` works. Repeated warnings are rate-limited per key.
extension Log {
    /// When false (an interactive terminal), the prefixes are left out.
    nonisolated(unsafe) public static var usesPriorityPrefixes = isatty(2) == 0
    nonisolated(unsafe) private static var lastByKey: [String: (time: Int64, suppressed: Int)] = [:]

    public static func write(_ priority: Priority, _ message: String) {
        let line = (usesPriorityPrefixes ? "<\(priority.rawValue)>" : "") + message + "\n"
        StandardStream.error.write(line)
    }

    public static func error(_ message: String) { write(.error, message) }
    public static func warning(_ message: String) { write(.warning, message) }
    public static func notice(_ message: String) { write(.notice, message) }
    public static func info(_ message: String) { write(.info, message) }

    /// Logs `message` at most once per `interval` seconds for `key`, then says how many were held back.
    public static func limited(_ priority: Priority, key: String, interval: Int64 = 60, _ message: String) {
        let now = Int64(MonotonicClock.now() / 1_000_000_000)
        if let last = lastByKey[key], now - last.time < interval {
            lastByKey[key] = (last.time, last.suppressed + 1)
            return
        }
        let suppressed = lastByKey[key]?.suppressed ?? 0
        lastByKey[key] = (now, 0)
        write(priority, suppressed > 0 ? "\(message) (\(suppressed) similar messages suppressed)" : message)
    }
}
