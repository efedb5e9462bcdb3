import DisplayModel
import LinuxIO

#if canImport(Glibc)
import Glibc
#endif

extension DisplayBackends {
    /// The DRM cards and framebuffer devices present on this machine (empty: no display at all).
    public static func devicePaths() -> [String] {
        DRMCardFinder.cardPaths() + OutputsReport.framebufferPaths()
    }

    /// Opens a display. `auto` takes the card `DRMCardChoice` picks: a card with a connected
    /// output, else a display card with nothing connected yet, which it waits on (`canPresent`
    /// false until `.connectorReturned`: a monitor off at boot must not leave the daemon on the
    /// framebuffer for good); only when no card can show a picture at all does it take `/dev/fb0`,
    /// and that display says ``Display/yieldsToKMS``. A configured `device` is a framebuffer when it
    /// is one (`/dev/fb*`), else a DRM card waited on like the chosen one. Throws `.noDisplay` when
    /// there is no device at all.
    public static func open(
        _ choice: Choice = .auto, device: String? = nil, connector: String? = nil, mode: ModeRequest? = nil,
        maxSize: ModeRequest? = ModePolicy.defaultMaxSize, shiftMargin: Int = 0, log: @escaping (String) -> Void = { _ in }
    ) throws(DisplayError) -> any Display {
        func kms(_ path: String?, wait: Bool) throws(DisplayError) -> any Display {
            try KMSDisplay(options: .init(devicePath: path, connectorName: connector, mode: mode, waitForOutput: wait,
                                          shiftMargin: shiftMargin, maxSize: maxSize), log: log)
        }
        switch choice {
        case .headless:
            return HeadlessDisplay(width: mode?.width ?? 1920, height: mode?.height ?? 1080, refreshHz: mode?.refreshHz ?? 60,
                                   simulatedVsync: true)
        case .kms:
            return try kms(device, wait: device != nil)
        case .fbdev:
            return try FBDevDisplay(path: device ?? "/dev/fb0")
        case .auto:
            if let device {
                return isFramebuffer(device) ? try FBDevDisplay(path: device) : try kms(device, wait: true)
            }
            let pick = DRMCardFinder.choose(connector: connector)
            switch pick {
            case .use(let path, let reason):
                do {
                    let d = try kms(path, wait: false)
                    log("using \(reason)")
                    return d
                } catch where error.kind == .noDisplay {
                    // Unplugged between the survey and the modeset: wait on it like any other.
                    log("\(path): \(error); waiting for a display to be plugged in")
                    return try kms(path, wait: true)
                } catch where error.kind == .unsupported {
                    guard let fb = framebuffer(yieldsToKMS: false) else { throw error }
                    log("\(path) cannot be driven (\(error)); using /dev/fb0")
                    return fb
                }
            case .wait(let path, let reason):
                log("\(reason); waiting on \(path) for a display to be plugged in")
                return try kms(path, wait: true)
            case .none(let reason):
                guard let fb = framebuffer(yieldsToKMS: true) else {
                    throw DisplayError(.noDisplay, device: "/dev/dri", operation: "find a display", detail: reason)
                }
                log("no KMS output (\(reason)); using /dev/fb0 until a KMS output appears")
                return fb
            }
        }
    }

    /// `/dev/fb0` when it opens as a framebuffer.
    private static func framebuffer(yieldsToKMS: Bool) -> FBDevDisplay? {
        guard FileSystem.exists("/dev/fb0"), let fb = try? FBDevDisplay(path: "/dev/fb0") else { return nil }
        fb.yieldsToKMS = yieldsToKMS
        return fb
    }

    /// A framebuffer device path (`/dev/fb0`, `/dev/graphics/fb1`), as opposed to a DRM node.
    static func isFramebuffer(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasPrefix("fb") && Int(name.dropFirst(2)) != nil
    }

    /// What `auto` would take now and why (`tickerboard outputs`, the fbdev-to-KMS move).
    public static func autoChoice(connector: String? = nil) -> DRMCardChoice {
        DRMCardFinder.choose(connector: connector)
    }
}
