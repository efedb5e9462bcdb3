import LinuxIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

// LinuxIOTests already sends READY/STATUS with an explicit abstract socketPath. These tests cover what
// the daemon really does: the convenience calls that read $NOTIFY_SOCKET (systemd's documented
// interface), a socket in the file system (systemd 252 uses /run/systemd/notify), WATCHDOG=1, a
// multi-line datagram, and $WATCHDOG_USEC/$WATCHDOG_PID.

/// A bound datagram socket standing in for systemd's notification socket.
private final class NotifyListener {
    let fd: CInt
    let name: String
    let path: String?

    /// `abstract`: a name in the abstract namespace (`@name`); otherwise a socket file in /tmp.
    init(abstract: Bool) {
        let unique = "tickerboard-notify-\(getpid())-\(MonotonicClock.now() % 1_000_000_000)"
        fd = socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8]
        if abstract {
            name = "@" + unique
            path = nil
            bytes = [0] + Array(unique.utf8)
        } else {
            let p = "/tmp/\(unique).sock"
            unlink(p)
            name = p
            path = p
            bytes = Array(p.utf8) + [0]
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        precondition(rc == 0, "bind: \(errno)")
    }

    deinit {
        close(fd)
        if let path { unlink(path) }
    }

    /// Every datagram queued now.
    func received() -> [String] {
        var out: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return out }
            out.append(String(decoding: buffer[0..<n], as: UTF8.self))
        }
    }
}

/// Runs `body` with environment variables set, restoring them afterwards.
private func withEnvironment(_ values: [String: String?], _ body: () throws -> Void) rethrows {
    var saved: [String: String?] = [:]
    for (key, value) in values {
        saved[key] = getenv(key).map { String(cString: $0) }
        if let value { setenv(key, value, 1) } else { unsetenv(key) }
    }
    defer {
        for (key, value) in saved {
            if let value { setenv(key, value, 1) } else { unsetenv(key) }
        }
    }
    try body()
}

/// True when `expected` appears in `messages` in this order (other tests in the process may send
/// to the same socket while $NOTIFY_SOCKET is set; their datagrams are ignored).
private func containsInOrder(_ messages: [String], _ expected: [String]) -> Bool {
    var i = 0
    for m in messages where i < expected.count && m == expected[i] { i += 1 }
    return i == expected.count
}

@Suite("Appliance: sd_notify", .serialized)
struct ApplianceNotifyTests {
    @Test("READY=1, WATCHDOG=1, STATUS=, STOPPING=1 reach the socket named by $NOTIFY_SOCKET", arguments: [true, false])
    func throughEnvironment(abstract: Bool) throws {
        let listener = NotifyListener(abstract: abstract)
        try withEnvironment(["NOTIFY_SOCKET": listener.name]) { () throws in
            #expect(try SystemdNotify.ready())
            #expect(try SystemdNotify.watchdog())
            #expect(try SystemdNotify.status("showing AAPL 1M\n60 fps"))
            #expect(try SystemdNotify.reloading())
            #expect(try SystemdNotify.send("READY=1\nSTATUS=waiting for an output"))
            #expect(try SystemdNotify.stopping())
        }
        let got = listener.received()
        #expect(containsInOrder(got, ["READY=1", "WATCHDOG=1", "STATUS=showing AAPL 1M 60 fps", "RELOADING=1",
                                      "READY=1\nSTATUS=waiting for an output", "STOPPING=1"]), "\(got)")
    }

    @Test("without $NOTIFY_SOCKET nothing is sent and nothing fails")
    func notUnderSystemd() throws {
        try withEnvironment(["NOTIFY_SOCKET": nil]) { () throws in
            #expect(try SystemdNotify.ready() == false)
            #expect(try SystemdNotify.watchdog() == false)
        }
    }

    @Test("the watchdog period is half of $WATCHDOG_USEC, and only for our own PID")
    func watchdogInterval() {
        withEnvironment(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": String(getpid())]) {
            #expect(SystemdNotify.watchdogPingInterval == .seconds(15))
        }
        withEnvironment(["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]) {
            #expect(SystemdNotify.watchdogPingInterval == nil)
        }
        withEnvironment(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]) {
            #expect(SystemdNotify.watchdogPingInterval == nil)
        }
    }
}
