import Glibc
import Testing

@testable import LinuxIO

@Suite struct ErrnoTests {
    @Test("names match CV alues") func namesMatchCValues() {
        #expect(Errno.permissionDenied.rawValue == EACCES)
        #expect(Errno.wouldBlock.rawValue == EAGAIN)
        #expect(Errno(rawValue: ENOENT) == .noSuchFileOrDirectory)
    }

    @Test("description uses strerror") func descriptionUsesStrerror() {
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory (errno 2)")
        #expect(Errno(rawValue: 9999).description.contains("9999"))
    }

    @Test("open missing file throws ENOENT") func openMissingFileThrowsENOENT() {
        #expect(throws: Errno.noSuchFileOrDirectory) {
            _ = try FileDescriptor.open("/nonexistent/tickerboard", .readOnly)
        }
    }

    @Test("negated convention") func negatedConvention() throws {
        #expect(throws: Errno.notATerminal) { try Errno.checkNegated(-ENOTTY) }
        try Errno.checkNegated(0)
    }
}

@Suite struct FileDescriptorTests {
    @Test("pipe round trip and non blocking") func pipeRoundTripAndNonBlocking() throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let r = FileDescriptor(rawValue: fds[0]), w = FileDescriptor(rawValue: fds[1])
        defer { try? r.close(); try? w.close() }
        try r.setNonBlocking()
        #expect(r.isNonBlocking)
        #expect(throws: Errno.wouldBlock) { _ = try r.read(upTo: 16) }
        #expect(try w.write(Array("hello".utf8)) == 5)
        #expect(try r.read(upTo: 16) == Array("hello".utf8))
    }
}

@Suite struct TimerAndEpollTests {
    @Test("timer fires through epoll") func timerFiresThroughEpoll() throws {
        let epoll = try Epoll()
        let timer = try TimerFD()
        try epoll.add(timer.descriptor.rawValue, events: .readable, token: 42)
        #expect(try epoll.wait(timeout: .zero).isEmpty)
        let start = MonotonicClock.now()
        try timer.arm(initial: .milliseconds(20))
        let events = try epoll.wait(timeout: .seconds(2))
        #expect(events == [Epoll.Event(events: .readable, token: 42)])
        #expect(MonotonicClock.now() - start >= 19_000_000)
        #expect(try timer.readExpirations() == 1)
        #expect(try timer.readExpirations() == 0)
    }

    @Test("disarmed timer stays quiet") func disarmedTimerStaysQuiet() throws {
        let epoll = try Epoll()
        let timer = try TimerFD()
        try epoll.add(timer.descriptor.rawValue, events: .readable, token: 1)
        try timer.arm(initial: .milliseconds(5), interval: .milliseconds(5))
        try timer.disarm()
        #expect(try epoll.wait(timeout: .milliseconds(30)).isEmpty)
    }

    @Test("event loop timers and watches") func eventLoopTimersAndWatches() throws {
        let loop = try EventLoop()
        var ticks = 0
        var order: [String] = []
        // Stopped by the third tick, not by wall time: a loaded machine may coalesce expirations.
        let repeating = try loop.addTimer(after: .milliseconds(2), repeating: .milliseconds(2)) {
            ticks += 1
            order.append("tick")
            if ticks == 3 { order.append("stop"); loop.stop() }
        }
        let safety = try loop.addTimer(after: .seconds(20)) { loop.stop() }
        try loop.run()
        loop.remove(safety)
        #expect(ticks == 3)
        #expect(order.last == "stop")
        loop.remove(repeating)
        // With nothing armed and a short timeout the loop dispatches nothing.
        #expect(try loop.runOnce(timeout: .milliseconds(10)) == 0)

        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var got: [UInt8] = []
        let reg = try loop.watch(fds[0]) { _ in got += (try? FileDescriptor(rawValue: fds[0]).read(upTo: 8)) ?? [] }
        _ = try FileDescriptor(rawValue: fds[1]).write([7, 8])
        #expect(try loop.runOnce(timeout: .seconds(1)) == 1)
        #expect(got == [7, 8])
        loop.remove(reg)
    }
}

@Suite struct EventLoopStopTests {
    /// Set-up code that fails before `run()` calls `stop()`; the loop must not then sleep forever.
    @Test("stop before run is kept") func stopBeforeRunIsKept() throws {
        let loop = try EventLoop()
        loop.stop()
        try loop.run()
        // And the next run starts fresh.
        try loop.addTimer(after: .milliseconds(1)) { loop.stop() }
        try loop.run()
    }

    @Test("disarmed timer does not fire") func disarmedTimerDoesNotFire() throws {
        let loop = try EventLoop()
        var fired = 0
        let timer = try loop.addTimer(after: .milliseconds(1)) { fired += 1 }
        try loop.disarm(timer)
        #expect(try loop.runOnce(timeout: .milliseconds(20)) == 0)
        try loop.rearm(timer, after: .milliseconds(1))
        #expect(try loop.runOnce(timeout: .seconds(1)) == 1)
        #expect(fired == 1)
    }
}

/// Signal masks are per thread and Swift Testing runs tests on worker threads: `raise()` sends the
/// signal to the calling thread, which blocked it, so it lands in the signalfd.
@Suite(.serialized) struct SignalFDTests {
    @Test("raised signal is read") func raisedSignalIsRead() throws {
        let signals = try SignalFD(signals: [SIGUSR1, SIGUSR2])
        defer { signals.unblock() }
        #expect(try signals.next() == nil)
        raise(SIGUSR2)
        let info = try #require(try signals.next())
        #expect(info.signal == SIGUSR2)
        #expect(info.senderPID == getpid())
        #expect(try signals.next() == nil)
    }

    @Test("signal wakes event loop") func signalWakesEventLoop() throws {
        let signals = try SignalFD(signals: [SIGUSR1])
        defer { signals.unblock() }
        let loop = try EventLoop()
        var received: [CInt] = []
        try loop.watch(signals.descriptor.rawValue) { _ in
            while let info = try? signals.next() { received.append(info.signal) }
            loop.stop()
        }
        raise(SIGUSR1)
        try loop.run()
        #expect(received == [SIGUSR1])
    }
}

@Suite struct InotifyTests {
    @Test("sees write to temp file") func seesWriteToTempFile() throws {
        var template = Array("/tmp/tb-inotify-XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
        let dirPath = String(cString: dir)
        defer { _ = unlink(dirPath + "/data.csv"); _ = rmdir(dirPath) }

        let inotify = try Inotify()
        let watch = try inotify.addWatch(dirPath, mask: [.closeWrite, .create, .movedTo])
        #expect(try inotify.readEvents().isEmpty)
        let fd = try FileDescriptor.open(dirPath + "/data.csv", .writeOnly, options: [.create, .truncate])
        try fd.write(Array("1,2\n".utf8))
        try fd.close()
        let epoll = try Epoll()
        try epoll.add(inotify.descriptor.rawValue, events: .readable, token: 0)
        #expect(try epoll.wait(timeout: .seconds(1)).count == 1)
        let events = try inotify.readEvents()
        #expect(events.contains { $0.watch == watch && $0.mask.contains(.create) && $0.name == "data.csv" })
        #expect(events.contains { $0.mask.contains(.closeWrite) && $0.name == "data.csv" })
    }
}

@Suite struct SystemdNotifyTests {
    /// Binds an abstract datagram socket, as systemd does, and checks what arrives.
    @Test("sends to abstract socket") func sendsToAbstractSocket() throws {
        let name = "tickerboard-test-\(getpid())-\(MonotonicClock.now() % 1_000_000)"
        let fd = socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = [UInt8(0)] + Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(rc == 0)

        #expect(try SystemdNotify.send("READY=1", socketPath: "@" + name))
        #expect(try SystemdNotify.send("STATUS=drawing 60 fps", socketPath: "@" + name))
        let reader = FileDescriptor(rawValue: fd)
        #expect(try reader.read(upTo: 256) == Array("READY=1".utf8))
        #expect(try reader.read(upTo: 256) == Array("STATUS=drawing 60 fps".utf8))
    }

    @Test("no socket means not under systemd") func noSocketMeansNotUnderSystemd() throws {
        #expect(try SystemdNotify.send("READY=1", socketPath: "") == false)
        #expect(throws: Errno.connectionRefused) {
            try SystemdNotify.send("READY=1", socketPath: "@tickerboard-nobody-listens-\(getpid())")
        }
    }
}

@Suite struct UEventTests {
    @Test("parses kernel hotplug event") func parsesKernelHotplugEvent() throws {
        let raw = "change@/devices/pci0000:00/0000:00:02.0/drm/card0\0ACTION=change\0"
            + "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0\0SUBSYSTEM=drm\0HOTPLUG=1\0DEVNAME=dri/card0\0SEQNUM=1234\0"
        let event = try #require(UEventMonitor.parse(Array(raw.utf8)))
        #expect(event.action == "change")
        #expect(event.subsystem == "drm")
        #expect(event.deviceName == "dri/card0")
        #expect(event.properties["HOTPLUG"] == "1")
    }

    /// udevd's re-broadcast of vivid's /dev/cec0 appearing, recorded from the multicast group 2 of
    /// NETLINK_KOBJECT_UEVENT in the test guest (Debian 12's systemd-udevd 252, kernel 6.1; a
    /// Python socket bound to group 2, `modprobe vivid`): 200 bytes, a 40-byte header then 160 bytes
    /// of properties. The node it names was already root:video 0660 (udev's rule had run).
    static let recordedUdevCECAdd: [UInt8] = hexBytes(
        "6c69627564657600feedcafe2800000028000000a00000002a82800a000000000000000000000000554445565f444154" +
        "41424153455f56455253494f4e3d3100414354494f4e3d61646400444556504154483d2f646576696365732f706c6174" +
        "666f726d2f76697669642e302f636563300053554253595354454d3d636563004445564e414d453d2f6465762f636563" +
        "30005345514e554d3d36383500555345435f494e495449414c495a45443d39303631333937004d414a4f523d32343500" +
        "4d494e4f523d3000")

    static func hexBytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    @Test("reads udevd's re-broadcast as recorded") func readsUdevRebroadcast() throws {
        let event = try #require(UEventMonitor.parse(Self.recordedUdevCECAdd))
        #expect(Self.recordedUdevCECAdd.count == 200)
        #expect(event.action == "add")
        #expect(event.subsystem == "cec")
        #expect(event.devicePath == "/devices/platform/vivid.0/cec0")
        // DEVNAME=/dev/cec0 in udevd's message; the kernel's own says cec0
        #expect(event.deviceName == "cec0")
        #expect(event.properties["MAJOR"] == "245")
        #expect(event.properties["SEQNUM"] == "685")
    }

    @Test("rejects a damaged udev header") func rejectsDamagedUdevHeader() {
        #expect(UEventMonitor.parse(Array("libudev\0\u{1}\u{2}".utf8)) == nil)
        var badMagic = Self.recordedUdevCECAdd
        badMagic[8] = 0
        #expect(UEventMonitor.parse(badMagic) == nil)
        var pastTheEnd = Self.recordedUdevCECAdd
        pastTheEnd[20] = 0xA1   // properties_len 161 of 160
        #expect(UEventMonitor.parse(pastTheEnd) == nil)
        #expect(UEventMonitor.parse(Array(Self.recordedUdevCECAdd.prefix(39))) == nil)
    }
}

@Suite struct ProcessStatusTests {
    @Test("reads kilobyte fields after tabs and spaces") func readsKilobyteFieldsAfterTabsAndSpaces() {
        let text = "Name:\ttickerboard\nVmHWM:\t   20480 kB\nVmRSS:\t   11328 kB\nVmRSSX:\t 1 kB\n"
        #expect(ProcessStatus.kilobytes("VmRSS", in: text) == 11328)
        #expect(ProcessStatus.kilobytes("VmHWM", in: text) == 20480)
        #expect(ProcessStatus.kilobytes("VmSwap", in: text) == nil)
        #expect(ProcessStatus.kilobytes("Name", in: text) == nil)
        // This process: resident memory is non-zero and at most its peak.
        let rss = ProcessStatus.kilobytes("VmRSS"), peak = ProcessStatus.kilobytes("VmHWM")
        #expect(rss > 0 && rss <= peak)
    }
}

/// Issue 54 item 11: `tickerboard ctl screenshot | head -c 8192` killed a daemon started by hand
/// with SIGPIPE (status 141) when the reader left between poll() and write().
@Suite struct BrokenPipeTests {
    @Test("after ignoreBrokenPipes a write to a pipe nobody reads fails with EPIPE; the process lives")
    func brokenPipe() throws {
        ProcessResources.ignoreBrokenPipes()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        defer { close(fds[1]) }
        let byte: [UInt8] = [1]
        let n = byte.withUnsafeBytes { write(fds[1], $0.baseAddress, 1) }
        #expect(n == -1 && errno == EPIPE)
    }
}

/// Issue 49 item 1: who else holds a device open (the desktop's compositor on a Pi), from /proc.
@Suite struct OpenersTests {
    @Test("a child holding a file open is named by its pid and command; this process never")
    func childHoldsFile() throws {
        let path = "/tmp/tb-openers-\(getpid())"
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        defer { unlink(path) }
        #expect(FileSystem.openers(of: path).isEmpty)
        var pid: pid_t = 0
        let args = ["sleep", "30"]
        var argv = args.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        defer { posix_spawn_file_actions_destroy(&actions) }
        #expect(posix_spawnp(&pid, "sleep", &actions, nil, &argv, environ) == 0)
        defer { kill(pid, SIGKILL); var st: Int32 = 0; waitpid(pid, &st, 0) }
        // The child has the file as its stdin once it runs: wait for that state, not for a time.
        var seen: [String] = []
        for _ in 0..<500 where !seen.contains("\(pid) (sleep)") {
            seen = FileSystem.openers(of: path)
            if seen.isEmpty { usleep(10_000) }
        }
        #expect(seen == ["\(pid) (sleep)"])
    }
}

/// Issue 54 item 16: an alert command that moved itself into another process group was not in the
/// group the kill went to: never killed, it held one of the four places for ever. A real child
/// (python3) moves into this test process's group, then the kill must still end it.
@Suite struct ChildProcessTests {
    static func processGroup(of pid: pid_t) -> pid_t? {
        guard let bytes = try? RegularFile.read("/proc/\(pid)/stat", limit: 4096) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        // after "pid (comm) ": state ppid pgrp …
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 2 ? pid_t(fields[2]) : nil
    }

    @Test("a child that left its process group is killed all the same")
    func childThatLeftItsGroupIsKilled() throws {
        let ours = getpgrp()
        let pid = try ChildProcess.spawn(["/usr/bin/python3", "-c",
                                          "import os, time; os.setpgid(0, \(ours)); time.sleep(600)"], environment: [:])
        var moved = false
        for _ in 0..<400 where !moved {   // until its group is ours (an observable state), at most ~20 s
            moved = Self.processGroup(of: pid) == ours
            if !moved { usleep(50_000) }
        }
        #expect(moved, "the child never moved into group \(ours)")
        ChildProcess.killGroup(pid)
        var ending: ChildProcess.Ending?
        for _ in 0..<400 where ending == nil {
            ending = try ChildProcess.reap(pid)
            if ending == nil { usleep(50_000) }
        }
        #expect(ending == .signalled(SIGKILL))
    }
}

@Suite struct BackgroundWriteTests {
    /// Waits (at most 20 s) until `done` is readable; true when it is.
    static func waitDone(_ job: BackgroundWrite) -> Bool {
        var p = pollfd(fd: job.done.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, 20_000) == 1
    }

    @Test("the bytes are made and written on a thread of their own; the caller hears it through done")
    func writesOnItsThread() throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let r = FileDescriptor(rawValue: fds[0])
        defer { try? r.close() }
        // 1 MiB into a pipe that holds 64 KiB: the write cannot finish before this thread reads.
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let job = try BackgroundWrite(to: FileDescriptor(rawValue: fds[1])) { payload }
        close(fds[1])  // the writer holds its own duplicate
        #expect(job.kind == .pipe)
        #expect(job.outcome == nil)
        #expect(BackgroundWrite.inFlight >= 1)
        var got: [UInt8] = []
        while true {
            let chunk = try r.read(upTo: 65_536)
            if chunk.isEmpty { break }
            got += chunk
        }
        #expect(Self.waitDone(job))
        #expect(job.outcome == .written(payload.count))
        #expect(got == payload)
    }

    @Test("a reader that takes nothing is given up after the patience, and the thread ends")
    func silentReaderIsGivenUp() throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let job = try BackgroundWrite(to: FileDescriptor(rawValue: fds[1]), patience: .milliseconds(300)) {
            [UInt8](repeating: 1, count: 1 << 20)
        }
        close(fds[1])
        #expect(Self.waitDone(job))
        guard case .failed(let why)? = job.outcome else { Issue.record("\(String(describing: job.outcome))"); return }
        #expect(why.contains("reader"))
    }

    @Test("what could not be made is the outcome, and nothing is written")
    func problemIsTheOutcome() throws {
        var fds: [CInt] = [0, 0]
        #expect(pipe(&fds) == 0)
        let r = FileDescriptor(rawValue: fds[0])
        defer { try? r.close() }
        let job = try BackgroundWrite(to: FileDescriptor(rawValue: fds[1])) { () throws(BackgroundWrite.Problem) in
            throw BackgroundWrite.Problem("cannot encode: too large")
        }
        close(fds[1])
        #expect(Self.waitDone(job))
        #expect(job.outcome == .failed("cannot encode: too large"))
        #expect(try r.read(upTo: 16).isEmpty)
    }
}
