import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// An epoll instance; owns its descriptor. A class (not `~Copyable`) because the event loop and
/// the KMS display keep one in closures and stored properties.
public final class Epoll {
    public let descriptor: FileDescriptor

    /// Readiness bits. `EPOLLIN` and friends import as enum cases, hence `.rawValue`.
    public struct Events: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: EPOLLIN.rawValue)
        public static let writable = Events(rawValue: EPOLLOUT.rawValue)
        public static let error = Events(rawValue: EPOLLERR.rawValue)
        public static let hangup = Events(rawValue: EPOLLHUP.rawValue)
        /// Out-of-band news: a CEC adapter's events (`CEC_DQEVENT`) come this way.
        public static let priority = Events(rawValue: EPOLLPRI.rawValue)
    }

    /// One ready descriptor: its readiness and the token it was registered with.
    public struct Event: Sendable, Equatable {
        public var events: Events
        public var token: UInt64
    }

    public init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try retryingOnInterrupt { epoll_create1(CInt(EPOLL_CLOEXEC)) })
    }

    deinit { try? descriptor.close() }

    /// Starts watching `fd`; `token` comes back in each ``Event``. The C function is `epoll_ctl`.
    public func add(_ fd: CInt, events: Events, token: UInt64) throws(Errno) {
        try control(EPOLL_CTL_ADD, fd, events, token)
    }

    /// Changes the events or token of a watched descriptor.
    public func modify(_ fd: CInt, events: Events, token: UInt64) throws(Errno) {
        try control(EPOLL_CTL_MOD, fd, events, token)
    }

    /// Stops watching `fd`.
    public func remove(_ fd: CInt) throws(Errno) {
        _ = try retryingOnInterrupt { epoll_ctl(descriptor.rawValue, EPOLL_CTL_DEL, fd, nil) }
    }

    private func control(_ op: CInt, _ fd: CInt, _ events: Events, _ token: UInt64) throws(Errno) {
        var ev = epoll_event()
        ev.events = events.rawValue
        ev.data.u64 = token
        _ = try retryingOnInterrupt { epoll_ctl(descriptor.rawValue, op, fd, &ev) }
    }

    /// Waits up to `timeout` (nil = forever, zero = just poll). A signal interrupting the wait gives
    /// an empty result instead of an error, so the caller's loop simply goes round again.
    public func wait(timeout: Duration? = nil, maxEvents: Int = 32) throws(Errno) -> [Event] {
        let ms: CInt
        if let timeout {
            // Round up: a timeout rounded down to 0 ms would make a busy loop.
            let ns = timeout.nanosecondsClamped
            ms = CInt(clamping: (ns + 999_999) / 1_000_000)
        } else {
            ms = -1
        }
        let capacity = max(1, maxEvents)
        // The Result carries the typed error through the standard library's closure, which is
        // `rethrows` (untyped) in Swift 6.0.
        return try withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: capacity) { buf in
            Result { () throws(Errno) -> [Event] in
                let n = epoll_wait(descriptor.rawValue, buf.baseAddress!, CInt(capacity), ms)
                if n < 0 {
                    let e = Errno.current
                    if e == .interrupted { return [] }
                    throw e
                }
                return (0..<Int(n)).map { Event(events: Events(rawValue: buf[$0].events), token: buf[$0].data.u64) }
            }
        }.get()
    }
}
