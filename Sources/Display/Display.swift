// Display: scanout backends behind one small protocol — KMS (dumb buffers, page flips, vblank
// timestamps, hotplug, DRM master), fbdev, and headless (PNG, simulated vsync). It takes finished
// pixels (one buffer, or a few that tile the frame: a `Picture`) and damage rectangles; it knows
// nothing of charts.

import DisplayModel
import LinuxIO
import Raster

/// Something frames can be shown on.
///
/// The daemon's loop watches ``pollDescriptor`` (when non-nil) with epoll and calls
/// ``handleReadable()`` when it is readable; it calls ``present(_:damage:)`` only while
/// ``canPresent`` is true, so at most one flip is in flight and nothing is drawn while the screen
/// is gone or another process holds the display.
public protocol Display: AnyObject {
    /// The mode's size in pixels (changes only after `.connectorReturned`).
    var width: Int { get }
    var height: Int { get }
    /// The mode's refresh rate (vertical refresh in Hz).
    var refreshHz: Double { get }
    /// A descriptor for the caller's epoll set, or nil when the display never has events.
    var pollDescriptor: CInt? { get }
    /// True when a frame may be presented now: no flip pending, output connected, master held.
    var canPresent: Bool { get }
    /// Shows `frame`: copies the rectangles `damage` (plus whatever the back buffer is missing from
    /// earlier frames) into the back buffer, placed by `placement` (a turn or a burn-in step the
    /// scanout cannot do, done in that one copy), then flips, scanning out moved by `shift` when
    /// ``scanoutShiftLimit`` allows it. `frame` placed must be `width`×`height` (turned by the
    /// plane when ``scanoutRotation`` is not 0); its parts are read where they are, during the
    /// call only. Returns the bytes written to scanout memory.
    @discardableResult
    func present(_ frame: Picture, damage: [IntRect], shift: ScanoutShift, placement: CopyPlacement) throws(DisplayError) -> Int
    /// How far (pixels, either axis) the display can move the picture on screen without copying it
    /// (burn-in care); 0 when it cannot, and the caller then moves the pixels itself.
    var scanoutShiftLimit: Int { get }
    /// How a burn-in shift is done, for the log and the status file: `fb-offset` (the scanout
    /// starts elsewhere in a larger buffer) or `copy` (the caller moves the pixels).
    var shiftMethod: String { get }
    /// Clockwise quarter turns the display can give the picture itself when it scans out (a
    /// plane's `rotation`); always contains 0.
    var scanoutQuarterTurns: Set<Int> { get }
    /// The turn the display applies now (0: none; frames are the mode's size).
    var scanoutRotation: Int { get }
    /// Lets the display turn the picture by `quarterTurns` clockwise from now on: ``present``
    /// then takes frames unturned (width and height swapped for odd turns) and burn-in shifts are
    /// in the picture's axes. False when it cannot: nothing changes, the caller turns the pixels.
    func rotateScanout(quarterTurns: Int) -> Bool
    /// How frames reach the screen, for the log and the status file: `atomic`, `legacy` or
    /// `dirtyfb` (KMS), `pan` or `copy` (fbdev), `memory` (headless).
    var presentMethod: String { get }
    /// What paces the flips: `vblank`, `timer`, `vsync-ioctl+timer`.
    var pacingMethod: String { get }
    /// Drains the display's pending events (flip completions, hotplug, master changes).
    func handleReadable() -> [DisplayEvent]
    /// Gives the screen back (restores the console's CRTC or fbdev state). Idempotent.
    func shutdown()
    /// Clockwise quarter turns the picture needs so it stands upright on a panel mounted rotated
    /// (the connector's "panel orientation" property); 0 when unknown.
    var panelQuarterTurns: Int { get }
    /// Turns the output's power off (DPMS) or back on; false when the driver cannot, and the caller
    /// then shows a black frame instead. After switching on, present a full frame.
    func setPowered(_ on: Bool) -> Bool
    /// Lets go of the screen for another VT (stop presenting; do not try to take it back) ...
    func suspend()
    /// ... and takes it back when our VT returns (`.masterRegained` follows).
    func resume()
    /// True for a framebuffer taken only because no KMS card could show a picture when it was
    /// opened: when a KMS output appears (a display driver that loads late), the caller moves to it.
    var yieldsToKMS: Bool { get }
    /// The display competes with the console and other sessions for the screen: the caller takes
    /// part in VT switching (VT_PROCESS) while it runs.
    var needsVirtualTerminal: Bool { get }
    /// Writes the picture on screen as a PNG at `path`; `.unsupported` where the display cannot
    /// read back what it shows.
    func capture(to path: String) throws(DisplayError)
    /// What is on screen, where the display can read it back (nil: the shell keeps what it sent).
    func capturedPicture() -> PixelBuffer?
    /// Who holds the screen while another program is DRM master ("1234 (labwc)"; "" when that
    /// cannot be seen); nil while the screen is ours.
    var screenHolder: String? { get }
    /// The DRM card number and connector id of the output in use (for the CEC adapter on its
    /// port); nil for displays that are no DRM connector.
    var drmConnector: CECAdapterChoice.DRMConnectorID? { get }
    /// What the display says of the connector it drives; nil for displays that drive none.
    var connectorReport: ConnectorReport? { get }
    /// The card the outputs after the first come from (`request` says which names and margins);
    /// nil where there are no others (fbdev).
    func card(for request: CardRequest) -> (any DisplayCard)?
    /// True when a read of a descriptor shared with other outputs left a completion of this
    /// display's flip unreported (nothing will wake the loop for it: ask again).
    var hasRoutedFlips: Bool { get }
}

extension Display {
    /// The whole-rectangle form, unshifted (diagnostics, one-off frames).
    @discardableResult
    public func present(_ frame: PixelBuffer, damage: IntRect) throws(DisplayError) -> Int {
        try present(Picture(frame), damage: [damage], shift: .zero, placement: .identity)
    }
    public var scanoutShiftLimit: Int { 0 }
    public var scanoutQuarterTurns: Set<Int> { [0] }
    public var scanoutRotation: Int { 0 }
    public func rotateScanout(quarterTurns: Int) -> Bool { quarterTurns % 4 == 0 }
    public var presentMethod: String { "memory" }
    public var needsVirtualTerminal: Bool { false }
    public func capturedPicture() -> PixelBuffer? { nil }
    public var screenHolder: String? { nil }
    public var drmConnector: CECAdapterChoice.DRMConnectorID? { nil }
    public var connectorReport: ConnectorReport? { nil }
    public func card(for request: CardRequest) -> (any DisplayCard)? { nil }
    public var hasRoutedFlips: Bool { false }
    public func capture(to path: String) throws(DisplayError) {
        throw DisplayError(.unsupported, device: "display", operation: "capture", detail: "this display cannot read back its picture")
    }
    public var pacingMethod: String { "timer" }
    public var shiftMethod: String { "copy" }
    public var pollDescriptor: CInt? { nil }
    public var canPresent: Bool { true }
    public var yieldsToKMS: Bool { false }
    public func handleReadable() -> [DisplayEvent] { [] }
    public func shutdown() {}
    public var panelQuarterTurns: Int { 0 }
    public func setPowered(_ on: Bool) -> Bool { false }
    public func suspend() {}
    public func resume() {}
}

/// A burn-in offset the display applies when it scans out: the picture appears moved by
/// (`dx`, `dy`) pixels, and the strips it uncovers show `fill` (premultiplied ARGB).
public struct ScanoutShift: Equatable, Hashable, Sendable {
    public var dx: Int
    public var dy: Int
    public var fill: UInt32
    public init(dx: Int, dy: Int, fill: UInt32 = 0xFF00_0000) {
        self.dx = dx
        self.dy = dy
        self.fill = fill
    }
    public static let zero = ScanoutShift(dx: 0, dy: 0)
    public var isZero: Bool { dx == 0 && dy == 0 }
    public func sameOffset(as other: ScanoutShift) -> Bool { dx == other.dx && dy == other.dy }
}

/// Something that happened to a display.
public enum DisplayEvent: Equatable, Sendable {
    /// The last presented frame is on screen since `vblankNanos` (``MonotonicClock`` time).
    /// `sequence` counts vblanks; a jump of more than 1 since the previous flip means missed
    /// vblanks. For drivers without vblank it counts pacing-timer periods instead.
    case flipCompleted(vblankNanos: UInt64, sequence: UInt64)
    /// The output was unplugged: stop rendering until `.connectorReturned`.
    case connectorLost
    /// The output is back (possibly with another mode: re-read width/height) and shows nothing
    /// yet: present a full frame.
    case connectorReturned
    /// Another process took the display (DRM master lost, VT switched away): stop presenting.
    case masterLost
    /// The display is ours again; present a full frame.
    case masterRegained
    /// Another program was DRM master when we opened the card and has let go, but our descriptor
    /// may not take master (it never held it): close the display and open it again.
    case masterFree
}

/// Why a display could not be opened or used: which device, which operation, and the errno.
public struct DisplayError: Error, Equatable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// No usable device or no connected output.
        case noDisplay
        /// The device exists but we may not drive it (permissions, another DRM master).
        case accessDenied
        /// The driver lacks something we need (dumb buffers, a matching mode, 32 bpp).
        case unsupported
        /// A call failed at run time.
        case failed
        /// The caller asked for something invalid (a frame of the wrong size, a bad mode string).
        case invalidRequest
    }

    public var kind: Kind
    /// The device path, e.g. `/dev/dri/card0`.
    public var device: String
    /// The call or step that failed, e.g. `drmModeSetCrtc`.
    public var operation: String
    public var errno: Errno?
    /// Extra words for a human, e.g. the mode that was asked for.
    public var detail: String?

    public init(_ kind: Kind, device: String, operation: String, errno: Errno? = nil, detail: String? = nil) {
        self.kind = kind
        self.device = device
        self.operation = operation
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        var text = "\(device): \(operation)"
        if let errno { text += " failed: \(errno)" }
        if let detail { text += errno == nil ? ": \(detail)" : " (\(detail))" }
        return text
    }
}
