import LinuxIO
import Raster

/// A display with no hardware: it keeps the last presented frame in memory, so the daemon's real
/// loop can run on a build server or in a test and its picture be written as PNG.
///
/// With `simulatedVsync` a present completes one refresh period later through a timerfd, exactly as
/// a KMS page flip completes with its vblank event: the daemon's loop, frame pacing and statistics
/// run unchanged. Without it (one-shot renders) a present completes at once.
public final class HeadlessDisplay: Display {
    public let width: Int
    public let height: Int
    public let refreshHz: Double
    /// What is "on screen": the last presented frame.
    public private(set) var screen: PixelBuffer
    /// The simulated vblank counter; each present takes exactly one refresh period.
    public private(set) var vblankSequence: UInt64 = 0
    public private(set) var presentedFrames = 0
    private let vsync: TimerFD?
    private var flipPending = false
    private var powered = true
    /// How the last frame was placed: another placement rewrites the whole screen.
    private var lastPlacement = CopyPlacement.identity

    public init(width: Int, height: Int, refreshHz: Double = 60, simulatedVsync: Bool = false) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.refreshHz = refreshHz > 0 && refreshHz.isFinite ? refreshHz : 60
        self.screen = PixelBuffer(width: self.width, height: self.height)
        // Without a timerfd the display still works; it just completes flips at once.
        vsync = simulatedVsync ? try? TimerFD() : nil
    }

    public var pollDescriptor: CInt? { vsync?.descriptor.rawValue }
    public var canPresent: Bool { !flipPending }

    /// Copies the damaged rectangles of `frame`, placed, to the screen and completes the "flip" at
    /// the next vblank. Single-buffered, like a panel with its own memory: nothing is owed from
    /// earlier frames but after a new placement, when the whole screen is written again.
    public func present(_ frame: Picture, damage: [IntRect], shift: ScanoutShift, placement: CopyPlacement) throws(DisplayError) -> Int {
        guard !flipPending else {
            throw DisplayError(.invalidRequest, device: "headless", operation: "present", detail: "a flip is pending")
        }
        let size = placement.placedSize(width: frame.width, height: frame.height)
        var region = DamageRegion(damage, bounds: frame.bounds)
        if size.width != screen.width || size.height != screen.height {
            // A one-off frame of another size (a diagnostic): the screen becomes its size. Never
            // the frame's own array: a second owner would make its next render copy it whole.
            screen = PixelBuffer(width: size.width, height: size.height)
            region = .full(frame.bounds)
        } else if placement != lastPlacement {
            region = .full(frame.bounds)
        }
        lastPlacement = placement
        let pitch = screen.stride * 4
        let bytes = screen.pixels.withUnsafeMutableBytes { frame.copy(region, placement: placement, to: $0.baseAddress!, pitch: pitch) }
        vblankSequence += 1
        presentedFrames += 1
        if let vsync {
            flipPending = true
            do { try vsync.arm(initial: .nanoseconds(Int64(1e9 / refreshHz))) } catch {
                flipPending = false
                throw DisplayError(.failed, device: "headless", operation: "timerfd_settime", errno: error)
            }
        }
        return bytes
    }

    public func handleReadable() -> [DisplayEvent] {
        guard let vsync, ((try? vsync.readExpirations()) ?? 0) > 0, flipPending else { return [] }
        flipPending = false
        return [.flipCompleted(vblankNanos: MonotonicClock.now(), sequence: vblankSequence)]
    }

    /// Headless "DPMS": the screen goes black, as a panel that is switched off looks.
    public func setPowered(_ on: Bool) -> Bool {
        powered = on
        if !on { screen = PixelBuffer(width: width, height: height, fill: 0xFF00_0000) }
        return true
    }

    public func capturedPicture() -> PixelBuffer? { screen }

    /// Writes what is on screen as a PNG (replaced whole: a reader never sees half of one).
    public func capture(to path: String) throws(DisplayError) {
        do { try PNG.write(screen, to: path) } catch {
            throw DisplayError(.failed, device: "headless", operation: "capture", detail: "\(path): \(error)")
        }
    }
}
