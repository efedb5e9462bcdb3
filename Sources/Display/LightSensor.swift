// An ambient-light sensor through the kernel's IIO interface (`[power] light-sensor`): BH1750,
// TSL2561/2591, VEML7700, APDS-9960 and the like register an iio:deviceN whose illuminance is
// `in_illuminance_input` (lux, processed by the driver) or `in_illuminance_raw` times
// `in_illuminance_scale` (plus `_offset`), with or without a channel number (`in_illuminance0_…`):
// Documentation/ABI/testing/sysfs-bus-iio. The sysfs root moves with TICKERBOARD_SYSFS_ROOT (tests).
import LinuxIO

public struct LightSensor: Sendable, Equatable {
    /// The device directory (`/sys/bus/iio/devices/iio:device0`).
    public let directory: String
    /// The channel's file prefix (`in_illuminance`, `in_illuminance0`).
    public let channel: String
    /// `input`: lux as the driver gives it; else raw × scale (+ offset).
    public let processed: Bool

    /// Lux now, nil when the sensor cannot be read (unplugged, a bus error, not a number).
    public func lux() -> Double? {
        if processed { return Self.readDouble(directory + "/" + channel + "_input") }
        guard let raw = Self.readDouble(directory + "/" + channel + "_raw") else { return nil }
        // The scale and offset may be the channel's own or shared by the type (in_illuminance_scale).
        let scale = Self.readDouble(directory + "/" + channel + "_scale") ?? Self.readDouble(directory + "/in_illuminance_scale") ?? 1
        let offset = Self.readDouble(directory + "/" + channel + "_offset") ?? Self.readDouble(directory + "/in_illuminance_offset") ?? 0
        let lux = (raw + offset) * scale
        return lux.isFinite && lux >= 0 ? lux : nil
    }

    /// The sensor at `path` (an iio:deviceN directory), or with `path` nil the first device under
    /// bus/iio/devices that has an illuminance channel; with why, or why none was found.
    public static func find(path: String?, root: String = Backlight.sysfsRoot) -> (LightSensor?, String) {
        let candidates: [String]
        if let path {
            candidates = [path]
        } else {
            let dir = root + "/bus/iio/devices"
            candidates = FileSystem.list(dir).filter { $0.hasPrefix("iio:device") }
                .sorted { (Int($0.dropFirst(10)) ?? 0) < (Int($1.dropFirst(10)) ?? 0) }.map { dir + "/" + $0 }
            if candidates.isEmpty { return (nil, "no IIO device in \(dir)") }
        }
        for dir in candidates {
            for channel in ["in_illuminance", "in_illuminance0"] {
                for processed in [true, false] where FileSystem.exists(dir + "/" + channel + (processed ? "_input" : "_raw")) {
                    let sensor = LightSensor(directory: dir, channel: channel, processed: processed)
                    let name = readText(dir + "/name") ?? "?"
                    return (sensor, "\(dir) (\(name)): \(channel)\(processed ? "_input" : "_raw × scale")")
                }
            }
        }
        return (nil, path.map { "\($0) has no in_illuminance_input or in_illuminance_raw" }
            ?? "no IIO device with an illuminance channel under \(root)/bus/iio/devices")
    }

    static func readText(_ path: String) -> String? {
        guard let bytes = try? RegularFile.read(path, limit: 64) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
        return text.isEmpty ? nil : text
    }

    static func readDouble(_ path: String) -> Double? {
        guard let text = readText(path), let v = Double(text), v.isFinite else { return nil }
        return v
    }
}
