// The only place Feed touches the file system. It uses Glibc directly (open/fstat/read/close) so the
// module stays free of Foundation; when LinuxIO's FileDescriptor settles, this file is the one to
// port. Errors are mapped to `FeedError` here so callers never see a bare errno.

import Glibc

enum FileBytes {
    /// Why a directory cannot be read as a file (callers may treat it as "not found").
    static let directoryReason = "it is a directory"

    /// The whole file at `path`, refusing anything larger than `limit` bytes.
    static func read(path: String, limit: Int) throws(FeedError) -> [UInt8] {
        // O_NONBLOCK so a FIFO without a writer cannot hang open(); the type check below then
        // refuses it. For regular files the flag changes nothing.
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .fileNotFound(path: path) }
            throw .unreadable(path: path, reason: describe(errno: code))
        }
        defer { _ = close(fd) }

        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: describe(errno: errno)) }
        let kind = info.st_mode & S_IFMT
        if kind == S_IFDIR { throw .unreadable(path: path, reason: directoryReason) }
        // Refuse FIFOs, sockets and devices: reading one could block the daemon or never end.
        guard kind == S_IFREG else { throw .unreadable(path: path, reason: "not a regular file") }
        let size = Int(info.st_size)
        if size > limit { throw .fileTooLarge(path: path, bytes: Int64(size), limit: Int64(limit)) }

        // The size is a hint, not a promise: a file being appended to may grow between fstat and
        // read, so keep reading until EOF, still within the limit.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            if count < 0 { throw .unreadable(path: path, reason: describe(errno: errno)) }
            if count == 0 { break }
            if bytes.count + count > limit {
                throw .fileTooLarge(path: path, bytes: Int64(bytes.count + count), limit: Int64(limit))
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    private static func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    static func describe(errno code: Int32) -> String {
        if let text = strerror(code) { return String(cString: text) }
        return "errno \(code)"
    }
}
