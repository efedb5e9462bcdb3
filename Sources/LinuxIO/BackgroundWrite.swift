#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// Makes a byte string and writes it to a descriptor someone else handed over (a screenshot to a
/// client's standard output) on a thread of its own, so the loop never waits on either: encoding a
/// 1080p PNG took 94 ms of the loop, and a regular file's write cannot be made non-blocking at all
/// (`O_NONBLOCK` means nothing to it): on a hung NFS server or sshfs mount it blocks for as long as
/// the server is away, and the loop with it (no `WATCHDOG=1` for 50 s). The loop waits on `done`,
/// an eventfd that becomes readable when the thread has finished, and may give up on a write that
/// takes too long; the thread then finishes on its own whenever the write returns, holding nothing
/// of the caller's. `inFlight` counts the writes whose threads have not returned, stalled ones
/// included, so a caller can bound them.
public final class BackgroundWrite: @unchecked Sendable {
    public enum Kind: Sendable, Equatable { case regular, pipe, socket, terminal, other }

    public struct Problem: Error, Sendable, Equatable {
        public var text: String
        public init(_ text: String) { self.text = text }
    }

    public enum Outcome: Sendable, Equatable {
        case written(Int)
        case failed(String)
    }

    /// Readable once the thread has finished (read it, then `outcome` holds the result).
    public let done: FileDescriptor
    public let kind: Kind
    private let target: FileDescriptor
    private let make: @Sendable () throws(Problem) -> [UInt8]
    /// How long a pipe's or socket's reader may take nothing before the write is given up (ns).
    private let patience: UInt64
    private let result = Mutex<Outcome?>(nil)
    private static let running = Atomic<Int>(0)

    /// Writes started whose threads have not returned (a write stalled on a hung file system too).
    public static var inFlight: Int { running.load(ordering: .acquiring) }

    /// What kind of file `descriptor` is open on (a terminal is worth refusing: a PNG on it is noise).
    public static func kind(of descriptor: FileDescriptor) throws(Errno) -> Kind {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno.current }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFIFO: return .pipe
        case S_IFSOCK: return .socket
        case S_IFCHR: return isatty(descriptor.rawValue) == 1 ? .terminal : .other
        default: return .other
        }
    }

    /// Starts the thread: `make()` runs there, then its bytes are written to a duplicate of
    /// `descriptor` (closed when the thread is done; the caller keeps its own).
    public init(to descriptor: FileDescriptor, patience: Duration = .seconds(60),
                making make: @escaping @Sendable () throws(Problem) -> [UInt8]) throws(Errno) {
        kind = try Self.kind(of: descriptor)
        self.patience = patience.nanosecondsClamped
        let own = try retryingOnInterrupt { fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 3) }
        target = FileDescriptor(rawValue: own)
        let event = eventfd(0, CInt(EFD_CLOEXEC | EFD_NONBLOCK))
        guard event >= 0 else {
            let e = Errno.current
            try? target.close()
            throw e
        }
        done = FileDescriptor(rawValue: event)
        self.make = make
        Self.running.add(1, ordering: .sequentiallyConsistent)
        // The thread owns a reference until it returns: the caller may let go of this object long
        // before a stalled write does.
        let retained = Unmanaged.passRetained(self).toOpaque()
        // Signals stay with the loop's signalfd: the thread blocks them all.
        var all = sigset_t(), old = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_SETMASK, &all, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let job = Unmanaged<BackgroundWrite>.fromOpaque(raw!).takeRetainedValue()
            job.run()
            return nil
        }, retained)
        guard rc == 0 else {
            Unmanaged<BackgroundWrite>.fromOpaque(retained).release()
            Self.running.subtract(1, ordering: .sequentiallyConsistent)
            try? target.close()
            try? done.close()
            throw Errno(rawValue: rc)
        }
        pthread_detach(thread)
    }

    deinit { try? done.close() }

    /// The result, once `done` was readable (nil before).
    public var outcome: Outcome? { result.withLock { $0 } }

    private func run() {
        let outcome: Outcome
        do throws(Problem) {
            let bytes = try make()
            outcome = write(bytes)
        } catch {
            outcome = .failed(error.text)
        }
        try? target.close()
        result.withLock { $0 = outcome }
        Self.running.subtract(1, ordering: .sequentiallyConsistent)
        var one: UInt64 = 1
        _ = Glibc.write(done.rawValue, &one, 8)
    }

    private func write(_ bytes: [UInt8]) -> Outcome {
        var offset = 0
        let start = MonotonicClock.now()
        while offset < bytes.count {
            // A pipe or a socket must never block even here: a reader that never reads would hold
            // the thread (and the count) for ever. A page at a time after poll says there is room
            // cannot block on a pipe, `MSG_DONTWAIT` cannot on a socket; the reader gets `patience`.
            if kind == .pipe || kind == .socket {
                if MonotonicClock.now() &- start > patience { return .failed("the reader took nothing for \(patience / 1_000_000_000) s") }
                var p = pollfd(fd: target.rawValue, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&p, 1, 250)
                if ready < 0, Errno.current == .interrupted { continue }
                if ready <= 0 { continue }
                if p.revents & Int16(POLLERR | POLLHUP) != 0 { return .failed("\(Errno(rawValue: EPIPE))") }
            }
            let chunk = kind == .pipe ? min(bytes.count - offset, Int(PIPE_BUF)) : bytes.count - offset
            let n = bytes[offset..<(offset + chunk)].withUnsafeBytes { raw in
                kind == .socket ? Glibc.send(target.rawValue, raw.baseAddress, raw.count, CInt(MSG_DONTWAIT) | CInt(MSG_NOSIGNAL))
                    : Glibc.write(target.rawValue, raw.baseAddress, raw.count)
            }
            if n < 0 {
                let e = Errno.current
                if e == .interrupted || e == .wouldBlock { continue }
                return .failed("\(e)")
            }
            if n == 0 { return .failed("the descriptor took nothing") }
            offset += n
        }
        return .written(offset)
    }
}
