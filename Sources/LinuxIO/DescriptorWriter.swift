#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Writes a byte string to a descriptor someone else handed over (a screenshot to a client's
/// standard output) without ever blocking on it: a pipe gets what fits now (at most a page per
/// write after poll says there is room, which cannot block), a socket what `MSG_DONTWAIT` takes,
/// and a regular file or a device that does not wait (`/dev/null`) everything at once.
public struct DescriptorWriter {
    public enum Kind: Sendable, Equatable { case regular, pipe, socket, terminal, other }

    public let descriptor: FileDescriptor
    public let kind: Kind
    public private(set) var bytes: [UInt8]
    public private(set) var offset = 0

    /// Takes its own duplicate of `descriptor` (closed by `close()`).
    public init(_ descriptor: FileDescriptor, bytes: [UInt8]) throws(Errno) {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno.current }
        let own = try retryingOnInterrupt { fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 3) }
        self.descriptor = FileDescriptor(rawValue: own)
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFIFO: kind = .pipe
        case S_IFSOCK: kind = .socket
        case S_IFCHR: kind = isatty(own) == 1 ? .terminal : .other
        default: kind = .other
        }
        self.bytes = bytes
    }

    public var done: Bool { offset >= bytes.count }

    /// Writes what can be written now; true when everything is out.
    public mutating func writeAvailable() throws(Errno) -> Bool {
        while !done {
            let n: Int
            switch kind {
            case .regular, .other, .terminal:
                n = try bytes[offset...].withUnsafeBytes { raw in
                    Result { () throws(Errno) in try retryingOnInterrupt { Glibc.write(descriptor.rawValue, raw.baseAddress, raw.count) } }
                }.get()
            case .pipe:
                var p = pollfd(fd: descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
                guard poll(&p, 1, 0) == 1 else { return false }
                if p.revents & Int16(POLLERR | POLLHUP) != 0 { throw Errno(rawValue: EPIPE) }
                let chunk = min(bytes.count - offset, Int(PIPE_BUF))
                n = try bytes[offset..<(offset + chunk)].withUnsafeBytes { raw in
                    Result { () throws(Errno) in try retryingOnInterrupt { Glibc.write(descriptor.rawValue, raw.baseAddress, raw.count) } }
                }.get()
            case .socket:
                let sent = bytes[offset...].withUnsafeBytes { raw in
                    Glibc.send(descriptor.rawValue, raw.baseAddress, raw.count, CInt(MSG_DONTWAIT) | CInt(MSG_NOSIGNAL))
                }
                if sent < 0 {
                    let e = Errno.current
                    if e == .wouldBlock || e == .interrupted { return false }
                    throw e
                }
                n = sent
            }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    public func close() { try? descriptor.close() }
}

/// An anonymous file in memory (memfd): a descriptor to hand to another process (a screenshot the
/// daemon writes into), read back whole afterwards. Closed when it goes away.
public final class MemoryFile {
    public let descriptor: FileDescriptor

    public init(name: String) throws(Errno) {
        let fd = tb_memfd_create(name)
        guard fd >= 0 else { throw Errno.current }
        descriptor = FileDescriptor(rawValue: fd)
    }

    /// Everything written into it (at most `limit` bytes; nil when larger or unreadable).
    public func contents(limit: Int) -> [UInt8]? {
        let size = lseek(descriptor.rawValue, 0, SEEK_END)
        guard size >= 0, size <= limit else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor.rawValue, $0.baseAddress! + offset, $0.count - offset, off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            offset += n
        }
        return bytes
    }

    deinit { try? descriptor.close() }
}
