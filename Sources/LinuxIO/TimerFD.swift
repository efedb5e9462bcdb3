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
