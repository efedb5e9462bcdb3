import CLinux

#if canImport(Glibc)
import Glibc
#endif

/// Kernel device events (uevents) from a `NETLINK_KOBJECT_UEVENT` socket, filtered by subsystem.
///
/// Used for DRM hotplug instead of a libudev monitor: it needs no udevd (kiosks and the test VM often
/// run without one), no libudev link in `Display`, and a DRM hotplug only needs the kernel's
/// `ACTION=change … HOTPLUG=1` on the card, not udev's device database.
public final class UEventMonitor {
    public let descriptor: FileDescriptor
    public let subsystems: Set<String>

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
    public init(subsystems: Set<String>) throws(Errno) {
        self.subsystems = subsystems
        // 16 = AF_NETLINK, 15 = NETLINK_KOBJECT_UEVENT: <linux/netlink.h> is not in the Glibc module.
        let fd = try retryingOnInterrupt {
            socket(16, CInt(SOCK_DGRAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 15)
        }
        descriptor = FileDescriptor(rawValue: fd)
        // struct sockaddr_nl { sa_family_t nl_family; unsigned short nl_pad; __u32 nl_pid; __u32 nl_groups; }
        // Group 1 is the kernel's own broadcast (group 2 is udevd's re-broadcast).
        var address: (UInt16, UInt16, UInt32, UInt32) = (16, 0, 0, 1)
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

    /// Decodes one kernel uevent datagram: `action@devpath\0KEY=VALUE\0…`. udevd's own
    /// re-broadcast (starting with "libudev") is not read here and is rejected.
    public static func parse(_ bytes: [UInt8]) -> Event? {
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let header = fields.first, header.contains("@"), !header.hasPrefix("libudev") else { return nil }
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
}
