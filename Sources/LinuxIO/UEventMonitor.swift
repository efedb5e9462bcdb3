import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Device events (uevents) from a `NETLINK_KOBJECT_UEVENT` socket, filtered by subsystem.
///
/// Used for DRM and CEC hotplug instead of a libudev monitor: no libudev link in `Display`, and it
/// works without udevd (the test VM often runs without one). Where udevd runs it listens to udevd's
/// re-broadcast, not the kernel's own: a device node the kernel has just made is root's, mode
/// 0600, until udevd's rules give it its group (`SUBSYSTEM=="cec", GROUP="video"`), so a daemon
/// that is not root and opens it on the kernel's event is refused, and no later event comes.
public final class UEventMonitor {
    public let descriptor: FileDescriptor
    public let subsystems: Set<String>
    public let source: Source

    /// Whose events: the kernel's multicast group 1, or udevd's group 2 (after its rules ran).
    public enum Source: Sendable, Equatable {
        case kernel, udev
        /// udevd's when it runs (its control socket is there), else the kernel's.
        public static var automatic: Source { FileSystem.exists("/run/udev/control") ? .udev : .kernel }
    }

    /// One kernel uevent: `ACTION`, `DEVPATH`, `SUBSYSTEM` and all other `KEY=VALUE` pairs.
    public struct Event: Sendable, Equatable {
        public var action: String
        public var devicePath: String
        public var properties: [String: String]
        public var subsystem: String? { properties["SUBSYSTEM"] }
        /// The device node name (`DEVNAME`, e.g. `dri/card0`) if the device has one.
        public var deviceName: String? { properties["DEVNAME"] }
    }

    /// Opens the socket, subscribed to the kernel's multicast group. Fails with `EPERM`/`EACCES`
    /// in sandboxes that forbid netlink; callers treat that as "no hotplug".
    public init(subsystems: Set<String>, source: Source = .automatic) throws(Errno) {
        self.subsystems = subsystems
        self.source = source
        // 16 = AF_NETLINK, 15 = NETLINK_KOBJECT_UEVENT: <linux/netlink.h> is not in the Glibc module.
        let fd = try retryingOnInterrupt {
            socket(16, CInt(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 15)
        }
        descriptor = FileDescriptor(rawValue: fd)
        // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; }
        // Group 1 is the kernel's own broadcast, group 2 udevd's re-broadcast. Only a process with
        // CAP_NET_ADMIN may send to either (the uevent family is NL_CFG_F_NONROOT_RECV only).
        var address: (UInt16, UInt16, UInt32, UInt32) = (16, 0, 0, source == .udev ? 2 : 1)
        let rc = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, 12) }
        }
        if rc != 0 {
            let e = Errno.current
            _ = close(fd)
            throw e
        }
    }

    deinit { try? descriptor.close() }

    /// All queued events of the wanted subsystems (empty when none).
    public func readEvents() throws(Errno) -> [Event] {
        var events: [Event] = []
        while true {
            let bytes: [UInt8]
            do { bytes = try descriptor.read(upTo: 8192) } catch .wouldBlock { return events }
            if bytes.isEmpty { return events }
            if let event = UEventMonitor.parse(bytes), subsystems.isEmpty || subsystems.contains(event.subsystem ?? "") {
                events.append(event)
            }
        }
    }

    /// Decodes one datagram: the kernel's `action@devpath\0KEY=VALUE\0…`, or udevd's re-broadcast:
    /// a 40-byte header ("libudev\0", the magic 0xfeedcafe in network order, the header's size, then
    /// the offset and length of the `KEY=VALUE\0…` block in host order: systemd's
    /// `monitor_netlink_header`, sd-device/device-monitor.c) and that block, with ACTION and DEVPATH.
    public static func parse(_ bytes: [UInt8]) -> Event? {
        if bytes.starts(with: Array("libudev\0".utf8)) { return parseUdev(bytes) }
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let header = fields.first, header.contains("@") else { return nil }
        var properties: [String: String] = [:]
        for field in fields.dropFirst() {
            guard let eq = field.firstIndex(of: "=") else { continue }
            properties[String(field[..<eq])] = String(field[field.index(after: eq)...])
        }
        let at = header.firstIndex(of: "@")!
        let action = properties["ACTION"] ?? String(header[..<at])
        let path = properties["DEVPATH"] ?? String(header[header.index(after: at)...])
        return Event(action: action, devicePath: path, properties: properties)
    }

    static func parseUdev(_ bytes: [UInt8]) -> Event? {
        guard bytes.count >= 40, Array(bytes[8..<12]) == [0xFE, 0xED, 0xCA, 0xFE] else { return nil }
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let offset = word(16), length = word(20)
        guard offset >= 40, length > 0, offset <= bytes.count, length <= bytes.count - offset else { return nil }
        var properties: [String: String] = [:]
        for field in bytes[offset..<(offset + length)].split(separator: 0, omittingEmptySubsequences: true) {
            let text = String(decoding: field, as: UTF8.self)
            guard let eq = text.firstIndex(of: "=") else { continue }
            properties[String(text[..<eq])] = String(text[text.index(after: eq)...])
        }
        guard let action = properties["ACTION"], let path = properties["DEVPATH"] else { return nil }
        // udevd names the node by its path (/dev/dri/card0), the kernel relative to /dev (dri/card0).
        if let name = properties["DEVNAME"], name.hasPrefix("/dev/") { properties["DEVNAME"] = String(name.dropFirst(5)) }
        return Event(action: action, devicePath: path, properties: properties)
    }
}
