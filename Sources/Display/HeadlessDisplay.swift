import Raster

/// A display with no hardware: it keeps the last presented frame in memory and advances a simulated
/// 60 Hz vsync clock, so the daemon's frames can be rendered one by one and written as PNG.
public final class HeadlessDisplay {
    public let width: Int
    public let height: Int
    public let refreshHz: Double
    /// What is "on screen": the last presented frame.
    public private(set) var screen: PixelBuffer
    /// The simulated vblank counter and its time; each present takes exactly one refresh period.
    public private(set) var vblankSequence: UInt64 = 0
    public private(set) var presentedFrames = 0

    public init(width: Int, height: Int, refreshHz: Double = 60) {
        self.width = max(1, width)
        self.height = max(1, height)
        self.refreshHz = refreshHz > 0 && refreshHz.isFinite ? refreshHz : 60
        self.screen = PixelBuffer(width: width, height: height)
    }

    /// Time of the latest simulated vblank, in nanoseconds since the display started.
    public var vblankTimeNanos: UInt64 { UInt64((Double(vblankSequence) * 1e9 / refreshHz).rounded()) }

    /// Copies the damaged rows of `frame` to the screen and completes the "flip" at the next vblank.
    public func present(_ frame: PixelBuffer, damage: IntRect) {
        if frame.width != screen.width || frame.height != screen.height {
            screen = frame
        } else {
            let rows = damage.intersection(screen.bounds)
            screen.copy(IntRect(x0: 0, y0: rows.y0, x1: screen.width, y1: rows.y1), from: frame)
        }
        vblankSequence += 1
        presentedFrames += 1
    }

    /// Writes what is on screen as a PNG.
    public func capture(to path: String) throws(PNGError) {
        try PNG.write(screen, to: path)
    }
}
