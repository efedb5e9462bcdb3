// The HDMI-CEC rule: what the TV is told as the screen goes off and on, and what a TV that was
// switched off by its remote, does not answer, or loses its adapter changes about that.

import DisplayModel

/// What the TV on HDMI-CEC is told when the screen goes off and on (`[power] cec`), and what the
/// daemon makes of what the TV says. Pure: the core hands it the screen's changes and the
/// adapter's news with the time (monotonic seconds), and sends what it answers.
///
/// Rules:
/// - Screen off (schedule, idle) → Standby to the TV. Screen on (schedule, touch, a presence key)
///   → Image View On + Active Source, so the TV wakes and shows our input.
/// - A TV switched off by hand — a Standby reaches us while the screen is meant to be on, or the
///   TV reports standby more than `wakeGrace` after our last wake — is left off until the next
///   scheduled on: the idle blank sends nothing to it, and a touch or a presence key lights the
///   picture but does not switch the TV on (someone turned it off with the remote; a PIR sensor
///   must not undo that). The TV saying it is on again (Report Power Status, Request Active
///   Source) ends that, as does the start of the next on-period of `[power] schedule`. With
///   `schedule = always` there is no next scheduled on: the TV's remote switches it back on.
/// - While the screen is on, the TV's power status is asked every `pollInterval`: TVs that do not
///   broadcast Standby when switched off are noticed that way.
/// - A request the TV does not acknowledge (NACK, timeout) is logged once and sent again after 5,
///   10, 20 … seconds, at most every 5 minutes, until it is acknowledged or no longer wanted; the
///   screen does not wait for it.
public struct CECPower: Sendable {
    public enum Output: Sendable, Equatable {
        case send(CECRequest)
        case log(Log.Priority, String)
    }

    public static let pollInterval = 60.0
    /// A TV that was just told to wake may still report standby for a few seconds.
    public static let wakeGrace = 15.0
    static let firstRetry = 5.0
    static let longestRetry = 300.0

    public var setting: CECSetting
    /// The adapter's device and physical address once it claimed its logical address.
    public private(set) var adapter: (device: String, physicalAddress: UInt16)?
    /// The adapter open without a physical address: a wake still goes out (from Unregistered).
    public private(set) var unaddressed: String?
    private var goneReason: String?
    /// The screen's state as last told (nil before the first decision).
    public private(set) var wantOn: Bool?
    public private(set) var offByHand = false
    private var lastWake = -Double.infinity
    /// Failures of the request now wanted (its backoff), and whether the TV has been failing since
    /// the last acknowledgement (said once per streak, across screen changes).
    private var failures = 0
    private var failing = false
    public private(set) var retryDue: Double?
    public private(set) var queryDue: Double?

    public init(setting: CECSetting) { self.setting = setting }

    public var enabled: Bool { setting != .off }

    /// The earliest time it wants to be asked again (`timer`).
    public var nextDeadline: Double? { [retryDue, queryDue].compactMap { $0 }.min() }

    /// The status file's `cec`: `off`, `no-adapter`, `tv-on`, `tv-standby`, `tv-off-by-hand`,
    /// `not-answering` (requests unacknowledged, being retried), `claiming` (adapter open, no
    /// logical address yet), `no-address` (adapter open, no physical address).
    public var status: String {
        guard enabled else { return "off" }
        guard adapter != nil else { return unaddressed != nil ? "no-address" : goneReason == nil ? "claiming" : "no-adapter" }
        if failing { return "not-answering" }
        if offByHand { return "tv-off-by-hand" }
        switch wantOn {
        case true?: return "tv-on"
        case false?: return "tv-standby"
        case nil: return "ready"
        }
    }

    /// The screen went on or off.
    public mutating func screen(on: Bool, at t: Double) -> [Output] {
        guard enabled, wantOn != on else { return [] }
        wantOn = on
        retryDue = nil
        failures = 0
        guard adapter != nil else {
            // Without an address only the wake can go out (f0:04); a standby has nobody to reach.
            guard on, unaddressed != nil else { return [] }
            return wake(at: t)
        }
        return on ? wake(at: t) : standby()
    }

    /// The weekly schedule entered an on-period: a TV switched off by hand may be woken again.
    public mutating func scheduledOnBegan() {
        offByHand = false
    }

    private mutating func wake(at t: Double) -> [Output] {
        queryDue = t + Self.pollInterval
        if offByHand {
            return [.log(.notice, "cec: the TV was switched off by hand; it stays off until the next scheduled on")]
        }
        lastWake = t
        return [.send(.wake)]
    }

    private mutating func standby() -> [Output] {
        queryDue = nil
        return offByHand ? [] : [.send(.standby)]
    }

    /// What the shell learned from the adapter.
    public mutating func news(_ news: CECNews, at t: Double) -> [Output] {
        guard enabled else { return [] }
        switch news {
        case .ready(let device, let pa, let la):
            let first = adapter == nil
            adapter = (device, pa)
            unaddressed = nil
            goneReason = nil
            guard first else { return [] }
            var out: [Output] = [.log(.notice, "cec: \(device) is playback device \(la) at \(Self.format(pa))")]
            if let wantOn { out += wantOn ? wake(at: t) : standby() }
            return out
        case .addressLost(let device, let reason):
            let wasThere = adapter != nil
            adapter = nil
            unaddressed = device
            retryDue = nil
            queryDue = nil
            failures = 0
            failing = false
            guard wasThere else { return [] }
            return [.log(.notice, "cec: \(reason); the next scheduled on still wakes the TV (Image View On from Unregistered)")]
        case .gone(let reason):
            let wasThere = adapter != nil || unaddressed != nil
            let firstWord = goneReason == nil && !wasThere
            adapter = nil
            unaddressed = nil
            goneReason = reason
            retryDue = nil
            queryDue = nil
            failures = 0
            failing = false
            if wasThere { return [.log(.warning, "cec: the adapter is gone (\(reason)); the screen goes on without it")] }
            // `auto` without an adapter is the usual case (a monitor, no CEC): nothing to say.
            if firstWord && setting != .auto { return [.log(.warning, "cec: \(reason); running without HDMI-CEC")] }
            return []
        case .standbyReceived(let from):
            guard wantOn == true, !offByHand else { return [] }
            offByHand = true
            return [.log(.notice, "cec: standby from logical address \(from): the TV was switched off by hand; "
                         + "it stays off until the next scheduled on")]
        case .tvPower(let status):
            if status.isOnOrTurningOn {
                guard offByHand else { return [] }
                offByHand = false
                return [.log(.notice, "cec: the TV is on again")]
            }
            guard wantOn == true, !offByHand, t - lastWake > Self.wakeGrace else { return [] }
            offByHand = true
            return [.log(.notice, "cec: the TV reports standby: switched off by hand; it stays off until the next scheduled on")]
        case .activeSourceRequested:
            offByHand = false
            return wantOn == true ? [.send(.activeSource)] : []
        case .sent(let request):
            guard request != .queryPower, failing || failures > 0 else { return [] }
            failures = 0
            retryDue = nil
            guard failing else { return [] }
            failing = false
            return [.log(.notice, "cec: the TV acknowledged \(request) again")]
        case .failed(let request, let reason):
            // A lost question is asked again at the next poll; a lost order is sent again.
            guard request != .queryPower, request != .activeSource else { return [] }
            // From Unregistered (no physical address) there is no retrying: it goes again at the
            // next on, or properly once the TV gives the address back.
            guard adapter != nil else {
                return [.log(.notice, "cec: Image View On from Unregistered was not acknowledged (\(reason)); the TV may be unplugged")]
            }
            failures += 1
            let delay = min(Self.longestRetry, Self.firstRetry * Double(1 << min(failures - 1, 10)))
            retryDue = t + delay
            guard !failing else { return [] }
            failing = true
            return [.log(.warning, "cec: \(request) was not delivered (\(reason)); retrying with backoff")]
        }
    }

    /// A deadline passed.
    public mutating func timer(at t: Double) -> [Output] {
        guard enabled, adapter != nil else {
            // Nothing to send to: no deadline may stay behind (it would be due for ever).
            retryDue = nil
            queryDue = nil
            return []
        }
        var out: [Output] = []
        if let due = retryDue, due <= t {
            retryDue = nil
            switch wantOn {
            case true? where !offByHand: out.append(.send(.wake)); lastWake = t
            case false? where !offByHand: out.append(.send(.standby))
            default: break
            }
        }
        if let due = queryDue, due <= t {
            queryDue = wantOn == true ? t + Self.pollInterval : nil
            if wantOn == true { out.append(.send(.queryPower)) }
        }
        return out
    }

    /// 1.0.0.0
    static func format(_ pa: UInt16) -> String {
        [12, 8, 4, 0].map { String((pa >> UInt16($0)) & 0xF, radix: 16) }.joined(separator: ".")
    }
}

/// `[power] cec`: `off`, `on` (the first adapter that is a source; a warning when there is none),
/// `auto` (the same, quietly without one) or a device path (`/dev/cec1`).
public enum CECSetting: Sendable, Equatable, CustomStringConvertible {
    case off, on, auto
    case device(String)

    public init?(_ text: String) {
        switch text.lowercased() {
        case "off", "no", "false": self = .off
        case "on", "yes", "true": self = .on
        case "auto": self = .auto
        default:
            guard text.hasPrefix("/dev/"), text.count <= 64, !text.contains(".."),
                  text.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
            self = .device(text)
        }
    }

    public var description: String {
        switch self {
        case .off: "off"
        case .on: "on"
        case .auto: "auto"
        case .device(let path): path
        }
    }
}
