// HDMI-CEC as values: the few messages a wall ticker sends and understands, their bytes, and what
// a received one means. Pure (no device): `Display.CECAdapter` moves the bytes through the kernel's
// CEC API, the core decides when the TV goes to standby or wakes (KioskCore's `CECPower`), and the
// shell answers the protocol's questions (`CECMessage.answer`) from the screen's state.

/// CEC logical addresses (CEC 1.4 table 5): the TV is always 0, a broadcast goes to 15.
public enum CECAddress {
    public static let tv: UInt8 = 0
    public static let broadcast: UInt8 = 15
    public static let unregistered: UInt8 = 15
}

/// The opcodes Tickerboard sends or reads (HDMI 1.4b CEC, table 8 and on).
public enum CECOpcode: UInt8, Sendable {
    case featureAbort = 0x00
    case imageViewOn = 0x04
    case standby = 0x36
    case activeSource = 0x82
    case requestActiveSource = 0x85
    case setStreamPath = 0x86
    case giveDevicePowerStatus = 0x8F
    case reportPowerStatus = 0x90
}

/// The TV's answer to Give Device Power Status (operand of Report Power Status).
public enum CECPowerStatus: UInt8, Sendable, Equatable {
    case on = 0
    case standby = 1
    case turningOn = 2
    case turningOff = 3

    /// On, or on its way there: a TV that will show the picture.
    public var isOnOrTurningOn: Bool { self == .on || self == .turningOn }
}

/// What the core asks of the TV (a `KioskEffect`), carried out by the shell with the adapter it has.
public enum CECRequest: Sendable, Equatable, CustomStringConvertible {
    /// Standby to the TV (logical address 0).
    case standby
    /// Image View On to the TV, then Active Source (broadcast, with our physical address).
    case wake
    /// Active Source alone: the TV asked who is showing (it is on already).
    case activeSource
    /// Give Device Power Status to the TV; its Report Power Status comes back as news.
    case queryPower

    public var description: String {
        switch self {
        case .standby: "standby"
        case .wake: "image-view-on + active-source"
        case .activeSource: "active-source"
        case .queryPower: "give-device-power-status"
        }
    }
}

/// What the shell learned from the CEC adapter (a `KioskEvent`).
public enum CECNews: Sendable, Equatable {
    /// The adapter claimed its logical address (a playback device) at `physicalAddress`.
    case ready(device: String, physicalAddress: UInt16, logicalAddress: UInt8)
    /// The adapter went away (unbound, unplugged: `ENODEV`), or none could be opened (`reason`).
    case gone(reason: String)
    /// The adapter is open but has no physical address (nothing on its port, or a TV that dropped
    /// hot-plug in standby: vc4 invalidates the address then): it cannot claim a logical address,
    /// and Image View On from Unregistered is all it may send.
    case addressLost(device: String, reason: String)
    /// A Standby reached us: the TV (or the whole system) was switched off by its remote.
    case standbyReceived(from: UInt8)
    /// The TV's Report Power Status.
    case tvPower(CECPowerStatus)
    /// The TV asked who the active source is (Request Active Source, or Set Stream Path to us):
    /// it is on and looking.
    case activeSourceRequested
    /// A request went out and the TV acknowledged it.
    case sent(CECRequest)
    /// A request could not be delivered: no acknowledgement (the TV is unplugged or never
    /// answers), a timeout, an adapter error.
    case failed(CECRequest, reason: String)
}

/// One CEC frame: the header byte (initiator, destination), the opcode and its operands.
public struct CECMessage: Sendable, Equatable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = Array(bytes.prefix(16)) }

    public init(from initiator: UInt8, to destination: UInt8, _ opcode: CECOpcode, _ operands: [UInt8] = []) {
        bytes = [(initiator & 0xF) << 4 | (destination & 0xF), opcode.rawValue] + operands
    }

    public var initiator: UInt8 { (bytes.first ?? 0xFF) >> 4 }
    public var destination: UInt8 { (bytes.first ?? 0xFF) & 0xF }
    public var isBroadcast: Bool { destination == CECAddress.broadcast }
    /// nil for a poll (a header alone).
    public var opcode: UInt8? { bytes.count > 1 ? bytes[1] : nil }
    public var operands: ArraySlice<UInt8> { bytes.dropFirst(2) }

    /// `0f:36` as cec-ctl prints frames.
    public var description: String {
        bytes.map { b in
            let h = String(b, radix: 16)
            return h.count == 1 ? "0" + h : h
        }.joined(separator: ":")
    }

    /// The messages that carry out `request` from logical address `from`, in order.
    public static func messages(for request: CECRequest, from: UInt8, physicalAddress: UInt16) -> [CECMessage] {
        let pa = [UInt8(physicalAddress >> 8), UInt8(physicalAddress & 0xFF)]
        switch request {
        case .standby: return [CECMessage(from: from, to: CECAddress.tv, .standby)]
        case .wake:
            return [CECMessage(from: from, to: CECAddress.tv, .imageViewOn),
                    CECMessage(from: from, to: CECAddress.broadcast, .activeSource, pa)]
        case .activeSource: return [CECMessage(from: from, to: CECAddress.broadcast, .activeSource, pa)]
        case .queryPower: return [CECMessage(from: from, to: CECAddress.tv, .giveDevicePowerStatus)]
        }
    }

    /// What a received frame tells the core (nil: nothing it decides on).
    public func news(ourPhysicalAddress: UInt16) -> CECNews? {
        guard let opcode, let op = CECOpcode(rawValue: opcode) else { return nil }
        switch op {
        case .standby: return .standbyReceived(from: initiator)
        case .reportPowerStatus:
            guard initiator == CECAddress.tv, let status = operands.first.flatMap(CECPowerStatus.init) else { return nil }
            return .tvPower(status)
        case .requestActiveSource: return isBroadcast ? .activeSourceRequested : nil
        case .setStreamPath:
            let ops = Array(operands)
            guard ops.count >= 2 else { return nil }
            return UInt16(ops[0]) << 8 | UInt16(ops[1]) == ourPhysicalAddress ? .activeSourceRequested : nil
        default: return nil
        }
    }

    /// The protocol's own answer to a frame directed to us, which the kernel's CEC framework
    /// leaves to a follower: our power status when asked, Feature Abort ("unrecognized opcode")
    /// for any other directed message we do not act on. Never an answer to a broadcast, to a
    /// Feature Abort, or to the messages we read as news.
    public func answer(from us: UInt8, screenOn: Bool) -> CECMessage? {
        guard !isBroadcast, destination == us, let opcode else { return nil }
        switch CECOpcode(rawValue: opcode) {
        case .giveDevicePowerStatus?:
            let status: CECPowerStatus = screenOn ? .on : .standby
            return CECMessage(from: us, to: initiator, .reportPowerStatus, [status.rawValue])
        case .featureAbort?, .standby?, .reportPowerStatus?, .setStreamPath?, .activeSource?, .imageViewOn?:
            return nil
        default:
            // A reply to the initiator's own broadcast address (15) is impossible: an unregistered
            // device gets no answer.
            guard initiator != CECAddress.unregistered else { return nil }
            return CECMessage(from: us, to: initiator, .featureAbort, [opcode, 0])
        }
    }
}

/// Which CEC adapter is ours (issue 49: a Pi 4 or 5 has `vc4-hdmi-0` and `-1`, and `/dev/cec0` with
/// nothing behind it never claimed an address while the TV sat on the second port).
public enum CECAdapterChoice {
    public struct Candidate: Equatable, Sendable {
        public var canTransmit: Bool
        /// 0xFFFF: invalid (nothing connected, or a TV that dropped hot-plug in standby).
        public var physicalAddress: UInt16
        /// The DRM connector the adapter belongs to (CEC_ADAP_G_CONNECTOR_INFO), when it says.
        public var drmConnector: DRMConnectorID?

        public init(canTransmit: Bool, physicalAddress: UInt16, drmConnector: DRMConnectorID? = nil) {
            self.canTransmit = canTransmit
            self.physicalAddress = physicalAddress
            self.drmConnector = drmConnector
        }
    }

    public struct DRMConnectorID: Equatable, Hashable, Sendable {
        public var card: UInt32
        public var connector: UInt32
        public init(card: UInt32, connector: UInt32) { self.card = card; self.connector = connector }
    }

    /// The adapter of the DRM connector in use; else the first with a valid physical address; else
    /// the first that can send at all (its TV may be in standby with hot-plug dropped: it can still
    /// be woken). Never a sink (0.0.0.0 is the TV itself) or a receive-only monitor.
    public static func choose(_ candidates: [Candidate], output: DRMConnectorID?) -> Int? {
        let usable = candidates.indices.filter { candidates[$0].canTransmit && candidates[$0].physicalAddress != 0 }
        if let output, let i = usable.first(where: { candidates[$0].drmConnector == output }) { return i }
        if let i = usable.first(where: { candidates[$0].physicalAddress != 0xFFFF }) { return i }
        return usable.first
    }
}

extension CECMessage {
    /// Image View On from Unregistered (15) to the TV: `f0:04`. The CEC core lets an adapter with
    /// no logical address send exactly this (cec-adap.c, cec_transmit_msg_fh: an unconfigured
    /// adapter may transmit only from 0xf to 0), for a TV that dropped hot-plug in standby and so
    /// left us without a physical address.
    public static let wakeFromUnregistered = CECMessage(from: CECAddress.unregistered, to: CECAddress.tv, .imageViewOn)
}
