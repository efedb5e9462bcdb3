// The clocks the daemon reads, in one place: the shell stamps events with them and the core only
// ever sees the numbers.

#if canImport(Glibc)
import Glibc
#endif

/// The wall clock (`CLOCK_REALTIME`), Unix seconds: it can step (NTP, `timedatectl`).
public enum WallClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The monotonic clock, the time base of vblank timestamps, timerfds and frame statistics.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot); never goes backwards.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// CPU time this process has used (user + system), from `getrusage`.
public enum ProcessCPUTime {
    /// User and system CPU time in nanoseconds.
    public static func now() -> (user: UInt64, system: UInt64) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func ns(_ t: timeval) -> UInt64 { UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_usec) &* 1000 }
        return (ns(usage.ru_utime), ns(usage.ru_stime))
    }
}
