import CLinux
import DisplayModel
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

// The unsafe half of HDMI-CEC: one `/dev/cecN` through the kernel's CEC API (linux/cec.h), with
// no libCEC and no helper process. Everything is non-blocking: a transmit is queued and its
// outcome comes back through CEC_RECEIVE with its sequence number, received frames and adapter
// events (EPOLLIN, EPOLLPRI) are drained when the descriptor is ready, so a TV that never answers
// never holds up a frame. What to send and when is the core's (`CECPower`); what a frame means is
// `DisplayModel.CECMessage`'s.

/// An open CEC adapter; owns its descriptor.
public final class CECAdapter {
    public let path: String
    public let descriptor: FileDescriptor
    /// `driver` and `name` from CEC_ADAP_G_CAPS ("vivid", "vivid-000-vid-out0"; "vc4", …).
    public let driver: String
    public let name: String
    public let capabilities: UInt32
    /// The HDMI physical address (0x1000 is 1.0.0.0); 0xFFFF while nothing is connected.
    public private(set) var physicalAddress: UInt16
    /// Our logical address once claimed (a playback device: 4, 8, 11 or 9).
    public private(set) var logicalAddress: UInt8?
    /// The DRM connector this adapter belongs to (vc4-hdmi-0 and -1 say theirs), when it says.
    public private(set) var drmConnector: CECAdapterChoice.DRMConnectorID?

    /// What draining the descriptor found.
    public enum Incoming: Sendable, Equatable {
        /// A frame from another device.
        case message(CECMessage)
        /// The outcome of the non-blocking transmit with this sequence number.
        case transmitted(sequence: UInt32, acknowledged: Bool, status: String)
        /// The adapter's physical or logical addresses changed (claimed, lost, a new EDID).
        case stateChanged
    }

    /// `/dev/cec0`, `/dev/cec1`, … that exist, in number order.
    public static func devicePaths(directory: String = "/dev") -> [String] {
        let numbers = FileSystem.list(directory).compactMap { name in name.hasPrefix("cec") ? Int(name.dropFirst(3)) : nil }
        return numbers.sorted().map { "\(directory)/cec\($0)" }
    }

    /// Opens `path` non-blocking as initiator and follower (we send, and we hear what is sent to
    /// us and broadcast), and reads its capabilities and addresses.
    public init(path: String) throws(Errno) {
        self.path = path
        descriptor = try FileDescriptor.open(path, .readWrite, options: [.nonBlocking])
        do throws(Errno) {
            var caps = cec_caps()
            try Self.call(descriptor, tb_cec_adap_g_caps, &caps)
            driver = Self.string(of: &caps.driver)
            name = Self.string(of: &caps.name)
            capabilities = caps.capabilities
            var mode = UInt32(CEC_MODE_INITIATOR | CEC_MODE_FOLLOWER)
            try Self.call(descriptor, tb_cec_s_mode, &mode)
            physicalAddress = 0xFFFF
            if capabilities & UInt32(CEC_CAP_CONNECTOR_INFO) != 0 {
                var info = cec_connector_info()
                if (try? Self.call(descriptor, tb_cec_adap_g_connector_info, &info)) != nil, info.type == UInt32(CEC_CONNECTOR_TYPE_DRM) {
                    drmConnector = CECAdapterChoice.DRMConnectorID(card: info.drm.card_no, connector: info.drm.connector_id)
                }
            }
            try refreshAddresses()
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    deinit { try? descriptor.close() }

    /// Whether logical addresses are claimed or being claimed: an unconfigured adapter may send only
    /// `f0:04`-like frames (from Unregistered to the TV).
    public var isUnconfigured: Bool { logicalAddress == nil }

    /// True when the adapter can send at all (some are receive-only monitors).
    public var canTransmit: Bool { capabilities & UInt32(CEC_CAP_TRANSMIT) != 0 }

    /// Reads the physical address and the claimed logical address again (after `.stateChanged`).
    public func refreshAddresses() throws(Errno) {
        var pa: UInt16 = 0xFFFF
        try Self.call(descriptor, tb_cec_adap_g_phys_addr, &pa)
        physicalAddress = pa
        var addrs = cec_log_addrs()
        try Self.call(descriptor, tb_cec_adap_g_log_addrs, &addrs)
        let first = addrs.log_addr.0
        logicalAddress = addrs.log_addr_mask == 0 || first == UInt8(CEC_LOG_ADDR_INVALID) ? nil : first
    }

    /// True when the adapter has logical addresses configured (by us or by another program).
    public func isConfigured() throws(Errno) -> Bool {
        var addrs = cec_log_addrs()
        try Self.call(descriptor, tb_cec_adap_g_log_addrs, &addrs)
        return addrs.num_log_addrs > 0
    }

    /// Asks the adapter to claim a playback device's logical address under `osdName`. Returns at
    /// once: the claim polls the bus and ends in a `.stateChanged` (then `logicalAddress` is set).
    /// An adapter whose addresses another program configured already keeps them (we use them).
    public func claimPlayback(osdName: String) throws(Errno) {
        guard capabilities & UInt32(CEC_CAP_LOG_ADDRS) != 0, try !isConfigured() else { return }
        var addrs = cec_log_addrs()
        addrs.cec_version = UInt8(CEC_OP_CEC_VERSION_1_4)
        addrs.num_log_addrs = 1
        addrs.vendor_id = CEC_VENDOR_ID_NONE
        addrs.flags = UInt32(CEC_LOG_ADDRS_FL_ALLOW_UNREG_FALLBACK)
        withUnsafeMutableBytes(of: &addrs.osd_name) { raw in
            for (i, b) in osdName.utf8.prefix(14).enumerated() { raw[i] = b }
        }
        addrs.primary_device_type.0 = UInt8(CEC_OP_PRIM_DEVTYPE_PLAYBACK)
        addrs.log_addr_type.0 = UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK)
        addrs.all_device_types.0 = UInt8(CEC_OP_ALL_DEVTYPE_PLAYBACK)
        do throws(Errno) {
            try Self.call(descriptor, tb_cec_adap_s_log_addrs, &addrs)
        } catch .resourceBusy {
            return  // configured meanwhile by someone else: theirs stand
        }
    }

    /// Queues `message` for sending; returns its sequence number (its outcome comes back as
    /// `.transmitted`). `ENONET`: no logical address claimed yet; `EBUSY`: the queue is full;
    /// `ENODEV`: the adapter is gone.
    @discardableResult
    public func transmit(_ message: CECMessage) throws(Errno) -> UInt32 {
        var msg = cec_msg()
        msg.len = UInt32(message.bytes.count)
        withUnsafeMutableBytes(of: &msg.msg) { raw in
            for (i, b) in message.bytes.enumerated() { raw[i] = b }
        }
        try Self.call(descriptor, tb_cec_transmit, &msg)
        return msg.sequence
    }

    /// Everything waiting: received frames and transmit outcomes (CEC_RECEIVE), then adapter
    /// events (CEC_DQEVENT), until the kernel has no more. `ENODEV` when the adapter is gone.
    public func drain() throws(Errno) -> [Incoming] {
        var out: [Incoming] = []
        while out.count < 256 {
            var msg = cec_msg()
            do throws(Errno) { try Self.call(descriptor, tb_cec_receive, &msg) } catch .wouldBlock { break }
            let bytes = withUnsafeBytes(of: &msg.msg) { Array($0.prefix(Int(min(msg.len, 16)))) }
            if msg.tx_status != 0 {
                let ok = msg.tx_status & UInt8(CEC_TX_STATUS_OK) != 0
                out.append(.transmitted(sequence: msg.sequence, acknowledged: ok, status: Self.describe(txStatus: msg.tx_status)))
            } else if !bytes.isEmpty {
                out.append(.message(CECMessage(bytes: bytes)))
            }
        }
        while true {
            var event = cec_event()
            do throws(Errno) { try Self.call(descriptor, tb_cec_dqevent, &event) } catch .wouldBlock { break }
            if event.event == UInt32(CEC_EVENT_STATE_CHANGE) {
                try refreshAddresses()
                out.append(.stateChanged)
            }
        }
        return out
    }

    /// "nack", "timeout", "arbitration-lost", … for the log.
    static func describe(txStatus s: UInt8) -> String {
        let names: [(Int32, String)] = [(CEC_TX_STATUS_OK, "ok"), (CEC_TX_STATUS_ARB_LOST, "arbitration-lost"),
                                        (CEC_TX_STATUS_NACK, "nack"), (CEC_TX_STATUS_LOW_DRIVE, "low-drive"),
                                        (CEC_TX_STATUS_ERROR, "error"), (CEC_TX_STATUS_MAX_RETRIES, "max-retries"),
                                        (CEC_TX_STATUS_ABORTED, "aborted"), (CEC_TX_STATUS_TIMEOUT, "timeout")]
        let set = names.filter { s & UInt8($0.0) != 0 }.map(\.1)
        return set.isEmpty ? "status \(s)" : set.joined(separator: ",")
    }

    private static func call(_ fd: FileDescriptor, _ request: UInt, _ argument: UnsafeMutableRawPointer) throws(Errno) {
        _ = try retryingOnInterrupt { ioctl(fd.rawValue, request, argument) }
    }

    private static func string<T>(of tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
