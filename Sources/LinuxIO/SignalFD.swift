import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Signals delivered as readable records instead of asynchronous handlers.
///
/// The signals are blocked first. Create it at the very top of `main`, before anything starts a
/// thread: threads inherit the mask, and a thread without it would take SIGTERM's default action.
public final class SignalFD {
    public let descriptor: FileDescriptor
    public let signals: [CInt]

    /// One received signal.
    public struct Info: Sendable, Equatable {
        public var signal: CInt
        /// The sender's pid (0 for the kernel).
        public var senderPID: pid_t
        public var senderUID: uid_t
    }

    public init(signals: [CInt]) throws(Errno) {
        self.signals = signals
        var set = SignalFD.makeSet(signals)
        let rc = pthread_sigmask(SIG_BLOCK, &set, nil)
        if rc != 0 { throw Errno(rawValue: rc) }
        descriptor = FileDescriptor(rawValue: try retryingOnInterrupt {
            signalfd(-1, &set, CInt(SFD_NONBLOCK | SFD_CLOEXEC))
        })
    }

    /// Closes the descriptor; the signals stay blocked (unblock with ``unblock()`` if needed).
    deinit { try? descriptor.close() }

    /// The next pending signal, or nil when none is queued.
    public func next() throws(Errno) -> Info? {
        guard let info = try descriptor.read(signalfd_siginfo.self) else { return nil }
        return Info(signal: CInt(info.ssi_signo), senderPID: pid_t(info.ssi_pid), senderUID: info.ssi_uid)
    }

    /// Unblocks this instance's signals on the calling thread.
    public func unblock() {
        var set = SignalFD.makeSet(signals)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    private static func makeSet(_ signals: [CInt]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        return set
    }
}
