#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// A listening `AF_UNIX` stream socket at a path (the control socket), non-blocking and
/// close-on-exec. Binding replaces only a stale *socket* at the path, never another kind of file;
/// the path is removed again when the listener goes away (unless systemd made it).
public final class UnixListener {
    public let descriptor: FileDescriptor
    public let path: String
    private let ownsPath: Bool

    /// Binds `path` with `mode` (and `group`, when given) and listens.
    public init(path: String, mode: mode_t = 0o660, group: gid_t? = nil, backlog: CInt = 16) throws(Errno) {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw Errno.fileExists }
            // A socket nobody listens on is a leftover of an earlier run; a live one is another daemon's.
            if (try? UnixConnection.connect(to: path)) != nil { throw Errno(rawValue: EADDRINUSE) }
            unlink(path)
        }
        let fd = try retryingOnInterrupt { socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0) }
        descriptor = FileDescriptor(rawValue: fd)
        self.path = path
        var address = sockaddr_un()
        do throws(Errno) {
            guard tb_unix_address(&address, path) == 0 else { throw Errno.nameTooLong }
            // The mode is set on the path before anyone can connect: bind under a umask that leaves
            // nothing to others, then chmod to exactly `mode`.
            let old = umask(0o177)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            umask(old)
            guard bound == 0 else { throw Errno.current }
            // A process already in `group` (its primary group: systemd's Group=) made the path with
            // it; chown is only asked for otherwise (a hardened unit's seccomp filter refuses it).
            if let group, group != getegid(), chown(path, uid_t.max, group) != 0 { let e = Errno.current; unlink(path); throw e }
            guard chmod(path, mode) == 0 else { let e = Errno.current; unlink(path); throw e }
            guard listen(fd, backlog) == 0 else { let e = Errno.current; unlink(path); throw e }
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        ownsPath = true
    }

    /// A listening socket handed over by systemd (socket activation): made non-blocking here.
    public init(adopting fd: FileDescriptor, path: String) throws(Errno) {
        descriptor = fd
        self.path = path
        ownsPath = false
        try fd.setNonBlocking()
    }

    /// The socket systemd passed (`LISTEN_FDS`/`LISTEN_PID`, named `control` in `LISTEN_FDNAMES`
    /// or the only one), nil when none was passed to this process.
    public static func fromSystemd() -> FileDescriptor? {
        guard let pid = getenv("LISTEN_PID").map({ String(cString: $0) }), pid == String(getpid()),
              let count = getenv("LISTEN_FDS").map({ String(cString: $0) }).flatMap({ Int($0) }), count >= 1 else { return nil }
        let names = getenv("LISTEN_FDNAMES").map { String(cString: $0).split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        let index = names.firstIndex(of: "control") ?? (count == 1 ? 0 : nil)
        guard let index, index < count else { return nil }
        let fd = CInt(3 + index)
        var type: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == CInt(SOCK_STREAM.rawValue) else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return FileDescriptor(rawValue: fd)
    }

    /// The id of the group named `name` (the system's group database), nil when there is none.
    public static func groupID(named name: String) -> gid_t? {
        getgrnam(name).map { $0.pointee.gr_gid }
    }

    /// The group that owns the socket's path (who may connect besides its owner).
    public var pathGroup: gid_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_gid : nil
    }

    /// The next waiting connection, nil when none waits.
    public func accept() throws(Errno) -> UnixConnection? {
        let fd = CLinux.accept4(descriptor.rawValue, nil, nil, CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue))
        if fd < 0 {
            let e = Errno.current
            if e == .wouldBlock || e == .interrupted || e.rawValue == ECONNABORTED { return nil }
            throw e
        }
        return UnixConnection(owning: FileDescriptor(rawValue: fd))
    }

    deinit {
        if ownsPath { unlink(path) }
        _ = Glibc.close(descriptor.rawValue)
    }
}

/// One connected `AF_UNIX` stream socket; closes its descriptor when it goes away.
public final class UnixConnection {
    public let descriptor: FileDescriptor

    init(owning descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Connects to the socket at `path` (blocking; for clients such as `tickerboard ctl`).
    public static func connect(to path: String) throws(Errno) -> UnixConnection {
        let fd = try retryingOnInterrupt { socket(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0) }
        var address = sockaddr_un()
        guard tb_unix_address(&address, path) == 0 else { _ = Glibc.close(fd); throw Errno.nameTooLong }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { let e = Errno.current; _ = Glibc.close(fd); throw e }
        return UnixConnection(owning: FileDescriptor(rawValue: fd))
    }

    public struct Credentials: Sendable, Equatable {
        public var pid: Int32
        public var uid: UInt32
        public var gid: UInt32
        /// Supplementary groups (empty where the kernel cannot say).
        public var groups: [UInt32]
    }

    /// Who is at the other end, as the kernel recorded it at connect().
    public func peerCredentials() throws(Errno) -> Credentials {
        var pid: CInt = 0
        var uid: CUnsignedInt = 0, gid: CUnsignedInt = 0
        guard tb_peer_credentials(descriptor.rawValue, &pid, &uid, &gid) == 0 else { throw Errno.current }
        // 256 first; a peer in more groups (up to NGROUPS_MAX, 65536) makes the kernel say ERANGE,
        // and a member whose group came after the 256th was refused (issue 54).
        for capacity in [256, 65_536] {
            var groups = [CUnsignedInt](repeating: 0, count: capacity)
            let n = groups.withUnsafeMutableBufferPointer { tb_peer_groups(descriptor.rawValue, $0.baseAddress, CInt(capacity)) }
            if n >= 0 { return Credentials(pid: pid, uid: uid, gid: gid, groups: Array(groups[0..<Int(n)])) }
            guard errno == ERANGE else { break }
        }
        return Credentials(pid: pid, uid: uid, gid: gid, groups: [])
    }

    /// Reads what is there (up to `maxBytes`) and the descriptors passed with it (owned by the
    /// caller; at most four, the rest closed). Empty bytes and no descriptors: the peer closed.
    /// Throws `.wouldBlock` when nothing waits.
    public func receive(upTo maxBytes: Int) throws(Errno) -> (bytes: [UInt8], descriptors: [FileDescriptor]) {
        var bytes = [UInt8](repeating: 0, count: max(1, maxBytes))
        let space = tb_cmsg_space_fds(4)
        var control = [UInt8](repeating: 0, count: space)
        var fds = [CInt](repeating: -1, count: 4)
        let result: (Int, Int) = bytes.withUnsafeMutableBytes { raw in
            control.withUnsafeMutableBytes { ctl in
                fds.withUnsafeMutableBufferPointer { fdp in
                    var iov = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
                    return withUnsafeMutablePointer(to: &iov) { iovp in
                        var message = msghdr()
                        message.msg_iov = iovp
                        message.msg_iovlen = 1
                        message.msg_control = ctl.baseAddress
                        message.msg_controllen = ctl.count
                        var n: Int
                        repeat { n = recvmsg(descriptor.rawValue, &message, CInt(MSG_CMSG_CLOEXEC) | CInt(MSG_DONTWAIT)) } while n < 0 && errno == EINTR
                        if n < 0 { return (-1, Int(errno)) }
                        let taken = tb_cmsg_take_fds(&message, fdp.baseAddress, 4)
                        return (n, Int(taken))
                    }
                }
            }
        }
        if result.0 < 0 { throw Errno(rawValue: CInt(result.1)) }
        bytes.removeSubrange(result.0...)
        return (bytes, fds.prefix(result.1).map { FileDescriptor(rawValue: $0) })
    }

    /// Sends what it can without blocking (never SIGPIPE); returns the count sent (0 when full).
    public func send(_ bytes: ArraySlice<UInt8>) throws(Errno) -> Int {
        let n = bytes.withUnsafeBytes { raw in Glibc.send(descriptor.rawValue, raw.baseAddress, raw.count, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT)) }
        if n < 0 {
            let e = Errno.current
            if e == .wouldBlock || e == .interrupted { return 0 }
            throw e
        }
        return n
    }

    /// Sends all of `bytes`, blocking, with `descriptor` passed alongside (SCM_RIGHTS) when given.
    public func sendAll(_ bytes: [UInt8], passing passed: FileDescriptor? = nil) throws(Errno) {
        var offset = 0
        var pending = passed
        while offset < bytes.count {
            let n: Int = bytes[offset...].withUnsafeBytes { raw in
                var iov = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count)
                return withUnsafeMutablePointer(to: &iov) { iovp in
                    var message = msghdr()
                    message.msg_iov = iovp
                    message.msg_iovlen = 1
                    var control = [UInt8](repeating: 0, count: tb_cmsg_space_fds(1))
                    return control.withUnsafeMutableBytes { ctl in
                        if let fd = pending {
                            _ = tb_cmsg_put_fd(ctl.baseAddress, ctl.count, fd.rawValue)
                            message.msg_control = ctl.baseAddress
                            message.msg_controllen = ctl.count
                        }
                        var n: Int
                        repeat { n = sendmsg(descriptor.rawValue, &message, CInt(MSG_NOSIGNAL)) } while n < 0 && errno == EINTR
                        return n
                    }
                }
            }
            if n < 0 { throw Errno.current }
            pending = nil
            offset += n
        }
    }

    /// Reads one line ("\n" excluded), blocking, at most `limit` bytes; nil at end of file.
    public func readLine(limit: Int = 1 << 20) throws(Errno) -> [UInt8]? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < limit {
            let n = try retryingOnInterrupt { Glibc.read(descriptor.rawValue, &byte, 1) }
            if n == 0 { return line.isEmpty ? nil : line }
            if byte == UInt8(ascii: "\n") { return line }
            line.append(byte)
        }
        return line
    }

    /// Blocking reads give up with `.wouldBlock` after `seconds` (a client's deadline for an answer).
    public func setReceiveTimeout(seconds: Int) {
        var t = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor.rawValue, SOL_SOCKET, SO_RCVTIMEO, &t, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Stops sending (the peer sees end of file after what was sent).
    public func shutdownWrite() { _ = shutdown(descriptor.rawValue, CInt(SHUT_WR)) }

    deinit { _ = Glibc.close(descriptor.rawValue) }
}
