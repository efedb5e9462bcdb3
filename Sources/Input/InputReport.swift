import InputModel

/// The `tickerboard inputs` listing: the devices libinput sees on a seat.
public enum InputReport {
    /// One line per device (`event3  touch           256.0x144.0mm  "ELAN Touchscreen"`), then
    /// notes (no udevd, nothing found, nodes that could not be opened).
    public static func make(seat: String = "seat0") -> String {
        var notes: [String] = []
        let input: InputDevices
        do {
            input = try InputDevices(seat: seat, mapping: TouchMapping(panelWidth: 0, panelHeight: 0),
                                     log: { line in if !line.hasPrefix("input: found ") { notes.append(line) } })
        } catch {
            return "inputs: \(error)\n"
        }
        var found: [InputDeviceInfo] = []
        input.dispatch { event in if case .deviceAdded(let info) = event { found.append(info) } }
        var lines = ["input devices on \(seat) (libinput):"]
        for info in found {
            let size = info.sizeMillimetres.map { "\(formatted($0.width))x\(formatted($0.height))mm" } ?? "size unknown"
            lines.append("  " + pad(info.sysname, 10) + pad(info.capabilities.description, 24) + pad(size, 18) + "\"\(info.name)\"")
        }
        if found.isEmpty { lines.append("  (none)") }
        let touch = found.filter { $0.capabilities.contains(.touch) }.count
        let pointer = found.filter { $0.capabilities.contains(.pointer) }.count
        let keyboard = found.filter { $0.capabilities.contains(.keyboard) }.count
        lines.append("\(found.count) devices: \(touch) touch, \(pointer) pointer, \(keyboard) keyboard")
        lines.append(contentsOf: notes.map { "note: " + $0.replacing("input: ", with: "", maxReplacements: 1) })
        return lines.joined(separator: "\n") + "\n"
    }

    private static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }
}
