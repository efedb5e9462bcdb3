#if canImport(Glibc)
import Glibc
#endif

/// The daemon's one loop: epoll over registered descriptors and timerfd-backed timers, each with a
/// closure. Single-threaded by design (no Dispatch, no async): handlers run on the thread that
/// calls ``run()`` and may capture non-Sendable state. When nothing is ready the thread sleeps in
/// `epoll_wait` with no timeout, so an idle daemon has zero wakeups.
public final class EventLoop {
    /// Identifies a registration, for ``remove(_:)``.
    public struct Registration: Hashable, Sendable {
        let token: UInt64
    }

    private enum Source {
        case descriptor(CInt, (Epoll.Events) -> Void)
        case timer(TimerFD, () -> Void)
    }

    private let epoll: Epoll
    private var sources: [UInt64: Source] = [:]
    private var nextToken: UInt64 = 1
    private var stopRequested = false
    /// Handlers dispatched since the loop was made (for wakeup statistics).
    public private(set) var dispatchCount: UInt64 = 0
    /// `epoll_wait` calls that returned (with or without events).
    public private(set) var wakeupCount: UInt64 = 0

    public init() throws(Errno) {
        epoll = try Epoll()
    }

    /// Calls `handler` whenever `descriptor` is ready. The loop does not own the descriptor.
    @discardableResult
    public func watch(
        _ descriptor: CInt, events: Epoll.Events = .readable, handler: @escaping (Epoll.Events) -> Void
    ) throws(Errno) -> Registration {
        let token = nextToken
        try epoll.add(descriptor, events: events, token: token)
        nextToken += 1
        sources[token] = .descriptor(descriptor, handler)
        return Registration(token: token)
    }

    /// Calls `handler` after `delay`, then every `interval` if given. The timer is a timerfd, so it
    /// costs no wakeup until it fires.
    @discardableResult
    public func addTimer(
        after delay: Duration, repeating interval: Duration? = nil, handler: @escaping () -> Void
    ) throws(Errno) -> Registration {
        let timer = try TimerFD()
        try timer.arm(initial: delay, interval: interval)
        let token = nextToken
        try epoll.add(timer.descriptor.rawValue, events: .readable, token: token)
        nextToken += 1
        sources[token] = .timer(timer, handler)
        return Registration(token: token)
    }

    /// Re-arms a timer made by ``addTimer(after:repeating:handler:)``.
    public func rearm(_ registration: Registration, after delay: Duration, repeating interval: Duration? = nil) throws(Errno) {
        guard case .timer(let timer, _)? = sources[registration.token] else { throw .invalidArgument }
        try timer.arm(initial: delay, interval: interval)
    }

    /// Stops a timer without removing it (re-arm it later with ``rearm(_:after:repeating:)``).
    public func disarm(_ registration: Registration) throws(Errno) {
        guard case .timer(let timer, _)? = sources[registration.token] else { throw .invalidArgument }
        try timer.disarm()
    }

    /// Changes what a descriptor watch waits for (readable, writable or both).
    public func modify(_ registration: Registration, events: Epoll.Events) throws(Errno) {
        guard case .descriptor(let fd, _)? = sources[registration.token] else { throw .invalidArgument }
        try epoll.modify(fd, events: events, token: registration.token)
    }

    /// Removes a descriptor watch or a timer. Safe to call from inside a handler.
    public func remove(_ registration: Registration) {
        guard let source = sources.removeValue(forKey: registration.token) else { return }
        switch source {
        case .descriptor(let fd, _): try? epoll.remove(fd)
        case .timer(let timer, _): try? epoll.remove(timer.descriptor.rawValue)
        }
    }

    /// Makes ``run()`` return after the current round of handlers.
    public func stop() { stopRequested = true }

    /// Waits once (up to `timeout`; nil = until something is ready) and runs the ready handlers.
    /// Returns how many handlers ran.
    @discardableResult
    public func runOnce(timeout: Duration? = nil) throws(Errno) -> Int {
        let events = try epoll.wait(timeout: timeout)
        wakeupCount += 1
        var ran = 0
        for event in events {
            // A handler earlier in this batch may have removed this source.
            guard let source = sources[event.token] else { continue }
            switch source {
            case .descriptor(_, let handler):
                handler(event.events)
            case .timer(let timer, let handler):
                guard (try? timer.readExpirations()) ?? 0 > 0 else { continue }
                handler()
            }
            ran += 1
            dispatchCount += 1
        }
        return ran
    }

    /// Runs until ``stop()`` is called (also when it was called before `run`, e.g. by a handler
    /// of set-up work that failed).
    public func run() throws(Errno) {
        defer { stopRequested = false }
        while !stopRequested {
            try runOnce()
        }
    }
}
