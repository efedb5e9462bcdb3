import CDRM
import DisplayModel
import LinuxIO
import Raster

#if canImport(Glibc)
import Glibc
#endif

// The session side of a KMS display: who has the screen (DRM master, given up for another VT and
// taken back), and whether it is lit (DPMS).

extension KMSDisplay {
    // MARK: - DRM master

    public var drmConnector: CECAdapterChoice.DRMConnectorID? {
        guard connectorID != 0, let card = UInt32(devicePath.drop { !$0.isNumber }.prefix { $0.isNumber }) else { return nil }
        return CECAdapterChoice.DRMConnectorID(card: card, connector: connectorID)
    }

    /// Who else has the card open while we wait for master (a desktop's compositor, usually).
    public var screenHolder: String? {
        guard state == .noMaster, !heldBack else { return nil }
        return FileSystem.openers(of: card.path).joined(separator: ", ")
    }

    func loseMaster() {
        guard state == .running else { return }
        state = .noMaster
        resetFlipState()
        log("\(card.path): lost DRM master; presenting stops until it comes back")
        queuedEvents.append(.masterLost)
        // Fire almost at once so the caller hears of the loss, then poll once a second.
        try? masterRetry.arm(initial: .milliseconds(1), interval: .seconds(1))
    }

    func retryMaster() -> [DisplayEvent] {
        _ = try? masterRetry.readExpirations()
        guard state == .noMaster, !heldBack else { return [] }
        guard card.becomeMaster() else {
            // Our descriptor never held master (the desktop had it when we opened the card): it
            // cannot take master now, only a new one can. Once the card is free, say so.
            if !card.wasMaster, DRMCard.isFree(card.path) {
                try? masterRetry.disarm()
                log("\(card.path): the other DRM master has gone; opening the card again")
                return [.masterFree]
            }
            return []
        }
        try? masterRetry.disarm()
        // If we never lit the CRTC, what it shows now (the console, restored by the previous
        // master) is what to give back at exit, not what the previous master was showing at start.
        if !didModeset { saved = card.crtcState(crtcID) }
        do {
            try modeset()
        } catch {
            // Master, yet the modeset failed: someone else may still be driving it; keep trying.
            state = .noMaster
            try? masterRetry.arm(initial: .seconds(1), interval: .seconds(1))
            return []
        }
        log("\(card.path): DRM master regained")
        return [.masterRegained]
    }

    /// DPMS through the connector's property (atomic drivers map it to the CRTC's ACTIVE): the
    /// panel goes dark and its backlight off, which a black frame cannot do.
    public func setPowered(_ on: Bool) -> Bool {
        guard state == .running else { return false }
        // A flip in flight would complete into a powered-down CRTC: let it land first.
        waitForFlip(timeoutNanos: 500_000_000)
        guard let dpms = card.properties(of: connectorID, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))["DPMS"] else {
            return false
        }
        let value = UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
        if let error = card.setConnectorProperty(connectorID, dpms.id, to: value) {
            log("\(card.path): DPMS \(on ? "on" : "off") failed: \(error)")
            return false
        }
        resetFlipState()
        return true
    }

    /// Gives up master voluntarily (our VT is switched away) and stays away until ``resume()``:
    /// nothing is presented and no retry takes the screen from whoever has it now.
    public func suspend() {
        heldBack = true
        try? masterRetry.disarm()
        guard state == .running else { return }
        resetFlipState()
        card.dropMaster()
        // No .masterLost: the caller asked for this and knows; it hears .masterRegained after resume().
        state = .noMaster
    }

    /// Takes the display back after ``suspend()`` (our VT is on screen again): master at once,
    /// then `.masterRegained` and a full frame.
    public func resume() {
        guard heldBack else { return }
        heldBack = false
        if state == .noMaster { try? masterRetry.arm(initial: .milliseconds(1), interval: .seconds(1)) }
    }
}
