import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// A monotonic-clock timer that becomes readable when it expires; it costs nothing while disarmed.
public final class TimerFD {
    public let descriptor: FileDescriptor

    public init() throws(Errno) {
        let fd = try retryingOnInterrupt { timerfd_create(CLOCK_MONOTONIC, CInt(TFD_NONBLOCK | TFD_CLOEXEC)) }
        descriptor = FileDescriptor(rawValue: fd)
    }

    deinit { try? descriptor.close() }

    /// Fires after `initial`, then every `interval` (nil = once). A zero `initial` would disarm the
    /// timer in the kernel's API, so it is raised to 1 ns. The C function is `timerfd_settime`.
    public func arm(initial: Duration, interval: Duration? = nil) throws(Errno) {
        try set(firstNanos: max(1, initial.nanosecondsClamped), intervalNanos: interval?.nanosecondsClamped ?? 0,
                absolute: false)
    }

    /// Fires at the absolute monotonic time `deadlineNanos` (see ``MonotonicClock``), then every
    /// `intervalNanos` if non-zero. Used to phase-lock a pacing timer to a flip timestamp.
    public func arm(atMonotonicNanos deadlineNanos: UInt64, intervalNanos: UInt64 = 0) throws(Errno) {
        try set(firstNanos: max(1, deadlineNanos), intervalNanos: intervalNanos, absolute: true)
    }

    /// Stops the timer; pending expirations are discarded.
    public func disarm() throws(Errno) {
        try set(firstNanos: 0, intervalNanos: 0, absolute: false)
        _ = try readExpirations()
    }

    /// How many times the timer expired since the last read (0 if none: the fd is non-blocking).
    @discardableResult
    public func readExpirations() throws(Errno) -> UInt64 {
        try descriptor.read(UInt64.self) ?? 0
    }

    private func set(firstNanos: UInt64, intervalNanos: UInt64, absolute: Bool) throws(Errno) {
        var spec = itimerspec(it_interval: timespec(nanoseconds: intervalNanos), it_value: timespec(nanoseconds: firstNanos))
        let flags = absolute ? CInt(TFD_TIMER_ABSTIME) : 0
        _ = try retryingOnInterrupt { timerfd_settime(descriptor.rawValue, flags, &spec, nil) }
    }
}

/// Readable when someone sets the wall clock (an NTP step, a board without a battery clock
/// learning the date, `date -s`): a `CLOCK_REALTIME` timer armed far in the future with
/// `TFD_TIMER_CANCEL_ON_SET`, which the kernel cancels on every set. Waiting on it costs nothing;
/// without it, anything decided by the wall clock waits for its next monotonic deadline.
public final class ClockStepWatch {
    public let descriptor: FileDescriptor

    public init() throws(Errno) {
        let fd = try retryingOnInterrupt { timerfd_create(CLOCK_REALTIME, CInt(TFD_NONBLOCK | TFD_CLOEXEC)) }
        descriptor = FileDescriptor(rawValue: fd)
        try arm()
    }

    deinit { try? descriptor.close() }

    /// True when the clock was set since the last call (or since `init`); the watch is re-armed.
    public func clockWasSet() throws(Errno) -> Bool {
        var expirations: UInt64 = 0
        let n = read(descriptor.rawValue, &expirations, MemoryLayout<UInt64>.size)
        if n < 0 && errno == ECANCELED {
            try arm()
            return true
        }
        return false
    }

    private func arm() throws(Errno) {
        // Absolute, about 100 years on: it never expires, only gets cancelled.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var spec = itimerspec(it_interval: timespec(), it_value: timespec(tv_sec: now.tv_sec + 3_153_600_000, tv_nsec: 0))
        _ = try retryingOnInterrupt {
            timerfd_settime(descriptor.rawValue, CInt(TFD_TIMER_ABSTIME) | CInt(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
        }
    }
}
