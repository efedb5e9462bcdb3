import Input
import InputModel
import LinuxIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Collects log lines from a non-escaping test.
final class LogLines {
    var lines: [String] = []
    func add(_ line: String) { lines.append(line) }
}

@Suite struct InputDevicesTests {
    @Test("path context without devices") func pathContextWithoutDevices() throws {
        let log = LogLines()
        let input = try InputDevices(paths: ["/nonexistent/event99"], mapping: TouchMapping(panelWidth: 800, panelHeight: 480),
                                     log: log.add)
        #expect(input.pollDescriptor >= 0)
        #expect(input.dispatch() == [])
        #expect(input.devices.isEmpty)
        #expect(log.lines.contains { $0.contains("/nonexistent/event99") })
    }

    /// A udev context works without udevd or devices (a container): it says so and finds nothing.
    @Test("udev context without devices") func udevContextWithoutDevices() throws {
        let log = LogLines()
        let input = try InputDevices(seat: "seat0", mapping: TouchMapping(panelWidth: 800, panelHeight: 480), log: log.add)
        #expect(input.pollDescriptor >= 0)
        let events = input.dispatch()
        if access("/run/udev/control", F_OK) != 0 {
            #expect(log.lines.contains { $0.contains("systemd-udevd is not running") })
        }
        #expect(events.count == input.devices.count)
    }

    @Test("report without devices") func reportWithoutDevices() {
        let report = InputReport.make(seat: "seat0")
        #expect(report.hasPrefix("input devices on seat0 (libinput):"))
        #expect(report.contains("devices: "))
    }

    /// A real multitouch touchscreen made with /dev/uinput, read through the path backend. Needs
    /// /dev/uinput (the qemu guest has it; this container does not).
    @Test("uinput touchscreen through libinput", .enabled(if: access("/dev/uinput", W_OK) == 0, "needs a writable /dev/uinput"))
    func uinputTouchscreenThroughLibinput() throws {
        let screen = try UInputTouchscreen(width: 1024, height: 768)
        let log = LogLines()
        let mapping = TouchMapping(panelWidth: 1024, panelHeight: 768, quarterTurns: 1)
        let input = try InputDevices(paths: [screen.eventNode], mapping: mapping, log: log.add)
        var events = input.dispatch()
        guard case .deviceAdded(let info)? = events.first else {
            Issue.record("no device added: \(events) \(log.lines)")
            return
        }
        #expect(info.capabilities.contains(.touch))
        #expect(info.sizeMillimetres.map { abs($0.width - 102.4) < 0.2 && abs($0.height - 76.8) < 0.2 } == true)
        try screen.touch(slot: 0, x: 1023, y: 0)      // the panel's top-right corner
        try screen.touch(slot: 0, x: 1000, y: 100)
        try screen.lift(slot: 0)
        events = []
        for _ in 0..<50 where !events.contains(where: { if case .touchUp = $0 { true } else { false } }) {
            var pfd = pollfd(fd: input.pollDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 20)
            events += input.dispatch()
        }
        let touches = events.filter { if case .touchFrame = $0 { false } else { true } }
        #expect(touches.count == 3, "\(events)")
        guard touches.count == 3 else { return }
        // Rotated by 90: panel (1023, 0) is logical (0, 0); panel (1000, 100) is logical (100, 23).
        if case .touchDown(_, let x, let y, let t) = touches[0] { #expect(x == 0 && y == 0 && t > 0) } else { Issue.record("\(touches[0])") }
        if case .touchMotion(_, let x, let y, _) = touches[1] { #expect(x == 100 && y == 23) } else { Issue.record("\(touches[1])") }
        if case .touchUp = touches[2] {} else { Issue.record("\(touches[2])") }
        var gestures = GestureRecognizer(width: 768, height: 1024)
        #expect(gestures.process(events).first == .scrubBegan(x: 0, y: 0))
    }
}

// linux/input-event-codes.h (the test target does not import CLinux).
private let EV_SYN: CInt = 0, EV_KEY: CInt = 1, EV_ABS: CInt = 3, SYN_REPORT: CInt = 0
private let BTN_TOUCH: CInt = 0x14a, INPUT_PROP_DIRECT: CInt = 1
private let ABS_X: CInt = 0, ABS_Y: CInt = 1, ABS_MT_SLOT: CInt = 0x2f
private let ABS_MT_POSITION_X: CInt = 0x35, ABS_MT_POSITION_Y: CInt = 0x36, ABS_MT_TRACKING_ID: CInt = 0x39

/// A multitouch touchscreen through /dev/uinput (raw ioctls: linux/uinput.h's macros are not
/// importable). ABS range 0...W-1 x 0...H-1 at 10 units/mm, INPUT_PROP_DIRECT.
final class UInputTouchscreen {
    let fd: CInt
    let eventNode: String
    private var trackingID: Int32 = 1

    // _IOW('U', nr, int) and friends, computed.
    private static func ioc(_ dir: UInt, _ nr: UInt, _ size: UInt) -> UInt { (dir << 30) | (size << 16) | (0x55 << 8) | nr }
    private static let setEvBit = ioc(1, 100, 4), setKeyBit = ioc(1, 101, 4), setAbsBit = ioc(1, 103, 4)
    private static let setPropBit = ioc(1, 110, 4), devSetup = ioc(1, 3, 92), absSetup = ioc(1, 4, 28)
    private static let devCreate = ioc(0, 1, 0), devDestroy = ioc(0, 2, 0), getSysname = ioc(2, 44, 64)

    init(width: Int32, height: Int32) throws {
        let fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Errno.current }
        func check(_ r: CInt) throws { if r < 0 { let e = Errno.current; close(fd); throw e } }
        try check(ioctl(fd, Self.setEvBit, CInt(EV_KEY)))
        try check(ioctl(fd, Self.setEvBit, CInt(EV_ABS)))
        try check(ioctl(fd, Self.setKeyBit, CInt(BTN_TOUCH)))
        try check(ioctl(fd, Self.setPropBit, CInt(INPUT_PROP_DIRECT)))
        let axes: [(CInt, Int32)] = [(ABS_X, width - 1), (ABS_Y, height - 1), (ABS_MT_SLOT, 9), (ABS_MT_TRACKING_ID, 65535),
                                     (ABS_MT_POSITION_X, width - 1), (ABS_MT_POSITION_Y, height - 1)]
        for (code, maximum) in axes {
            try check(ioctl(fd, Self.setAbsBit, code))
            var setup = [UInt8](repeating: 0, count: 28)        // struct uinput_abs_setup
            setup.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: UInt16(code), toByteOffset: 0, as: UInt16.self)
                raw.storeBytes(of: maximum, toByteOffset: 4 + 8, as: Int32.self)                  // absinfo.maximum
                let isPosition = code == ABS_X || code == ABS_Y || code == ABS_MT_POSITION_X || code == ABS_MT_POSITION_Y
                raw.storeBytes(of: isPosition ? 10 : 0, toByteOffset: 4 + 20, as: Int32.self)      // absinfo.resolution
            }
            try check(setup.withUnsafeMutableBytes { ioctl(fd, Self.absSetup, $0.baseAddress!) })
        }
        var devSetup = [UInt8](repeating: 0, count: 92)                // struct uinput_setup
        devSetup.withUnsafeMutableBytes { raw in
            for (i, v) in [UInt16(0x06), 0x1234, 0x5679, 1].enumerated() { raw.storeBytes(of: v, toByteOffset: 2 * i, as: UInt16.self) }
            for (i, b) in "tickerboard test touchscreen".utf8.enumerated() { raw[8 + i] = b }
        }
        try check(devSetup.withUnsafeMutableBytes { ioctl(fd, Self.devSetup, $0.baseAddress!) })
        try check(ioctl(fd, Self.devCreate))
        var name = [UInt8](repeating: 0, count: 64)
        try check(name.withUnsafeMutableBytes { ioctl(fd, Self.getSysname, $0.baseAddress!) })
        let sysname = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
        var node = ""
        for _ in 0..<100 where node.isEmpty {
            if let dir = opendir("/sys/devices/virtual/input/\(sysname)") {
                while let entry = readdir(dir) {
                    let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if entryName.hasPrefix("event") { node = "/dev/input/" + entryName }
                }
                closedir(dir)
            }
            if node.isEmpty || access(node, R_OK) != 0 { node = ""; usleep(10_000) }
        }
        guard !node.isEmpty else { _ = ioctl(fd, Self.devDestroy); close(fd); throw Errno.noSuchDevice }
        self.fd = fd
        eventNode = node
    }

    deinit {
        _ = ioctl(fd, Self.devDestroy)
        close(fd)
    }

    func touch(slot: Int32, x: Int32, y: Int32) throws {
        var events: [(UInt16, UInt16, Int32)] = [(UInt16(EV_ABS), UInt16(ABS_MT_SLOT), slot)]
        events.append((UInt16(EV_ABS), UInt16(ABS_MT_TRACKING_ID), trackingID))
        events += [(UInt16(EV_ABS), UInt16(ABS_MT_POSITION_X), x), (UInt16(EV_ABS), UInt16(ABS_MT_POSITION_Y), y),
                   (UInt16(EV_ABS), UInt16(ABS_X), x), (UInt16(EV_ABS), UInt16(ABS_Y), y),
                   (UInt16(EV_KEY), UInt16(BTN_TOUCH), 1), (UInt16(EV_SYN), UInt16(SYN_REPORT), 0)]
        try send(events)
    }

    func lift(slot: Int32) throws {
        try send([(UInt16(EV_ABS), UInt16(ABS_MT_SLOT), slot), (UInt16(EV_ABS), UInt16(ABS_MT_TRACKING_ID), -1),
                  (UInt16(EV_KEY), UInt16(BTN_TOUCH), 0), (UInt16(EV_SYN), UInt16(SYN_REPORT), 0)])
        trackingID += 1
    }

    private func send(_ events: [(type: UInt16, code: UInt16, value: Int32)]) throws {
        var bytes = [UInt8](repeating: 0, count: 24 * events.count)       // struct input_event
        bytes.withUnsafeMutableBytes { raw in
            for (i, e) in events.enumerated() {
                raw.storeBytes(of: e.type, toByteOffset: 24 * i + 16, as: UInt16.self)
                raw.storeBytes(of: e.code, toByteOffset: 24 * i + 18, as: UInt16.self)
                raw.storeBytes(of: e.value, toByteOffset: 24 * i + 20, as: Int32.self)
            }
        }
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n != bytes.count { throw Errno.current }
    }
}
