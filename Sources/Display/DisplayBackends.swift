import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

/// Opens the right backend for `tickerboard run` and `display-check`.
public enum DisplayBackends {
    public enum Choice: String, Sendable, CaseIterable {
        /// KMS if a card has a connected output, else fbdev, else (with a card) KMS waiting for one.
        case auto
        case kms
        case fbdev
    }

    /// The DRM cards and framebuffer devices present on this machine (empty: no display at all).
    public static func devicePaths() -> [String] {
        DRMCardFinder.cardPaths() + OutputsReport.framebufferPaths()
    }

    /// Opens a display. `auto` tries KMS first, then `/dev/fb0`; when there are DRM cards but
    /// nothing is connected it returns a KMS display that waits for a hotplug (`canPresent` false
    /// until `.connectorReturned`). Throws `.noDisplay` when there is no device at all.
    public static func open(
        _ choice: Choice = .auto, device: String? = nil, connector: String? = nil, mode: ModeRequest? = nil,
        shiftMargin: Int = 0, log: @escaping (String) -> Void = { _ in }
    ) throws(DisplayError) -> any Display {
        switch choice {
        case .kms:
            return try KMSDisplay(options: .init(devicePath: device, connectorName: connector, mode: mode, waitForOutput: device != nil,
                                                 shiftMargin: shiftMargin), log: log)
        case .fbdev:
            return try FBDevDisplay(path: device ?? "/dev/fb0")
        case .auto:
            do {
                return try KMSDisplay(options: .init(devicePath: device, connectorName: connector, mode: mode, shiftMargin: shiftMargin), log: log)
            } catch where error.kind == .noDisplay || error.kind == .unsupported {
                if device == nil, access("/dev/fb0", F_OK) == 0, let fb = try? FBDevDisplay(path: "/dev/fb0") {
                    log("no usable KMS output (\(error)); using /dev/fb0")
                    return fb
                }
                if let first = DRMCardFinder.cardPaths().first, device == nil {
                    log("nothing connected to \(first); waiting for a display to be plugged in")
                    return try KMSDisplay(options: .init(devicePath: first, connectorName: connector, mode: mode, waitForOutput: true,
                                                                     shiftMargin: shiftMargin), log: log)
                }
                throw error
            }
        }
    }
}
