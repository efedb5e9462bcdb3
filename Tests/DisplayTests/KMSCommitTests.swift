import LinuxIO
import Testing

@testable import Display
@testable import DisplayModel

// How a KMS display commits, decided without hardware: the commit path from the device's
// capabilities and its fallbacks, and the plane rotation bits.

@Suite struct KMSCommitChoiceTests {
    @Test("initial path from capabilities") func initialPathFromCapabilities() {
        let all = KMSDeviceCapabilities(atomicClientCap: true, atomicPipe: true, legacyRequested: false)
        #expect(KMSCommitChoice.initial(all).path == .atomic)
        var c = all
        c.legacyRequested = true
        #expect(KMSCommitChoice.initial(c) == (.legacy, "legacy API requested"))
        c = all
        c.atomicClientCap = false
        #expect(KMSCommitChoice.initial(c).path == .legacy)
        c = all
        c.atomicPipe = false
        #expect(KMSCommitChoice.initial(c) == (.legacy, "no primary plane with the atomic properties"))
    }

    @Test("fallback", arguments: [
        (KMSCommitPath.atomic, false, Errno.invalidArgument, KMSCommitPath?.some(.legacy)),
        (.atomic, false, .notSupported, .legacy),
        (.atomic, true, .invalidArgument, .legacy),
        (.atomic, true, .resourceBusy, nil),
        (.atomic, true, .noMemory, .dirtyFramebuffer),  // bochs at 1080p
        (.atomic, true, .noSpace, .dirtyFramebuffer),
        (.atomic, true, .notSupported, .dirtyFramebuffer),
        (.atomic, true, .permissionDenied, nil),
        (.legacy, true, .invalidArgument, .dirtyFramebuffer),
        (.legacy, true, .notSupported, .dirtyFramebuffer),
        (.legacy, true, .noMemory, .dirtyFramebuffer),
        (.legacy, true, .noSpace, .dirtyFramebuffer),
        (.legacy, true, .notPermitted, nil),
        (.legacy, true, .resourceBusy, nil),
        (.legacy, false, .invalidArgument, nil),
        (.dirtyFramebuffer, true, .invalidArgument, nil),
    ])
    func fallback(from: KMSCommitPath, flip: Bool, error: Errno, expected: KMSCommitPath?) {
        #expect(KMSCommitChoice.fallback(from: from, flip: flip, error: error)?.path == expected)
    }
}

@Suite struct PlaneRotationTests {
    @Test("clockwise turns are DR ms counter clockwise bits") func clockwiseTurnsAreDRMsCounterClockwiseBits() {
        #expect(PlaneRotation.bit(forClockwiseQuarterTurns: 0) == 1 << 0)
        #expect(PlaneRotation.bit(forClockwiseQuarterTurns: 1) == 1 << 3)  // rotate-270
        #expect(PlaneRotation.bit(forClockwiseQuarterTurns: 2) == 1 << 2)
        #expect(PlaneRotation.bit(forClockwiseQuarterTurns: 3) == 1 << 1)  // rotate-90
        #expect(PlaneRotation.bit(forClockwiseQuarterTurns: -1) == 1 << 1)
    }

    @Test("turns the plane offers") func turnsThePlaneOffers() {
        #expect(PlaneRotation.clockwiseTurns(supported: 0) == [0])
        #expect(PlaneRotation.clockwiseTurns(supported: 0b0001) == [0])
        #expect(PlaneRotation.clockwiseTurns(supported: 0b0101) == [0, 2])
        #expect(PlaneRotation.clockwiseTurns(supported: 0b1000) == [0, 1])
        #expect(PlaneRotation.clockwiseTurns(supported: 0b11_1111) == [0, 1, 2, 3])  // with reflections
    }

    @Test("a quarter turn's framebuffer has the mode's size transposed")
    func layout() {
        let flat = PlaneLayout(modeWidth: 1920, modeHeight: 1080)
        #expect(flat.sourceWidth == 1920 && flat.sourceHeight == 1080 && flat.rotationBits == 1)
        let side = PlaneLayout(modeWidth: 1920, modeHeight: 1080, quarterTurns: 5)
        #expect(side.quarterTurns == 1)
        #expect(side.sourceWidth == 1080 && side.sourceHeight == 1920)
        #expect(side.rotationBits == PlaneRotation.rotate270)
        let upside = PlaneLayout(modeWidth: 1920, modeHeight: 1080, quarterTurns: 2)
        #expect(upside.sourceWidth == 1920 && upside.sourceHeight == 1080)
    }
}
