import CDRM
import LinuxIO
import Raster

// The ways a KMS frame reaches the CRTC, as separate implementations of one small protocol (the
// shape of wlroots' atomic/legacy DRM interfaces): atomic commits, legacy SetCrtc + PageFlip, and
// SetCrtc + DIRTYFB for drivers that cannot flip. Which one a device gets is a pure decision from
// what it offers, made once when the output is adopted; a failure at run time that proves the
// choice wrong moves to the next path (also a pure decision) and says so in the log. The ioctls
// themselves stay in DRMDevice.swift.

/// How frames reach the CRTC; the raw value is what the log, display-check and the status file say.
public enum KMSCommitPath: String, Sendable, CaseIterable {
    /// Atomic commits: the plane's framebuffer (and FB_DAMAGE_CLIPS, rotation) in one request.
    case atomic
    /// drmModeSetCrtc to light the CRTC, drmModePageFlip per frame.
    case legacy
    /// drmModeSetCrtc per moved framebuffer, drmModeDirtyFB for what changed; one buffer, no flip
    /// events (shadow-buffered drivers without page flips, or too little video memory for two).
    case dirtyFramebuffer = "dirtyfb"
}

/// What a device offers, as far as choosing a commit path goes.
struct KMSDeviceCapabilities: Equatable, Sendable {
    /// DRM_CLIENT_CAP_ATOMIC was accepted on this descriptor.
    var atomicClientCap: Bool
    /// A primary plane with every property an atomic commit sets was found for the CRTC.
    var atomicPipe: Bool
    /// The user asked for the legacy API (`display-check --legacy`).
    var legacyRequested: Bool
}

/// The pure decisions about commit paths.
enum KMSCommitChoice {
    /// The path a device starts with, and why (for the log).
    static func initial(_ caps: KMSDeviceCapabilities) -> (path: KMSCommitPath, reason: String) {
        if caps.legacyRequested { return (.legacy, "legacy API requested") }
        guard caps.atomicClientCap else { return (.legacy, "driver refuses DRM_CLIENT_CAP_ATOMIC") }
        guard caps.atomicPipe else { return (.legacy, "no primary plane with the atomic properties") }
        return (.atomic, "driver takes atomic commits")
    }

    /// A flip that cannot be done on this device with two buffers.
    private static func flipFailure(_ error: Errno) -> (path: KMSCommitPath, reason: String)? {
        switch error {
        case .noMemory, .noSpace:
            // bochs at 1080p: its 16 MB hold the console's buffer and one of ours, not two.
            return (.dirtyFramebuffer, "no video memory for a second buffer (\(error)); drawing single-buffered")
        case .notSupported, .notImplemented:
            return (.dirtyFramebuffer, "page flip unsupported (\(error))")
        default:
            return nil
        }
    }

    /// What a step that failed with `error` on `path` means: nil when it is no reason to change
    /// path (lost master: the caller waits; anything else: a real failure), else the path to use
    /// from now on. `flip` false: the modeset failed.
    static func fallback(from path: KMSCommitPath, flip: Bool, error: Errno) -> (path: KMSCommitPath, reason: String)? {
        if error == .permissionDenied || error == .notPermitted { return nil }
        switch path {
        case .atomic:
            if !flip { return (.legacy, "atomic modeset failed (\(error))") }
            // EINVAL: this commit is refused, a legacy flip may not be; the rest is about flipping.
            if error == .invalidArgument { return (.legacy, "atomic flip rejected (\(error))") }
            return flipFailure(error)
        case .legacy:
            guard flip, error != .invalidArgument else {
                return flip ? (.dirtyFramebuffer, "page flip unsupported (\(error))") : nil
            }
            return flipFailure(error)
        case .dirtyFramebuffer:
            return nil
        }
    }
}

/// One commit path for one connector → CRTC → primary plane.
protocol KMSCommitter: AnyObject {
    var path: KMSCommitPath { get }
    /// Whether frames carry their damage rectangles to the driver (FB_DAMAGE_CLIPS, DIRTYFB).
    var sendsDamage: Bool { get }
    /// Clockwise quarter turns the plane can apply when scanning out (the `rotation` property).
    var scanoutQuarterTurns: Set<Int> { get }
    /// Lights the CRTC in its mode showing `framebuffer` (blocking); `layout` says how the
    /// framebuffer maps onto the screen (its size and the plane's turn).
    func modeset(framebuffer: UInt32, layout: PlaneLayout) throws(Errno)
    /// Asks the driver whether `modeset` with this layout would be accepted, changing nothing.
    func test(framebuffer: UInt32, layout: PlaneLayout) -> Bool
    /// Shows `framebuffer`, with `damage` (framebuffer coordinates; nil: all of it) what differs
    /// from the picture on screen. True: a flip event with `userData` reports when it is shown;
    /// false: it is on screen now.
    func show(framebuffer: UInt32, damage: DamageRegion?, userData: UnsafeMutableRawPointer?) throws(Errno) -> Bool
}

/// How a framebuffer maps onto the mode: its size, and the clockwise quarter turns the plane
/// applies (the framebuffer of a picture turned by 90° or 270° has the mode's size transposed).
struct PlaneLayout: Equatable, Sendable {
    var modeWidth: Int, modeHeight: Int
    var quarterTurns: Int

    init(modeWidth: Int, modeHeight: Int, quarterTurns: Int = 0) {
        self.modeWidth = modeWidth
        self.modeHeight = modeHeight
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
    }

    /// The framebuffer's (the picture's) size.
    var sourceWidth: Int { quarterTurns % 2 == 0 ? modeWidth : modeHeight }
    var sourceHeight: Int { quarterTurns % 2 == 0 ? modeHeight : modeWidth }

    /// The plane's `rotation` value. DRM's `rotate-N` turns the image N degrees counter-clockwise
    /// (uapi drm_mode.h), so a clockwise quarter turn is `rotate-270`.
    var rotationBits: UInt64 { PlaneRotation.bit(forClockwiseQuarterTurns: quarterTurns) }
}

/// The plane `rotation` property's bits and what they allow.
enum PlaneRotation {
    static let rotate0: UInt64 = 1 << 0
    static let rotate90: UInt64 = 1 << 1
    static let rotate180: UInt64 = 1 << 2
    static let rotate270: UInt64 = 1 << 3

    /// The bit for `turns` clockwise quarter turns (counter-clockwise in DRM's terms).
    static func bit(forClockwiseQuarterTurns turns: Int) -> UInt64 {
        switch ((turns % 4) + 4) % 4 {
        case 1: return rotate270
        case 2: return rotate180
        case 3: return rotate90
        default: return rotate0
        }
    }

    /// The clockwise quarter turns a plane whose property offers `supported` bits can apply
    /// (0 always: no property means no turn, which every plane does).
    static func clockwiseTurns(supported: UInt64) -> Set<Int> {
        Set((0..<4).filter { $0 == 0 || supported & bit(forClockwiseQuarterTurns: $0) != 0 })
    }
}

/// Atomic commits on one pipe.
final class AtomicCommitter: KMSCommitter {
    let path = KMSCommitPath.atomic
    private let card: DRMCard
    private let pipe: AtomicPipe
    private let mode: DRMMode
    var sendsDamage: Bool { pipe.planeDamageClips != nil }
    var scanoutQuarterTurns: Set<Int> {
        pipe.planeRotation == nil ? [0] : PlaneRotation.clockwiseTurns(supported: pipe.supportedRotations)
    }

    init(card: DRMCard, pipe: AtomicPipe, mode: DRMMode) {
        self.card = card
        self.pipe = pipe
        self.mode = mode
    }

    func modeset(framebuffer: UInt32, layout: PlaneLayout) throws(Errno) {
        try card.atomicModeset(pipe, mode: mode, framebuffer: framebuffer, layout: layout, testOnly: false)
    }

    func test(framebuffer: UInt32, layout: PlaneLayout) -> Bool {
        (try? card.atomicModeset(pipe, mode: mode, framebuffer: framebuffer, layout: layout, testOnly: true)) != nil
    }

    func show(framebuffer: UInt32, damage: DamageRegion?, userData: UnsafeMutableRawPointer?) throws(Errno) -> Bool {
        try card.atomicFlip(pipe, framebuffer: framebuffer, damage: damage, userData: userData)
        return true
    }
}

/// The CRTC both non-atomic paths set with SetCrtc: no plane properties, so no turned scanout.
struct LegacyCRTC {
    let card: DRMCard
    let crtc: UInt32, connector: UInt32
    let mode: DRMMode

    func set(framebuffer: UInt32, quarterTurns: Int = 0) throws(Errno) {
        guard quarterTurns == 0 else { throw .notSupported }
        try card.setCrtc(crtc, framebuffer: framebuffer, connector: connector, mode: mode)
    }
}

/// SetCrtc + PageFlip.
final class LegacyCommitter: KMSCommitter {
    let path = KMSCommitPath.legacy
    let sendsDamage = false
    let scanoutQuarterTurns: Set<Int> = [0]
    private let target: LegacyCRTC

    init(card: DRMCard, crtc: UInt32, connector: UInt32, mode: DRMMode) {
        target = LegacyCRTC(card: card, crtc: crtc, connector: connector, mode: mode)
    }

    func modeset(framebuffer: UInt32, layout: PlaneLayout) throws(Errno) {
        try target.set(framebuffer: framebuffer, quarterTurns: layout.quarterTurns)
    }

    func test(framebuffer: UInt32, layout: PlaneLayout) -> Bool { layout.quarterTurns == 0 }

    func show(framebuffer: UInt32, damage: DamageRegion?, userData: UnsafeMutableRawPointer?) throws(Errno) -> Bool {
        try target.card.pageFlip(target.crtc, framebuffer: framebuffer, userData: userData)
        return true
    }
}

/// SetCrtc when the framebuffer changes (a burn-in offset, the first frame), DIRTYFB with the
/// damage otherwise: the driver copies from its shadow what changed. No flip events.
final class DirtyFramebufferCommitter: KMSCommitter {
    let path = KMSCommitPath.dirtyFramebuffer
    let sendsDamage = true
    let scanoutQuarterTurns: Set<Int> = [0]
    private let target: LegacyCRTC
    /// The framebuffer the CRTC was last set to.
    private var shown: UInt32?

    init(card: DRMCard, crtc: UInt32, connector: UInt32, mode: DRMMode) {
        target = LegacyCRTC(card: card, crtc: crtc, connector: connector, mode: mode)
    }

    func modeset(framebuffer: UInt32, layout: PlaneLayout) throws(Errno) {
        try target.set(framebuffer: framebuffer, quarterTurns: layout.quarterTurns)
        shown = framebuffer
    }

    func test(framebuffer: UInt32, layout: PlaneLayout) -> Bool { layout.quarterTurns == 0 }

    func show(framebuffer: UInt32, damage: DamageRegion?, userData: UnsafeMutableRawPointer?) throws(Errno) -> Bool {
        let bounds = IntRect(x0: 0, y0: 0, x1: target.mode.width, y1: target.mode.height)
        if framebuffer != shown {
            try target.set(framebuffer: framebuffer)
            shown = framebuffer
            _ = target.card.markDirty(framebuffer, .full(bounds))
        } else if let damage {
            _ = target.card.markDirty(framebuffer, damage)
        } else {
            _ = target.card.markDirty(framebuffer, .full(bounds))
        }
        return false
    }
}
