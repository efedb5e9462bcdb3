#if canImport(Glibc)
import Glibc
#endif

/// A raw file descriptor: a value, not an owner (like swift-system's). The owning types in this
/// module (`Epoll`, `TimerFD`, …) close theirs in `deinit`; a plain `FileDescriptor` from `open`
/// must be closed by whoever opened it.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    public let rawValue: CInt
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// Flags for ``open(_:_:options:permissions:)``.
    public enum AccessMode: Sendable {
        case readOnly, writeOnly, readWrite
        var flags: CInt {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    public struct OpenOptions: OptionSet, Sendable {
        public let rawValue: CInt
        public init(rawValue: CInt) { self.rawValue = rawValue }
        public static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        public static let create = OpenOptions(rawValue: O_CREAT)
        public static let truncate = OpenOptions(rawValue: O_TRUNC)
        public static let append = OpenOptions(rawValue: O_APPEND)
        public static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
        /// Refuse a symbolic link as the last component (ELOOP): for files whose owner and mode
        /// matter, such as API keys.
        public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// With `.create`: fail (EEXIST) if anything is at the path, a symbolic link included.
        public static let exclusive = OpenOptions(rawValue: O_EXCL)
        /// Fail unless the path is a directory (to fsync one after a rename).
        public static let directory = OpenOptions(rawValue: O_DIRECTORY)
    }

    /// Opens `path`; always close-on-exec so a helper we spawn never inherits the DRM fd.
    /// The corresponding C function is `open`.
    public static func open(
        _ path: String, _ mode: AccessMode, options: OpenOptions = [], permissions: mode_t = 0o644
    ) throws(Errno) -> FileDescriptor {
        let fd = try retryingOnInterrupt { Glibc.open(path, mode.flags | options.rawValue | O_CLOEXEC, permissions) }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens `path` with flags a C library chose (libinput's `open_restricted`), close-on-exec added.
    public static func open(_ path: String, flags: CInt) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingOnInterrupt { Glibc.open(path, flags | O_CLOEXEC) })
    }

    /// Closes the descriptor. `EINTR` is not retried: on Linux the fd is gone either way.
    public func close() throws(Errno) {
        if Glibc.close(rawValue) == -1 {
            let e = Errno.current
            if e != .interrupted { throw e }
        }
    }

    /// Reads up to `buffer.count` bytes; 0 means end of file. Throws `.wouldBlock` when non-blocking.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Reads up to `maxBytes` into a new array.
    public func read(upTo maxBytes: Int) throws(Errno) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: maxBytes)
        // Array's withUnsafe… closures rethrow untyped errors; a Result keeps the type.
        let n = try bytes.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try read(into: raw) } }.get()
        bytes.removeSubrange(n...)
        return bytes
    }

    /// Reads one fixed-size kernel record (timerfd count, signalfd_siginfo, …); nil when it would
    /// block. A short read is reported as `EIO`: these interfaces never return partial records.
    public func read<T>(_: T.Type) throws(Errno) -> T? {
        do {
            return try withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buf in
                Result { () throws(Errno) -> T in
                    let raw = UnsafeMutableRawBufferPointer(buf)
                    let n = try read(into: raw)
                    guard n == MemoryLayout<T>.size else { throw Errno.ioError }
                    return raw.load(as: T.self)
                }
            }.get()
        } catch .wouldBlock {
            return nil
        }
    }

    /// Writes the bytes, returning how many were written.
    @discardableResult
    public func write(_ bytes: some Collection<UInt8>) throws(Errno) -> Int {
        let array = Array(bytes)
        return try array.withUnsafeBytes { raw in
            Result { () throws(Errno) in try retryingOnInterrupt { Glibc.write(rawValue, raw.baseAddress, raw.count) } }
        }.get()
    }

    /// Switches `O_NONBLOCK` on or off.
    public func setNonBlocking(_ on: Bool = true) throws(Errno) {
        let flags = try retryingOnInterrupt { fcntl(rawValue, F_GETFL) }
        let wanted = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        if wanted != flags { _ = try retryingOnInterrupt { fcntl(rawValue, F_SETFL, wanted) } }
    }

    /// Whether `O_NONBLOCK` is set.
    public var isNonBlocking: Bool {
        (fcntl(rawValue, F_GETFL) & O_NONBLOCK) != 0
    }
}
