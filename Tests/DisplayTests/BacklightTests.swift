// The sysfs backlight on a fake /sys tree: which backlight belongs to which output (the kernel's
// links), the value written for a level, and the root override the daemon's tests use.
@testable import Display
import Foundation
import Testing

/// A fake sysfs: devices/, class/drm/ and class/backlight/ with the links the kernel makes.
private final class FakeSysfs {
    let root: String

    init() {
        var template = Array("/tmp/tb-sysfs-XXXXXX".utf8CString)
        root = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!)
        mkdir("class/drm")
        mkdir("class/backlight")
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func mkdir(_ path: String) { try! FileManager.default.createDirectory(atPath: root + "/" + path, withIntermediateDirectories: true) }
    func write(_ path: String, _ text: String) { try! text.write(toFile: root + "/" + path, atomically: false, encoding: .utf8) }
    func link(_ path: String, to target: String) { try! FileManager.default.createSymbolicLink(atPath: root + "/" + path, withDestinationPath: target) }

    /// A connector device `card0-NAME` under the GPU, linked from class/drm.
    func connector(_ name: String) {
        mkdir("devices/platform/gpu/drm/card0/card0-\(name)")
        link("class/drm/card0-\(name)", to: "../../devices/platform/gpu/drm/card0/card0-\(name)")
    }

    /// A backlight whose device is `device` (a path under devices/), linked from class/backlight.
    func backlight(_ name: String, device: String, max: Int = 255, under: String? = nil) {
        let dir = under ?? "devices/\(device)/backlight/\(name)"
        mkdir(dir)
        write(dir + "/max_brightness", "\(max)\n")
        write(dir + "/brightness", "\(max)\n")
        let depth = dir.split(separator: "/").count
        link(dir + "/device", to: String(repeating: "../", count: depth) + "devices/" + device)
        link("class/backlight/\(name)", to: "../../" + dir)
    }

    func read(_ path: String) -> String { (try? String(contentsOfFile: root + "/" + path, encoding: .utf8)) ?? "" }
}

@Suite("Backlight: sysfs, matched to the output")
struct BacklightTests {
    @Test("a backlight whose device is the connector is that output's")
    func linkedByDevice() {
        let sys = FakeSysfs()
        sys.connector("DSI-1")
        sys.connector("HDMI-A-1")
        sys.backlight("panel-bl", device: "platform/gpu/drm/card0/card0-DSI-1")
        sys.backlight("other", device: "platform/i2c/11-0045")
        let (light, why) = Backlight.find(card: "card0", connector: "DSI-1", root: sys.root)
        #expect(light?.name == "panel-bl" && light?.maxBrightness == 255)
        #expect(why == "backlight panel-bl: its device is card0-DSI-1")
        #expect(Backlight.find(card: "card0", connector: "HDMI-A-1", root: sys.root).0 == nil)
    }

    @Test("a backlight the kernel hangs under the connector's device (i915's intel_backlight) is that output's")
    func underConnector() {
        let sys = FakeSysfs()
        sys.connector("eDP-1")
        sys.backlight("intel_backlight", device: "platform/gpu/drm/card0/card0-eDP-1", max: 96000,
                      under: "devices/platform/gpu/drm/card0/card0-eDP-1/intel_backlight")
        sys.backlight("acpi_video0", device: "platform/acpi")
        let (light, why) = Backlight.find(card: "card0", connector: "eDP-1", root: sys.root)
        #expect(light?.name == "intel_backlight" && light?.maxBrightness == 96000)
        #expect(why.hasPrefix("backlight intel_backlight: "))
    }

    @Test("a built-in panel takes the board's only backlight (the Pi's, on I2C); an external output never does")
    func onlyOne() {
        let sys = FakeSysfs()
        sys.connector("DSI-1")
        sys.connector("HDMI-A-1")
        sys.backlight("rpi_backlight", device: "platform/i2c/10-0045")
        let (light, why) = Backlight.find(card: "card0", connector: "DSI-1", root: sys.root)
        #expect(light?.name == "rpi_backlight" && why == "backlight rpi_backlight: the only one, for built-in DSI-1")
        let (none, whyNot) = Backlight.find(card: "card0", connector: "HDMI-A-1", root: sys.root)
        #expect(none == nil && whyNot.contains("external output"))
        // Two unlinked backlights: no guess.
        sys.backlight("second", device: "platform/i2c/10-0046")
        #expect(Backlight.find(card: "card0", connector: "DSI-1", root: sys.root).0 == nil)
    }

    @Test("no backlight, or one with a broken max_brightness: none")
    func none() {
        let sys = FakeSysfs()
        sys.connector("DSI-1")
        #expect(Backlight.find(card: "card0", connector: "DSI-1", root: sys.root).1.hasPrefix("no backlight in "))
        sys.backlight("broken", device: "platform/gpu/drm/card0/card0-DSI-1", max: 0)
        #expect(Backlight.find(card: "card0", connector: "DSI-1", root: sys.root).0 == nil)
    }

    @Test("the level is written as level × max_brightness, at least 1 above 0")
    func writesLevel() throws {
        let sys = FakeSysfs()
        sys.connector("DSI-1")
        sys.backlight("panel-bl", device: "platform/gpu/drm/card0/card0-DSI-1")
        let light = try #require(Backlight.find(card: "card0", connector: "DSI-1", root: sys.root).0)
        try light.set(level: 0.2)
        #expect(sys.read("class/backlight/panel-bl/brightness") == "51\n" && light.current() == 51)
        try light.set(level: 0.001)
        #expect(light.current() == 1)
        try light.set(level: 1)
        #expect(light.current() == 255)
        #expect(light.value(for: 0) == 0 && light.value(for: .nan) == 255 && light.value(for: 7) == 255)
    }

    @Test("the sysfs root comes from TICKERBOARD_SYSFS_ROOT, else /sys")
    func rootOverride() {
        unsetenv("TICKERBOARD_SYSFS_ROOT")
        #expect(Backlight.sysfsRoot == "/sys")
        setenv("TICKERBOARD_SYSFS_ROOT", "/tmp/fake-sys", 1)
        #expect(Backlight.sysfsRoot == "/tmp/fake-sys")
        unsetenv("TICKERBOARD_SYSFS_ROOT")
    }
}
