import Input
import InputModel
import Raster
import Testing

@Suite struct TouchMappingTests {
    /// A tap on logical pixel p, drawn on the panel by Raster's rotation (about pixel centres),
    /// maps back to p: the mapping is the renderer's exact inverse, for every rotation.
    @Test("inverse of rasters rotation", arguments: [0, 1, 2, 3])
    func inverseOfRastersRotation(quarterTurns: Int) {
        let logicalW = 800, logicalH = 480
        let panelW = quarterTurns % 2 == 0 ? logicalW : logicalH
        let panelH = quarterTurns % 2 == 0 ? logicalH : logicalW
        let mapping = TouchMapping(panelWidth: panelW, panelHeight: panelH, quarterTurns: quarterTurns)
        #expect(mapping.logicalWidth == logicalW && mapping.logicalHeight == logicalH)
        let t = Transform.rotation(quarterTurns: quarterTurns, width: Double(logicalW), height: Double(logicalH))
        var checked = 0
        for lx in stride(from: 0, to: logicalW, by: 7) {
            for ly in stride(from: 0, to: logicalH, by: 11) {
                for (fx, fy) in [(0.0, 0.0), (0.25, 0.75)] {
                    let p = Point(Double(lx) + fx, Double(ly) + fy)
                    let q = t.apply(Point(p.x + 0.5, p.y + 0.5))
                    let panel = Point(q.x - 0.5, q.y - 0.5)
                    // The panel pixel the picture's pixel lands on is inside the panel ...
                    #expect(panel.x > -1 && panel.x < Double(panelW) && panel.y > -1 && panel.y < Double(panelH))
                    // ... and a tap there maps back to the logical point.
                    let back = mapping.unclampedLogicalPoint(x: panel.x, y: panel.y)
                    #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9, "\(p) -> \(panel) -> \(back)")
                    if fx == 0 {
                        let clamped = mapping.logicalPoint(x: panel.x, y: panel.y)
                        #expect(clamped?.x == p.x && clamped?.y == p.y)
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 9_000)
    }

    /// Where the logical corners are on a panel turned by 90 degrees: the picture's top-left is the
    /// panel's top-right.
    @Test("corners at ninety degrees") func cornersAtNinetyDegrees() {
        let m = TouchMapping(panelWidth: 1024, panelHeight: 768, rotationDegrees: 90)!
        #expect(m.logicalWidth == 768 && m.logicalHeight == 1024)
        #expect(m.logicalPoint(x: 1023, y: 0)! == (0, 0))
        #expect(m.logicalPoint(x: 1023, y: 767)! == (767, 0))
        #expect(m.logicalPoint(x: 0, y: 0)! == (0, 1023))
        #expect(m.logicalPoint(x: 0, y: 767)! == (767, 1023))
    }

    @Test("degrees and bad input") func degreesAndBadInput() {
        #expect(TouchMapping(panelWidth: 10, panelHeight: 10, rotationDegrees: 45) == nil)
        #expect(TouchMapping(panelWidth: 10, panelHeight: 20, rotationDegrees: -90)!.quarterTurns == 3)
        #expect(TouchMapping(panelWidth: 10, panelHeight: 20, rotationDegrees: 450)!.quarterTurns == 1)
        let m = TouchMapping(panelWidth: 100, panelHeight: 50)
        #expect(m.logicalPoint(x: .nan, y: 1) == nil)
        #expect(m.logicalPoint(x: 1, y: .infinity) == nil)
        #expect(m.logicalPoint(x: -5, y: 500)! == (0, 49))
        #expect(TouchMapping(panelWidth: 0, panelHeight: 0).logicalPoint(x: 1, y: 1) == nil)
        #expect(TouchMapping(panelWidth: -3, panelHeight: 5).hasArea == false)
    }
}

@Suite struct CalibrationMatrixTests {
    private func close(_ a: (x: Float, y: Float), _ b: (x: Float, y: Float)) -> Bool {
        abs(a.x - b.x) < 1e-5 && abs(a.y - b.y) < 1e-5
    }

    @Test("composition applies the device matrix first") func compositionAppliesTheDeviceMatrixFirst() {
        // udev: axes swapped (a panel mounted on its side); ours: a small offset and scale.
        let device = CalibrationMatrix(a: 0, b: 1, c: 0, d: 1, e: 0, f: 0)
        let ours = CalibrationMatrix(a: 0.9, b: 0, c: 0.05, d: 0, e: 0.8, f: 0.1)
        let combined = device.then(ours)
        for (x, y) in [(0.0, 0.0), (1, 0), (0, 1), (0.3, 0.7), (1, 1)] as [(Float, Float)] {
            let viaDevice = device.apply(x: x, y: y)
            #expect(close(combined.apply(x: x, y: y), ours.apply(x: viaDevice.x, y: viaDevice.y)))
        }
        #expect(combined == CalibrationMatrix(a: 0, b: 0.9, c: 0.05, d: 0.8, e: 0, f: 0.1))
        // Not commutative: the order matters.
        #expect(ours.then(device) != combined)
    }

    @Test("identity and inverse") func identityAndInverse() {
        let flipX = CalibrationMatrix(a: -1, b: 0, c: 1, d: 0, e: 1, f: 0)
        #expect(flipX.then(flipX).isIdentity)
        #expect(CalibrationMatrix.identity.then(flipX) == flipX)
        #expect(flipX.then(.identity) == flipX)
    }

    @Test("parsing") func parsing() {
        #expect(CalibrationMatrix(parsing: "1 0 0 0 1 0") == .identity)
        #expect(CalibrationMatrix(parsing: "-1,0,1, 0,1,0") == CalibrationMatrix(a: -1, b: 0, c: 1, d: 0, e: 1, f: 0))
        #expect(CalibrationMatrix(parsing: "1 0 0 0 1") == nil)
        #expect(CalibrationMatrix(parsing: "1 0 0 0 1 x") == nil)
        #expect(CalibrationMatrix(parsing: "1 0 0 0 1 nan") == nil)
        #expect(CalibrationMatrix([1, 0, 0, 0, 1, 0, 0]) == nil)
    }
}

/// `[display] safe-area`: the picture is drawn inside the margins, so touches are told in its
/// coordinates. Expected points by hand.
@Suite struct SafeAreaTouchTests {
    @Test("upright: the margins are subtracted and the edges clamp to the picture") func upright() {
        // 1920x1080 at 5 %: 96 and 54 pixels a side, a 1728x972 picture.
        let m = TouchMapping(panelWidth: 1920, panelHeight: 1080, marginX: 96, marginY: 54)
        #expect(m.logicalWidth == 1728 && m.logicalHeight == 972)
        #expect(m.logicalPoint(x: 96, y: 54)! == (0, 0))
        #expect(m.logicalPoint(x: 1000, y: 500)! == (904, 446))
        // A touch on the margin counts at the picture's nearest edge.
        #expect(m.logicalPoint(x: 10, y: 1079)! == (0, 971))
        #expect(m.panelPoint(x: 904, y: 446) == (1000, 500))
    }

    @Test("turned: the margins are the panel's, the picture's axes swapped") func turned() {
        // An 800x480 panel at 5 % (40 and 24 a side) turned clockwise: the picture is 480 wide
        // less 2 x 24 = 432, and 800 tall less 2 x 40 = 720. One turn puts picture (lx, ly) at
        // panel (799 - ly, lx): panel (400, 100) is (100, 399) before the margins, (76, 359) after.
        let m = TouchMapping(panelWidth: 800, panelHeight: 480, quarterTurns: 1, marginX: 40, marginY: 24)
        #expect(m.logicalWidth == 432 && m.logicalHeight == 720)
        #expect(m.logicalPoint(x: 400, y: 100)! == (76, 359))
        #expect(m.panelPoint(x: 76, y: 359) == (400, 100))
    }
}
