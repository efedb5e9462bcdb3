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

/// The CPU time of the calling thread: what one piece of work cost on its own, whatever else the
/// process does (the benchmarks' "rasterizer's share" of a frame).
public enum ThreadCPUTime {
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// The kernel's count of this process's minor page faults (a page mapped in without I/O: what a
/// fresh allocation's first write costs), from `getrusage`.
public enum PageFaults {
    public static func minor() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_minflt)
    }
}

/// What a preloaded allocation counter (`Tests/Bench/alloc-count.c`, through `LD_PRELOAD`) has
/// counted: calls to malloc and its kin and the bytes asked for. Nil without one: glibc keeps no
/// running total of its own.
public enum AllocationCounter {
    private typealias Read = @convention(c) (UnsafeMutablePointer<UInt64>?, UnsafeMutablePointer<UInt64>?) -> Void
    public static func read() -> (calls: UInt64, bytes: UInt64)? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "tb_alloc_counts") else { return nil }
        var calls: UInt64 = 0, bytes: UInt64 = 0
        unsafeBitCast(symbol, to: Read.self)(&calls, &bytes)
        return (calls, bytes)
    }
}
