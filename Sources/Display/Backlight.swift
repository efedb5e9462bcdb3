// The panel's own backlight as a means of the screen's level: /sys/class/backlight/NAME/brightness
// and max_brightness, matched to the output the daemon drives where the kernel links them. The
// sysfs root can be moved for tests (a fake tree): TICKERBOARD_SYSFS_ROOT.
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

public struct Backlight: Sendable, Equatable {
    /// Its name under class/backlight (`intel_backlight`, `rpi_backlight`, `11-0045`).
    public let name: String
    public let directory: String
    public let maxBrightness: Int

    /// `/sys`, or `$TICKERBOARD_SYSFS_ROOT` (tests point it at a fake tree).
    public static var sysfsRoot: String {
        if let v = getenv("TICKERBOARD_SYSFS_ROOT").map({ String(cString: $0) }), !v.isEmpty { return v }
        return "/sys"
    }

    /// Connector types whose panel is built in (a backlight of the board is theirs when it is the
    /// only one): DSI (the Pi's 7" panel and Touch Display 2), eDP and LVDS (laptops), DPI and SPI panels.
    static let builtInConnectorPrefixes = ["DSI", "eDP", "LVDS", "DPI", "SPI"]

    /// The backlight of connector `connector` (`DSI-1`) on DRM card `card` (`card0`), and how it was
    /// chosen, or why none was.
    ///
    /// 1. A backlight the kernel hangs under the connector's sysfs device (i915's `card0-eDP-1/
    ///    intel_backlight`), or whose `device` link resolves to it or below it.
    /// 2. Else, for a built-in connector (DSI, eDP, LVDS, DPI, SPI), the board's only backlight: the
    ///    Pi's panels register theirs on an I2C device the kernel does not link to the connector.
    /// HDMI and DP outputs take none by 2: a monitor's brightness is its own (DDC/CI, not done).
    public static func find(card: String, connector: String, root: String = sysfsRoot) -> (Backlight?, String) {
        let classDir = root + "/class/backlight"
        let names = FileSystem.list(classDir).sorted()
        guard !names.isEmpty else { return (nil, "no backlight in \(classDir)") }
        let connectorDir = root + "/class/drm/\(card)-\(connector)"
        let connectorReal = FileSystem.realPath(connectorDir)
        for name in names {
            guard let light = open(name: name, root: root) else { continue }
            if FileSystem.exists(connectorDir + "/" + name) {
                return (light, "backlight \(name): under \(card)-\(connector)")
            }
            if let target = FileSystem.realPath(light.directory + "/device"), let connectorReal,
               target == connectorReal || target.hasPrefix(connectorReal + "/") {
                return (light, "backlight \(name): its device is \(card)-\(connector)")
            }
        }
        let builtIn = builtInConnectorPrefixes.contains { connector.hasPrefix($0) }
        let usable = names.compactMap { open(name: $0, root: root) }
        if builtIn, usable.count == 1, let only = usable.first {
            return (only, "backlight \(only.name): the only one, for built-in \(connector)")
        }
        if !builtIn { return (nil, "\(connector) is an external output; its backlight (\(names.joined(separator: ", "))) is not linked to it") }
        return (nil, "\(usable.count) backlights (\(names.joined(separator: ", "))), none linked to \(card)-\(connector)")
    }

    /// The backlight `name` when its max_brightness reads as a positive number.
    static func open(name: String, root: String) -> Backlight? {
        let dir = root + "/class/backlight/" + name
        guard let max = readNumber(dir + "/max_brightness"), max > 0 else { return nil }
        return Backlight(name: name, directory: dir, maxBrightness: max)
    }

    static func readNumber(_ path: String) -> Int? {
        guard let bytes = try? RegularFile.read(path, limit: 64) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace })
    }

    /// The value written for `level` (0...1): the level times max_brightness, at least 1 above 0
    /// (0 turns many panels' light off altogether; off is DPMS's job).
    public func value(for level: Double) -> Int {
        let l = level.isFinite ? min(1, max(0, level)) : 1
        let v = Int((l * Double(maxBrightness)).rounded())
        return l > 0 ? max(1, v) : 0
    }

    /// Writes `brightness` for `level`.
    public func set(level: Double) throws(Errno) {
        let text = Array("\(value(for: level))\n".utf8)
        // O_TRUNC as a shell's `echo N > brightness`: sysfs ignores it, a fake tree's plain file needs it.
        let fd = try FileDescriptor.open(directory + "/brightness", .writeOnly, options: [.truncate])
        defer { try? fd.close() }
        _ = try fd.write(text)
    }

    /// What `brightness` holds now (nil when unreadable).
    public func current() -> Int? { Backlight.readNumber(directory + "/brightness") }
}
