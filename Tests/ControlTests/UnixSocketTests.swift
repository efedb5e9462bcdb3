import Glibc
import Testing

@testable import LinuxIO

@Suite("Unix sockets")
struct UnixSocketTests {
    func temporaryPath() -> String {
        "/tmp/tb-sock-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    @Test("listen, connect, credentials, a passed descriptor, and the path's mode")
    func roundTrip() throws {
        let path = temporaryPath()
        let listener = try UnixListener(path: path, mode: 0o660)
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(try listener.accept() == nil)
        let client = try UnixConnection.connect(to: path)
        let server = try #require(try listener.accept())
        let credentials = try server.peerCredentials()
        #expect(credentials.uid == getuid())
        #expect(credentials.pid == getpid())
        // A pipe's write end goes over; what the server writes to it arrives at the read end.
        var ends: [CInt] = [0, 0]
        #expect(pipe(&ends) == 0)
        try client.sendAll(Array("screenshot\n".utf8), passing: FileDescriptor(rawValue: ends[1]))
        let (bytes, fds) = try server.receive(upTo: 4096)
        #expect(String(decoding: bytes, as: UTF8.self) == "screenshot\n")
        #expect(fds.count == 1)
        #expect(try fds[0].write(Array("PNG".utf8)) == 3)
        try fds[0].close()
        _ = close(ends[1])
        #expect(try FileDescriptor(rawValue: ends[0]).read(upTo: 16) == Array("PNG".utf8))
        _ = close(ends[0])
        #expect(try server.send(Array("ok\n".utf8)[...]) == 3)
        #expect(try client.readLine() == Array("ok".utf8))
        client.shutdownWrite()
        #expect(try server.receive(upTo: 16).bytes.isEmpty)
    }

    @Test("nothing waiting is wouldBlock, not a hang")
    func nonBlocking() throws {
        let path = temporaryPath()
        let listener = try UnixListener(path: path)
        let client = try UnixConnection.connect(to: path)
        let server = try #require(try listener.accept())
        #expect(throws: Errno.wouldBlock) { _ = try server.receive(upTo: 16) }
        _ = client
    }

    @Test("a stale socket is replaced, a live one or another file is not")
    func stalePath() throws {
        let path = temporaryPath()
        do { _ = try UnixListener(path: path) }   // gone, but the path stays? No: removed on deinit.
        #expect(!FileSystem.exists(path))
        // A leftover socket file (a crash) is replaced.
        let fd = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        _ = close(fd)
        let replaced = try UnixListener(path: path)
        #expect(throws: Errno(rawValue: EADDRINUSE)) { _ = try UnixListener(path: path) }
        _ = replaced
        let regular = temporaryPath()
        _ = try FileDescriptor.open(regular, .writeOnly, options: [.create]).close()
        #expect(throws: Errno.fileExists) { _ = try UnixListener(path: regular) }
        #expect(FileSystem.exists(regular))
        unlink(regular)
    }
}
