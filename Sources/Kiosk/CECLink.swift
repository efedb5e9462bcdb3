// The daemon's end of HDMI-CEC: one adapter opened, claimed and watched in the event loop.

import Display
import DisplayModel
import KioskCore
import LinuxIO

/// The daemon's HDMI-CEC adapter (`[power] cec`): opens the one the setting names, claims a
/// playback address, carries out the core's requests (`CECRequest`) and hands the core what it
/// hears (`CECNews`). It answers the protocol's own questions (our power status, Feature Abort)
/// itself: they are no decision. Nothing here blocks: transmits are queued and their outcome
/// comes back on the descriptor. An adapter that goes away (unbound, module removed: `EPOLLHUP`,
/// `ENODEV`) is closed and reported once; a `cec` uevent that adds one opens it again.
final class CECLink {
    private let loop: EventLoop
    private let setting: CECSetting
    private let send: (KioskEvent) -> Void
    private let log: (Log.Priority, String) -> Void
    private var adapter: CECAdapter?
    private var registration: EventLoop.Registration?
    private var monitor: UEventMonitor?
    private var monitorRegistration: EventLoop.Registration?
    /// The request each queued transmit belongs to (the first message of a request: Image View On
    /// stands for a wake), by sequence number.
    private var pending: [UInt32: CECRequest] = [:]
    /// What we answer when asked for our power status: the screen's state as last requested.
    private var screenOn = true
    /// `.ready` was sent for the current claim.
    private var announced = false
    /// `.addressLost` was sent since the last claim.
    private var addressLost = false

    /// The DRM connector the daemon drives (the first output's), to pick the adapter on its port.
    private let output: () -> CECAdapterChoice.DRMConnectorID?

    init(loop: EventLoop, setting: CECSetting, send: @escaping (KioskEvent) -> Void,
         log: @escaping (Log.Priority, String) -> Void, output: @escaping () -> CECAdapterChoice.DRMConnectorID? = { nil }) {
        self.loop = loop
        self.output = output
        self.setting = setting
        self.send = send
        self.log = log
    }

    deinit { close() }

    /// Opens the adapter (or reports there is none) and starts listening for adapters that come.
    func start() {
        guard setting != .off else { return }
        if let monitor = try? UEventMonitor(subsystems: ["cec"]) {
            self.monitor = monitor
            monitorRegistration = try? loop.watch(monitor.descriptor.rawValue) { [unowned self] _ in
                let events = (try? monitor.readEvents()) ?? []
                let added = events.filter { $0.action == "add" }.compactMap { $0.deviceName.map { "/dev/" + $0 } }
                if adapter == nil, !added.isEmpty { open(announced: Set(added)) }
            }
        }
        open()
    }

    func stop() {
        if let monitorRegistration { loop.remove(monitorRegistration) }
        monitorRegistration = nil
        monitor = nil
        close()
    }

    /// `announced`: the nodes whose arrival udevd has just announced (their group is set); another
    /// node of the same module may still be root's for a moment, and its refusal is no news yet.
    private func open(announced: Set<String>? = nil) {
        guard adapter == nil else { return }
        let paths: [String]
        if case .device(let path) = setting { paths = [path] } else { paths = CECAdapter.devicePaths() }
        var reasons: [String] = []
        var refused: [String] = []
        var opened: [CECAdapter] = []
        for path in paths {
            do {
                let a = try CECAdapter(path: path)
                // A sink (physical address 0.0.0.0 is the TV itself) or a monitor-only adapter
                // cannot be ours; a named device is taken as it is.
                if case .device = setting {} else if !a.canTransmit || a.physicalAddress == 0 {
                    reasons.append("\(path) (\(a.name)) is \(a.canTransmit ? "a sink" : "receive-only")")
                    continue
                }
                opened.append(a)
            } catch {
                reasons.append("\(path): \(error)")
                if announced?.contains(path) ?? true { refused.append("\(path): \(error)") }
            }
        }
        // The adapter on the port the screen is on (a Pi's second HDMI port has its own), else one
        // with a TV behind it; the others are closed again.
        let candidates = opened.map { CECAdapterChoice.Candidate(canTransmit: $0.canTransmit, physicalAddress: $0.physicalAddress,
                                                                  drmConnector: $0.drmConnector) }
        let chosen = CECAdapterChoice.choose(candidates, output: output()).map { opened[$0] }
        if opened.count > 1, let chosen {
            log(.info, "cec: \(opened.count) adapters; \(chosen.path) (\(chosen.name)) is on "
                + (chosen.drmConnector != nil && chosen.drmConnector == output() ? "the screen's connector" : "a port with a physical address"))
        }
        // An adapter that is there but cannot be opened (its node still root's, a sandbox without
        // DeviceAllow=char-cec) is worth a line even under `auto`, where "no adapter" is quiet.
        if chosen == nil, !refused.isEmpty {
            log(.warning, "cec: cannot open \(refused.joined(separator: "; "))")
        }
        guard let a = chosen else {
            let why = paths.isEmpty ? "no HDMI-CEC adapter (/dev/cec*)" : "no usable HDMI-CEC adapter: " + reasons.joined(separator: "; ")
            send(.cec(.gone(reason: why)))
            return
        }
        do {
            registration = try loop.watch(a.descriptor.rawValue, events: [.readable, .priority]) { [unowned self] events in
                readable(events)
            }
            adapter = a
            try a.claimPlayback(osdName: "Tickerboard")
            log(.info, "cec: \(a.path) (\(a.driver) \(a.name)) open; claiming a playback address")
            announceIfClaimed()
        } catch {
            gone("\(a.path): \(error)")
        }
    }

    private func close() {
        if let registration { loop.remove(registration) }
        registration = nil
        adapter = nil
        pending = [:]
        announced = false
        addressLost = false
    }

    private func gone(_ reason: String) {
        close()
        send(.cec(.gone(reason: reason)))
    }

    private func announceIfClaimed() {
        guard let a = adapter else { return }
        if let la = a.logicalAddress, a.physicalAddress != 0xFFFF {
            guard !announced else { return }
            announced = true
            addressLost = false
            send(.cec(.ready(device: a.path, physicalAddress: a.physicalAddress, logicalAddress: la)))
        } else if a.physicalAddress == 0xFFFF, !addressLost {
            // Unplugged, or a TV that dropped hot-plug in standby: the adapter stays open, as the
            // core may still wake the TV from Unregistered; the address comes back with the TV.
            let why = announced ? "\(a.path) lost its physical address (HDMI unplugged, or the TV dropped hot-plug in standby)"
                                : "\(a.path) has no physical address (HDMI unplugged, or the TV is in standby)"
            announced = false
            addressLost = true
            pending = [:]
            send(.cec(.addressLost(device: a.path, reason: why)))
        }
    }

    private func readable(_ events: Epoll.Events) {
        guard let a = adapter else { return }
        if events.contains(.hangup) || events.contains(.error) {
            gone("\(a.path) was removed")
            return
        }
        let incoming: [CECAdapter.Incoming]
        do { incoming = try a.drain() } catch {
            gone("\(a.path): \(error)")
            return
        }
        for item in incoming {
            switch item {
            case .message(let message):
                if let la = a.logicalAddress, let answer = message.answer(from: la, screenOn: screenOn) {
                    _ = try? a.transmit(answer)
                }
                if let news = message.news(ourPhysicalAddress: a.physicalAddress) { send(.cec(news)) }
            case .transmitted(let sequence, let acknowledged, let status):
                guard let request = pending.removeValue(forKey: sequence) else { continue }
                send(.cec(acknowledged ? .sent(request) : .failed(request, reason: status)))
            case .stateChanged:
                announceIfClaimed()
            }
            // A handler above may have closed the adapter (it went away mid-drain).
            if adapter == nil { return }
        }
    }

    /// Sends the messages of `request`; a refusal by the kernel is a failed request.
    func perform(_ request: CECRequest) {
        switch request {
        case .standby: screenOn = false
        case .wake, .activeSource: screenOn = true
        case .queryPower: break
        }
        // A TV that drops hot-plug in standby takes our physical address with it and the adapter
        // unconfigures: the scheduled "on" would send nothing. The CEC core lets an unconfigured
        // adapter send Image View On from Unregistered, for exactly this.
        if request == .wake, let a = adapter, a.isUnconfigured {
            do throws(Errno) {
                pending[try a.transmit(.wakeFromUnregistered)] = request
                log(.info, "cec: \(a.path) has no address (the TV dropped hot-plug?); sent Image View On from Unregistered (f0:04)")
            } catch {
                send(.cec(.failed(request, reason: "\(error)")))
            }
            return
        }
        guard let a = adapter, let la = a.logicalAddress else { return }
        for (i, message) in CECMessage.messages(for: request, from: la, physicalAddress: a.physicalAddress).enumerated() {
            do throws(Errno) {
                let sequence = try a.transmit(message)
                if i == 0 { pending[sequence] = request }
            } catch .noSuchDevice {
                gone("\(a.path): \(Errno.noSuchDevice)")
                return
            } catch {
                send(.cec(.failed(request, reason: "\(error)")))
                return
            }
        }
    }
}
