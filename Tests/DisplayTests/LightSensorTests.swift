// The IIO light sensor on a fake /sys tree, laid out as Documentation/ABI/testing/sysfs-bus-iio
// says and as the drivers name their files (bh1750: in_illuminance_raw and in_illuminance_scale;
// tsl2591: in_illuminance0_input; veml6030: in_illuminance_raw, in_illuminance_scale).
@testable import Display
import Foundation
import Testing

@Suite("Light sensor (IIO)")
struct LightSensorTests {
    static func tree() -> String {
        var template = Array("/tmp/tb-iio-XXXXXX".utf8CString)
        return String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
    }
    static func write(_ root: String, _ path: String, _ text: String) {
        let full = root + "/" + path
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try! text.write(toFile: full, atomically: false, encoding: .utf8)
    }

    @Test("raw × scale (bh1750), a processed channel (tsl2591), the first device with illuminance, none")
    func sensors() throws {
        let root = Self.tree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // iio:device0 is an accelerometer: passed over.
        Self.write(root, "bus/iio/devices/iio:device0/in_accel_x_raw", "12\n")
        Self.write(root, "bus/iio/devices/iio:device2/name", "bh1750\n")
        Self.write(root, "bus/iio/devices/iio:device2/in_illuminance_raw", "1200\n")
        Self.write(root, "bus/iio/devices/iio:device2/in_illuminance_scale", "0.833333\n")
        Self.write(root, "bus/iio/devices/iio:device10/name", "tsl2591\n")
        Self.write(root, "bus/iio/devices/iio:device10/in_illuminance0_input", "431.5\n")
        let (auto, why) = LightSensor.find(path: nil, root: root)
        let s = try #require(auto, "\(why)")
        #expect(s.directory.hasSuffix("iio:device2") && !s.processed)
        #expect(why.contains("bh1750"))
        // 1200 × 0.833333 = 999.9996
        #expect(abs(s.lux()! - 999.9996) < 1e-6)
        let (t, _) = LightSensor.find(path: root + "/bus/iio/devices/iio:device10", root: root)
        #expect(t?.processed == true && t?.lux() == 431.5)
        // Gone (unbound, unplugged): unreadable, not 0.
        try FileManager.default.removeItem(atPath: root + "/bus/iio/devices/iio:device2/in_illuminance_raw")
        #expect(s.lux() == nil)
        let (none, noneWhy) = LightSensor.find(path: root + "/bus/iio/devices/iio:device0", root: root)
        #expect(none == nil && noneWhy.contains("no in_illuminance_input or in_illuminance_raw"))
        let (empty, emptyWhy) = LightSensor.find(path: nil, root: root + "/nothing")
        #expect(empty == nil && emptyWhy.hasPrefix("no IIO device"))
    }
}
