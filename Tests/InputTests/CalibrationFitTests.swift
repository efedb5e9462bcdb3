import Input
import InputModel
import Raster
import Testing

/// The least-squares fit behind `touch-test`'s calibration line, in normalised device coordinates.
@Suite struct CalibrationFitTests {
    typealias P = (x: Double, y: Double)
    /// Where four corner targets 5 % in from the edges are, in normalised coordinates.
    static let corners: [P] = [(0.05, 0.05), (0.95, 0.05), (0.95, 0.95), (0.05, 0.95)]

    /// An affine map written as the matrix type's six numbers, applied in Double.
    private func apply(_ m: [Double], _ p: P) -> P {
        (m[0] * p.x + m[1] * p.y + m[2], m[3] * p.x + m[4] * p.y + m[5])
    }

    private func expectMatrix(_ fit: CalibrationFit, equals expected: [Double], tolerance: Double = 1e-5,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let got = fit.matrix.values.map(Double.init)
        let worst = zip(got, expected).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < tolerance, "fit \(got), expected \(expected)", sourceLocation: sourceLocation)
    }

    /// Taps where a panel with a known error puts them (`error` maps where the finger is to where it is
    /// reported); the fit must be that error's inverse, which `inverse` gives independently.
    @Test("the fit undoes a known panel error", arguments: [
        // name, the panel's error (finger -> reported), its inverse (the matrix the fit must find)
        ("identity", [1.0, 0, 0, 0, 1, 0], [1.0, 0, 0, 0, 1, 0]),
        ("swapped axes", [0, 1, 0, 1, 0, 0], [0, 1, 0, 1, 0, 0]),
        // reported = (1 - y, x): the touch layer turned a quarter clockwise; undone by (y, 1 - x).
        ("90 degree rotation", [0, -1, 1, 1, 0, 0], [0, 1, 0, -1, 0, 1]),
        // The touch area covers 80 % x 90 % of the picture, offset: reported = 0.8 x + 0.1, 0.9 y + 0.03.
        ("scaled and offset", [0.8, 0, 0.1, 0, 0.9, 0.03], [1 / 0.8, 0, -0.1 / 0.8, 0, 1 / 0.9, -0.03 / 0.9]),
        ("mirrored x", [-1, 0, 1, 0, 1, 0], [-1, 0, 1, 0, 1, 0]),
    ] as [(String, [Double], [Double])])
    func knownTransforms(name: String, error: [Double], inverse: [Double]) throws {
        let measured = Self.corners.map { apply(error, $0) }
        let fit = try CalibrationMatrix.fit(measured: measured, expected: Self.corners)
        expectMatrix(fit, equals: inverse)
        #expect(fit.rmsResidual < 1e-9 && fit.maxResidual < 1e-9, "\(name): exact taps leave no residual")
        // Not just at the taps: the fitted map undoes the error everywhere.
        for p in [(0.5, 0.5), (0.2, 0.8), (0.0, 1.0)] as [P] {
            let back = fit.matrix.apply(x: Float(apply(error, p).x), y: Float(apply(error, p).y))
            #expect(abs(Double(back.x) - p.x) < 1e-5 && abs(Double(back.y) - p.y) < 1e-5, "\(name): \(p)")
        }
    }

    @Test("noisy taps give the least-squares fit: close to the truth, with the noise as residual")
    func noisyTaps() throws {
        // Fingers land up to 0.004 (about 4 px on a 1080p panel) off, in a fixed pattern.
        let noise: [P] = [(0.004, -0.003), (-0.002, 0.004), (0.003, 0.002), (-0.004, -0.003)]
        let measured = zip(Self.corners, noise).map { ($0.x + $1.x, $0.y + $1.y) }
        let fit = try CalibrationMatrix.fit(measured: measured, expected: Self.corners)
        expectMatrix(fit, equals: [1, 0, 0, 0, 1, 0], tolerance: 0.02)
        #expect(fit.rmsResidual > 0 && fit.maxResidual >= fit.rmsResidual && fit.maxResidual < 0.008)
        // Least squares: no small change of the matrix fits the taps better.
        func cost(_ m: [Double]) -> Double {
            zip(measured, Self.corners).map { let q = apply(m, $0); return (q.x - $1.x) * (q.x - $1.x) + (q.y - $1.y) * (q.y - $1.y) }
                .reduce(0, +)
        }
        let best = fit.matrix.values.map(Double.init)
        for i in 0..<6 {
            for step in [-1e-3, 1e-3] {
                var other = best
                other[i] += step
                #expect(cost(other) > cost(best), "parameter \(i) moved by \(step) fits better")
            }
        }
    }

    @Test("more than four taps and a general affine map")
    func generalMap() throws {
        let truth = [1.02, -0.07, 0.013, 0.05, 0.97, -0.021]
        let targets: [P] = Self.corners + [(0.5, 0.5), (0.3, 0.7)]
        // Measured points that `truth` maps onto the targets: solve truth(m) = t for each.
        let det = truth[0] * truth[4] - truth[1] * truth[3]
        let measured: [P] = targets.map { t in
            let x = t.x - truth[2], y = t.y - truth[5]
            return ((truth[4] * x - truth[1] * y) / det, (truth[0] * y - truth[3] * x) / det)
        }
        expectMatrix(try CalibrationMatrix.fit(measured: measured, expected: targets), equals: truth)
    }

    @Test("degenerate taps give a clear error, never a trap or a NaN matrix", arguments: [
        ("all four in one spot", [(0.5, 0.5), (0.5, 0.5), (0.5, 0.5), (0.5, 0.5)], CalibrationFitError.tapsTogether),
        ("within a pixel of each other", [(0.5, 0.5), (0.5004, 0.5), (0.5, 0.5003), (0.5002, 0.5002)], .tapsTogether),
        ("on the diagonal", [(0.05, 0.05), (0.35, 0.35), (0.65, 0.65), (0.95, 0.95)], .tapsOnALine),
        ("two corners tapped twice", [(0.05, 0.05), (0.95, 0.05), (0.05, 0.05), (0.95, 0.05)], .tapsOnALine),
        ("nearly on a line", [(0.05, 0.5), (0.95, 0.501), (0.95, 0.502), (0.05, 0.499)], .tapsOnALine),
        ("not a number", [(0.05, 0.05), (.nan, 0.05), (0.95, 0.95), (0.05, 0.95)], .offThePanel(index: 1)),
        ("infinite", [(0.05, 0.05), (0.95, 0.05), (0.95, .infinity), (0.05, 0.95)], .offThePanel(index: 2)),
        ("far off the panel", [(0.05, 0.05), (0.95, 0.05), (0.95, 0.95), (1e300, 0.95)], .offThePanel(index: 3)),
    ] as [(String, [P], CalibrationFitError)])
    func degenerate(name: String, measured: [P], expected error: CalibrationFitError) {
        #expect(throws: error, "\(name)") { try CalibrationMatrix.fit(measured: measured, expected: Self.corners) }
        #expect(!error.description.isEmpty && !error.description.contains("\n"))
    }

    @Test("too few taps or mismatched lists are refused")
    func counts() {
        let two: [P] = [(0.1, 0.1), (0.9, 0.9)]
        #expect(throws: CalibrationFitError.tooFewPoints(measured: 2, expected: 2)) {
            try CalibrationMatrix.fit(measured: two, expected: two)
        }
        #expect(throws: CalibrationFitError.tooFewPoints(measured: 4, expected: 3)) {
            try CalibrationMatrix.fit(measured: Self.corners, expected: Array(Self.corners.prefix(3)))
        }
        #expect(throws: CalibrationFitError.tooFewPoints(measured: 0, expected: 0)) {
            try CalibrationMatrix.fit(measured: [], expected: [])
        }
        #expect(throws: CalibrationFitError.targetsOnALine) {
            try CalibrationMatrix.fit(measured: Self.corners, expected: [(0.1, 0.1), (0.2, 0.2), (0.3, 0.3), (0.4, 0.4)])
        }
    }

    /// The taps went through the calibration in force; the matrix to configure is that one followed
    /// by the fit, because libinput applies the configured matrix to the raw positions again.
    @Test("composition: current then fit puts raw positions on the targets")
    func composition() throws {
        // The panel's own error (finger -> raw) and a stale calibration in the config.
        let panel = [0.9, 0.02, 0.04, -0.03, 1.05, -0.02]
        let current = CalibrationMatrix(a: 0, b: 1, c: 0, d: 1, e: 0, f: 0)
        let raw = Self.corners.map { apply(panel, $0) }
        let measured: [P] = raw.map { let m = current.apply(x: Float($0.x), y: Float($0.y)); return (Double(m.x), Double(m.y)) }
        let fit = try CalibrationMatrix.fit(measured: measured, expected: Self.corners)
        let configured = current.then(fit.matrix)
        for p in Self.corners + [(0.5, 0.5), (0.25, 0.6)] {
            let r = apply(panel, p)
            let shown = configured.apply(x: Float(r.x), y: Float(r.y))
            #expect(abs(Double(shown.x) - p.x) < 1e-4 && abs(Double(shown.y) - p.y) < 1e-4, "\(p)")
        }
        // The fit alone (forgetting the current matrix) would be wrong here.
        let r = apply(panel, (0.5, 0.25)), alone = fit.matrix.apply(x: Float(r.x), y: Float(r.y))
        #expect(abs(Double(alone.x) - 0.5) + abs(Double(alone.y) - 0.25) > 0.1)
    }
}

@Suite struct TouchMappingPanelPointTests {
    /// `panelPoint` is where Raster's rotation draws a logical pixel, and `unclampedLogicalPoint` its inverse.
    @Test("panel point inverts the mapping", arguments: [0, 1, 2, 3])
    func panelPointInvertsTheMapping(quarterTurns: Int) {
        let mapping = TouchMapping(panelWidth: quarterTurns % 2 == 0 ? 640 : 360, panelHeight: quarterTurns % 2 == 0 ? 360 : 640,
                                   quarterTurns: quarterTurns)
        let t = Transform.rotation(quarterTurns: quarterTurns, width: 640, height: 360)
        for (x, y) in [(0.0, 0.0), (639, 359), (100.25, 17.5), (320, 180)] {
            let panel = mapping.panelPoint(x: x, y: y)
            let drawn = t.apply(Point(x + 0.5, y + 0.5))
            #expect(abs(panel.x - (drawn.x - 0.5)) < 1e-9 && abs(panel.y - (drawn.y - 0.5)) < 1e-9)
            let back = mapping.unclampedLogicalPoint(x: panel.x, y: panel.y)
            #expect(abs(back.x - x) < 1e-9 && abs(back.y - y) < 1e-9)
        }
    }
}
