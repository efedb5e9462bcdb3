// InputModel: touch, pointer and key events in display coordinates, the mapping from the panel to
// the picture, calibration, and the gesture recognizer: pure values and decisions (times come in
// the events), so the core and the tests use them without libinput. `Input` reads the devices.

/// What an input device can do, as libinput sees it.
public struct InputCapabilities: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let touch = InputCapabilities(rawValue: 1 << 0)
    public static let pointer = InputCapabilities(rawValue: 1 << 1)
    public static let keyboard = InputCapabilities(rawValue: 1 << 2)

    /// "touch,pointer", or "none".
    public var description: String {
        var names: [String] = []
        if contains(.touch) { names.append("touch") }
        if contains(.pointer) { names.append("pointer") }
        if contains(.keyboard) { names.append("keyboard") }
        return names.isEmpty ? "none" : names.joined(separator: ",")
    }
}

/// One input device: what `tickerboard inputs` lists and what device added/removed events carry.
public struct InputDeviceInfo: Equatable, Sendable, CustomStringConvertible {
    /// Ours, unique for the life of the `InputDevices` (a re-plugged device gets a new one).
    public var id: Int
    /// The kernel's name, e.g. "ELAN Touchscreen".
    public var name: String
    /// The event node's name, e.g. "event3".
    public var sysname: String
    public var capabilities: InputCapabilities
    /// Physical size in millimetres; nil when the device has no resolution (libinput cannot tell).
    public var sizeMillimetres: (width: Double, height: Double)?
    /// The display output the device is part of, from its udev `WL_OUTPUT` property (a connector
    /// name like HDMI-A-2); nil when udev does not say.
    public var outputName: String?

    public init(id: Int, name: String, sysname: String, capabilities: InputCapabilities,
                sizeMillimetres: (width: Double, height: Double)? = nil, outputName: String? = nil) {
        self.id = id; self.name = name; self.sysname = sysname
        self.capabilities = capabilities; self.sizeMillimetres = sizeMillimetres
        self.outputName = outputName
    }

    public static func == (a: InputDeviceInfo, b: InputDeviceInfo) -> Bool {
        a.id == b.id && a.name == b.name && a.sysname == b.sysname && a.capabilities == b.capabilities
            && a.sizeMillimetres?.width == b.sizeMillimetres?.width
            && a.sizeMillimetres?.height == b.sizeMillimetres?.height && a.outputName == b.outputName
    }

    /// `"ELAN Touchscreen" event3 touch 256.0x144.0mm`.
    public var description: String {
        let size = sizeMillimetres.map { "\(formatted($0.width))x\(formatted($0.height))mm" } ?? "size=unknown"
        return "\"\(name)\" \(sysname) \(capabilities) \(size)" + (outputName.map { " output \($0)" } ?? "")
    }
}

/// What a key press means to the daemon. The mapping is fixed: 1–6 (and keypad 1–6) select a
/// range, left/right step, space pauses the unattended cycling.
public enum KeyCommand: Equatable, Sendable {
    /// Select the range at this zero-based index (key "1" is index 0, ... key "8" is index 7:
    /// eight ranges with YTD and MAX).
    case selectRange(Int)
    case previousRange
    case nextRange
    case togglePause

    /// The command for a Linux key code (`KEY_*` from linux/input-event-codes.h), or nil.
    public init?(keyCode: UInt32) {
        switch keyCode {
        case 2...9: self = .selectRange(Int(keyCode) - 2)      // KEY_1 ... KEY_8
        case 79: self = .selectRange(0)                         // KEY_KP1
        case 80: self = .selectRange(1)                         // KEY_KP2
        case 81: self = .selectRange(2)                         // KEY_KP3
        case 75: self = .selectRange(3)                         // KEY_KP4
        case 76: self = .selectRange(4)                         // KEY_KP5
        case 77: self = .selectRange(5)                         // KEY_KP6
        case 71: self = .selectRange(6)                         // KEY_KP7
        case 72: self = .selectRange(7)                         // KEY_KP8
        case 105: self = .previousRange                         // KEY_LEFT
        case 106: self = .nextRange                             // KEY_RIGHT
        case 57: self = .togglePause                            // KEY_SPACE
        default: return nil
        }
    }
}

/// One input event in the daemon's terms. Positions are in the *logical* picture's pixels (after
/// rotation and calibration, clamped to the picture); times are libinput's, in microseconds of
/// `CLOCK_MONOTONIC`.
public enum InputEvent: Equatable, Sendable {
    /// A finger touched. `slot` is libinput's seat slot: unique across all touch devices of the seat.
    case touchDown(slot: Int, x: Double, y: Double, time: UInt64)
    case touchMotion(slot: Int, x: Double, y: Double, time: UInt64)
    case touchUp(slot: Int, time: UInt64)
    /// The kernel or libinput gave up on the contact (palm, device gone): treat it as ended, not as a tap.
    case touchCancel(slot: Int, time: UInt64)
    /// The end of one hardware report: everything before it happened at the same moment.
    case touchFrame(time: UInt64)
    /// The pointer (mouse, tablet) is now at this position: relative motion accumulated and clamped,
    /// absolute motion mapped like touch.
    case pointerMotion(x: Double, y: Double, time: UInt64)
    /// A pointer button (`BTN_LEFT` = 0x110 ...) at the pointer's position.
    case pointerButton(button: UInt32, pressed: Bool, x: Double, y: Double, time: UInt64)
    /// A key (Linux key code), with its command if it has one. Commands come on press only.
    case key(code: UInt32, pressed: Bool, command: KeyCommand?, time: UInt64)
    case deviceAdded(InputDeviceInfo)
    case deviceRemoved(InputDeviceInfo)

    /// The event's time in microseconds (nil for device events).
    public var time: UInt64? {
        switch self {
        case .touchDown(_, _, _, let t), .touchMotion(_, _, _, let t), .touchUp(_, let t), .touchCancel(_, let t),
             .touchFrame(let t), .pointerMotion(_, _, let t), .pointerButton(_, _, _, _, let t), .key(_, _, _, let t):
            return t
        case .deviceAdded, .deviceRemoved:
            return nil
        }
    }
}

/// `BTN_LEFT` from linux/input-event-codes.h: the button that acts like a finger.
public let leftMouseButton: UInt32 = 0x110

/// 12.25 -> "12.2", 3 -> "3.0": one decimal, without Foundation.
package func formatted(_ value: Double) -> String {
    guard value.isFinite else { return "\(value)" }
    let tenths = (value * 10).rounded()
    let sign = tenths < 0 ? "-" : ""
    let magnitude = Int(abs(tenths))
    return "\(sign)\(magnitude / 10).\(magnitude % 10)"
}
