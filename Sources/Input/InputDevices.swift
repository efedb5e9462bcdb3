// Input: libinput (udev seat) -> `InputEvent`s in display coordinates (InputModel's values). Knows
// nothing of charts or displays: the caller passes the panel size and rotation (a `TouchMapping`).
import CLibinput
import InputModel
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// Why the input devices could not be set up.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

// libinput opens device nodes through these (so logind or seatd could be put in between). They must
// be capture-free C function pointers; they return an fd or a negative errno. `userData` is the
// context's `OpenFailures`, which collects failures so they are logged by `dispatch`.
private typealias OpenRestricted = @convention(c) (UnsafePointer<CChar>?, CInt, UnsafeMutableRawPointer?) -> CInt
private typealias CloseRestricted = @convention(c) (CInt, UnsafeMutableRawPointer?) -> Void

private let openRestricted: OpenRestricted = { path, flags, userData in
    guard let path else { return -EINVAL }
    let name = String(cString: path)
    do throws(Errno) { return try FileDescriptor.open(name, flags: flags).rawValue } catch {
        if let userData {
            Unmanaged<OpenFailures>.fromOpaque(userData).takeUnretainedValue().record(path: name, errno: error.rawValue)
        }
        return -error.rawValue
    }
}

private let closeRestricted: CloseRestricted = { fd, _ in
    try? FileDescriptor(rawValue: fd).close()
}

/// Device nodes libinput could not open, collected inside the C callback and logged later.
final class OpenFailures {
    private(set) var pending: [(path: String, errno: CInt)] = []
    func record(path: String, errno: CInt) {
        if pending.count < 64 { pending.append((path, errno)) }
    }
    func drain() -> [(path: String, errno: CInt)] {
        defer { pending.removeAll() }
        return pending
    }
}

/// The input devices of a seat through libinput: touchscreens, mice, tablets and keyboards,
/// including ones plugged in or removed while running. Single-threaded: watch ``pollDescriptor``
/// in the event loop and call ``dispatch()`` when it is readable. The devices present at start are
/// set up (logged, calibrated) inside init; their `.deviceAdded` events wait for the first
/// ``dispatch()`` (queued events do not make the descriptor readable, so call it once after init if
/// you want them at once).
///
/// Touch and absolute pointer positions come out in the logical picture's pixels through
/// ``mapping``; relative pointer motion is accumulated in logical pixels and clamped to the picture.
public final class InputDevices {
    /// Panel size and rotation; change it on a mode change or a new rotation.
    public var mapping: TouchMapping {
        didSet { clampPointer() }
    }
    /// Our calibration (from the config), composed with each touch device's own (udev) matrix.
    public let calibration: CalibrationMatrix?
    /// The seat for a udev context, nil for a path context.
    public let seat: String?

    private let context: OpaquePointer
    private let udev: OpaquePointer?
    /// libinput keeps this pointer (not a copy), so it lives exactly as long as the context.
    private let interface: UnsafeMutablePointer<libinput_interface>
    private let openFailures: OpenFailures
    private let log: (String) -> Void

    private var present: [Int: (info: InputDeviceInfo, device: OpaquePointer)] = [:]
    private var nextID = 1
    private var pointerX = 0.0, pointerY = 0.0
    private var warnedNoArea = false
    /// Events converted during init (the devices found at start), handed out by the next dispatch.
    private var pending: [InputEvent] = []

    /// The devices present now, in the order they were added.
    public var devices: [InputDeviceInfo] { present.values.map(\.info).sorted { $0.id < $1.id } }

    /// The descriptor to watch for readability (an epoll fd inside libinput).
    public var pollDescriptor: CInt { libinput_get_fd(context) }

    /// libinput on the udev seat `seat`. Fails only when udev or libinput cannot be set up; a seat
    /// without devices, or without a running udevd, is logged and works (devices may come later).
    public init(seat: String = "seat0", mapping: TouchMapping, calibration: CalibrationMatrix? = nil,
                log: @escaping (String) -> Void) throws(InputError) {
        self.mapping = mapping
        self.calibration = calibration
        self.seat = seat
        self.log = log
        guard let udev = udev_new() else { throw InputError("input: udev_new failed") }
        let failures = OpenFailures()
        let interface = Self.makeInterface()
        guard let context = libinput_udev_create_context(interface, Unmanaged.passUnretained(failures).toOpaque(), udev) else {
            interface.deallocate(); udev_unref(udev)
            throw InputError("input: libinput_udev_create_context failed")
        }
        // 0 on success, -1 when udev enumeration fails.
        guard libinput_udev_assign_seat(context, seat) == 0 else {
            libinput_unref(context); interface.deallocate(); udev_unref(udev)
            throw InputError("input: libinput cannot use seat \(seat)")
        }
        self.udev = udev
        self.context = context
        self.interface = interface
        self.openFailures = failures
        if !FileSystem.exists("/run/udev/control") {
            log("input: systemd-udevd is not running (/run/udev/control missing): libinput will find no devices and no hotplug")
        }
        centrePointer()
        readStartupEvents()
    }

    /// libinput on explicit device nodes (`/dev/input/eventN`), without udev: for tests and for
    /// `--input-device` overrides. Nodes that cannot be opened are logged and skipped.
    public init(paths: [String], mapping: TouchMapping, calibration: CalibrationMatrix? = nil,
                log: @escaping (String) -> Void) throws(InputError) {
        self.mapping = mapping
        self.calibration = calibration
        self.seat = nil
        self.log = log
        let failures = OpenFailures()
        let interface = Self.makeInterface()
        guard let context = libinput_path_create_context(interface, Unmanaged.passUnretained(failures).toOpaque()) else {
            interface.deallocate()
            throw InputError("input: libinput_path_create_context failed")
        }
        self.udev = nil
        self.context = context
        self.interface = interface
        self.openFailures = failures
        centrePointer()
        for path in paths { _ = addDevice(path: path) }
        readStartupEvents()
    }

    /// Converts the events libinput queued while setting up (device added for every device already
    /// there), so that devices are logged and calibrated before their first touch is processed.
    private func readStartupEvents() {
        var events: [InputEvent] = []
        read { events.append($0) }
        pending = events
    }

    deinit {
        for entry in present.values { libinput_device_unref(entry.device) }
        libinput_unref(context)   // closes the devices through close_restricted: free the interface after
        interface.deallocate()
        if let udev { udev_unref(udev) }
    }

    private static func makeInterface() -> UnsafeMutablePointer<libinput_interface> {
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(to: libinput_interface(open_restricted: openRestricted, close_restricted: closeRestricted))
        return interface
    }

    /// Adds a device node to a path context; its `.deviceAdded` comes with the next dispatch.
    /// Returns false (and logs) when it cannot be added, or when this is a udev context.
    @discardableResult
    public func addDevice(path: String) -> Bool {
        guard udev == nil else {
            log("input: \(path): devices are added by udev on a seat context")
            return false
        }
        guard libinput_path_add_device(context, path) != nil else {
            logOpenFailures()
            log("input: \(path): libinput cannot use it")
            return false
        }
        return true
    }

    /// Reads what the kernel and udev have for us and returns it as events, oldest first.
    public func dispatch() -> [InputEvent] {
        var events: [InputEvent] = []
        dispatch { events.append($0) }
        return events
    }

    /// Like ``dispatch()``, handing each event to `body` without collecting them.
    public func dispatch(_ body: (InputEvent) -> Void) {
        if !pending.isEmpty {
            let startup = pending
            pending = []
            for event in startup { body(event) }
        }
        read(body)
    }

    private func read(_ body: (InputEvent) -> Void) {
        let status = libinput_dispatch(context)     // 0 or a negative errno
        if status < 0 {
            log("input: libinput_dispatch: \(Errno(rawValue: -status))")
        }
        while let event = libinput_get_event(context) {
            if let converted = convert(event) { body(converted) }
            libinput_event_destroy(event)
        }
        logOpenFailures()
    }

    // MARK: - Events

    private func convert(_ event: OpaquePointer) -> InputEvent? {
        let type = libinput_event_get_type(event)
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            return deviceAdded(libinput_event_get_device(event))
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            return deviceRemoved(libinput_event_get_device(event))
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            guard let touch = libinput_event_get_touch_event(event), let p = touchPosition(touch) else { return nil }
            let slot = Int(libinput_event_touch_get_seat_slot(touch))
            let time = libinput_event_touch_get_time_usec(touch)
            return type == LIBINPUT_EVENT_TOUCH_DOWN
                ? .touchDown(slot: slot, x: p.x, y: p.y, time: time)
                : .touchMotion(slot: slot, x: p.x, y: p.y, time: time)
        case LIBINPUT_EVENT_TOUCH_UP:
            guard let touch = libinput_event_get_touch_event(event) else { return nil }
            return .touchUp(slot: Int(libinput_event_touch_get_seat_slot(touch)), time: libinput_event_touch_get_time_usec(touch))
        case LIBINPUT_EVENT_TOUCH_CANCEL:
            guard let touch = libinput_event_get_touch_event(event) else { return nil }
            return .touchCancel(slot: Int(libinput_event_touch_get_seat_slot(touch)), time: libinput_event_touch_get_time_usec(touch))
        case LIBINPUT_EVENT_TOUCH_FRAME:
            guard let touch = libinput_event_get_touch_event(event) else { return nil }
            return .touchFrame(time: libinput_event_touch_get_time_usec(touch))
        case LIBINPUT_EVENT_POINTER_MOTION:
            guard let pointer = libinput_event_get_pointer_event(event) else { return nil }
            let dx = libinput_event_pointer_get_dx(pointer), dy = libinput_event_pointer_get_dy(pointer)
            if dx.isFinite { pointerX += dx }
            if dy.isFinite { pointerY += dy }
            clampPointer()
            return .pointerMotion(x: pointerX, y: pointerY, time: libinput_event_pointer_get_time_usec(pointer))
        case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
            guard let pointer = libinput_event_get_pointer_event(event), mapping.hasArea else { return nil }
            let x = libinput_event_pointer_get_absolute_x_transformed(pointer, UInt32(mapping.panelWidth))
            let y = libinput_event_pointer_get_absolute_y_transformed(pointer, UInt32(mapping.panelHeight))
            guard let p = mapping.logicalPoint(x: x, y: y) else { return nil }
            pointerX = p.x; pointerY = p.y
            return .pointerMotion(x: pointerX, y: pointerY, time: libinput_event_pointer_get_time_usec(pointer))
        case LIBINPUT_EVENT_POINTER_BUTTON:
            guard let pointer = libinput_event_get_pointer_event(event) else { return nil }
            return .pointerButton(button: libinput_event_pointer_get_button(pointer),
                                  pressed: libinput_event_pointer_get_button_state(pointer) == LIBINPUT_BUTTON_STATE_PRESSED,
                                  x: pointerX, y: pointerY, time: libinput_event_pointer_get_time_usec(pointer))
        case LIBINPUT_EVENT_KEYBOARD_KEY:
            guard let keyboard = libinput_event_get_keyboard_event(event) else { return nil }
            let code = libinput_event_keyboard_get_key(keyboard)
            let pressed = libinput_event_keyboard_get_key_state(keyboard) == LIBINPUT_KEY_STATE_PRESSED
            return .key(code: code, pressed: pressed, command: pressed ? KeyCommand(keyCode: code) : nil,
                        time: libinput_event_keyboard_get_time_usec(keyboard))
        default:
            return nil
        }
    }

    private func touchPosition(_ touch: OpaquePointer) -> (x: Double, y: Double)? {
        guard mapping.hasArea else {
            if !warnedNoArea {
                warnedNoArea = true
                log("input: no display size to map touches onto (\(mapping.panelWidth)x\(mapping.panelHeight)); touches ignored")
            }
            return nil
        }
        let x = libinput_event_touch_get_x_transformed(touch, UInt32(mapping.panelWidth))
        let y = libinput_event_touch_get_y_transformed(touch, UInt32(mapping.panelHeight))
        return mapping.logicalPoint(x: x, y: y)
    }

    private func deviceAdded(_ device: OpaquePointer?) -> InputEvent? {
        guard let device else { return nil }
        let info = Self.describe(device, id: nextID)
        nextID += 1
        libinput_device_ref(device)
        libinput_device_set_user_data(device, UnsafeMutableRawPointer(bitPattern: info.id))
        present[info.id] = (info, device)
        log("input: found \(info)")
        if info.capabilities.contains(.touch) { applyCalibration(device, info) }
        return .deviceAdded(info)
    }

    private func deviceRemoved(_ device: OpaquePointer?) -> InputEvent? {
        guard let device, let raw = libinput_device_get_user_data(device) else { return nil }
        let id = Int(bitPattern: raw)
        guard let entry = present.removeValue(forKey: id) else { return nil }
        libinput_device_unref(entry.device)
        log("input: removed \(entry.info)")
        return .deviceRemoved(entry.info)
    }

    /// Composes our matrix with the device's default one (udev's `LIBINPUT_CALIBRATION_MATRIX`, or
    /// the identity): the default is applied first, then ours. The default is read, never replaced,
    /// so doing this again (a re-plugged device) gives the same result.
    private func applyCalibration(_ device: OpaquePointer, _ info: InputDeviceInfo) {
        guard let calibration, !calibration.isIdentity else { return }
        guard libinput_device_config_calibration_has_matrix(device) != 0 else {
            log("input: \(info.sysname): no calibration support; the configured matrix is not applied")
            return
        }
        var values = [Float](repeating: 0, count: 6)
        _ = libinput_device_config_calibration_get_default_matrix(device, &values)
        let base = CalibrationMatrix(values) ?? .identity
        let combined = base.then(calibration)
        var combinedValues = combined.values
        let status = libinput_device_config_calibration_set_matrix(device, &combinedValues)
        if status == LIBINPUT_CONFIG_STATUS_SUCCESS {
            log("input: \(info.sysname): calibration \(base) (device) then \(calibration) (config) = \(combined)")
        } else {
            log("input: \(info.sysname): libinput refused the calibration matrix \(combined)")
        }
    }

    static func describe(_ device: OpaquePointer, id: Int) -> InputDeviceInfo {
        var capabilities: InputCapabilities = []
        if libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TOUCH) != 0 { capabilities.insert(.touch) }
        if libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_POINTER) != 0 { capabilities.insert(.pointer) }
        if libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_KEYBOARD) != 0 { capabilities.insert(.keyboard) }
        var width = 0.0, height = 0.0
        // 0 on success; fails for devices whose axes have no resolution.
        let size: (width: Double, height: Double)? =
            libinput_device_get_size(device, &width, &height) == 0 && width > 0 && height > 0 ? (width, height) : nil
        let name = libinput_device_get_name(device).map { String(cString: $0) } ?? "?"
        let sysname = libinput_device_get_sysname(device).map { String(cString: $0) } ?? "?"
        // udev's WL_OUTPUT (a rule the integrator writes): which screen a touchscreen is glued to.
        let output = libinput_device_get_output_name(device).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        return InputDeviceInfo(id: id, name: name, sysname: sysname, capabilities: capabilities, sizeMillimetres: size,
                               outputName: output)
    }

    // MARK: - Pointer position

    private func centrePointer() {
        pointerX = Double(max(0, mapping.logicalWidth - 1)) / 2
        pointerY = Double(max(0, mapping.logicalHeight - 1)) / 2
    }

    private func clampPointer() {
        pointerX = min(max(pointerX, 0), Double(max(0, mapping.logicalWidth - 1)))
        pointerY = min(max(pointerY, 0), Double(max(0, mapping.logicalHeight - 1)))
    }

    private func logOpenFailures() {
        for failure in openFailures.drain() {
            let hint = failure.errno == EACCES || failure.errno == EPERM ? " (is the user in group 'input'?)" : ""
            log("input: cannot open \(failure.path): \(Errno(rawValue: failure.errno))\(hint)")
        }
    }
}
