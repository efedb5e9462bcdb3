#if canImport(Glibc)
import Glibc
#endif
import CLinux

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
