/// A calibration matrix fitted to taps: where the touches landed (`measured`) and where they should
/// have (`expected`), both in libinput's normalised device coordinates (0...1 across the panel's
/// width and height). The matrix maps measured to expected; `rmsResidual` and `maxResidual` say how
/// far the taps are from what an affine map can explain (a missed target shows up here).
public struct CalibrationFit: Equatable, Sendable {
    public var matrix: CalibrationMatrix
    public var rmsResidual: Double
    public var maxResidual: Double
}

/// Why taps cannot give a calibration. Never a trap and never a NaN matrix: a person tapped these.
public enum CalibrationFitError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An affine map has six unknowns: three point pairs at least, as many measured as expected.
    case tooFewPoints(measured: Int, expected: Int)
    /// A position that is not a number, or nowhere near the panel (normalised values beyond ±1000).
    case offThePanel(index: Int)
    /// The taps are (nearly) all in one spot: the same target tapped again, or a stuck contact.
    case tapsTogether
    /// The taps lie (nearly) on one line, so one direction cannot be measured.
    case tapsOnALine
    /// The same for the target positions (a programming error, reported rather than trapped).
    case targetsOnALine

    public var description: String {
        switch self {
        case .tooFewPoints(let m, let e): "calibration needs at least 3 taps with a target each (have \(m) taps, \(e) targets)"
        case .offThePanel(let i): "tap \(i + 1) (or its target) is not a position on the panel"
        case .tapsTogether: "the taps all landed in one spot: tap each target in turn"
        case .tapsOnALine: "the taps lie on one line: tap each target in turn (all corners, not two)"
        case .targetsOnALine: "the calibration targets lie on one line"
        }
    }
}

extension CalibrationMatrix {
    /// The least-squares affine map taking each `measured` point to its `expected` one (pairs in the
    /// same order), in normalised device coordinates.
    ///
    /// Taps on the panel already went through the calibration in force when they were measured. To
    /// replace that calibration, compose: `current.then(fit.matrix)` (current first, then the fit)
    /// is the matrix to configure, because libinput applies the configured matrix to the same raw
    /// positions again.
    public static func fit(measured: [(x: Double, y: Double)], expected: [(x: Double, y: Double)])
        throws(CalibrationFitError) -> CalibrationFit
    {
        guard measured.count == expected.count, measured.count >= 3 else {
            throw .tooFewPoints(measured: measured.count, expected: expected.count)
        }
        for (i, (m, e)) in zip(measured, expected).enumerated()
        where ![m.x, m.y, e.x, e.y].allSatisfy({ $0.isFinite && abs($0) <= 1000 }) {
            throw .offThePanel(index: i)
        }
        let from = Spread(measured), to = Spread(expected)
        // Thresholds in normalised units: 0.005 is about 5 px on a 1080p panel; the thinnest spread
        // must be at least 5 % of the widest, far from what four corner taps give (about equal).
        if from.largest < 0.005 * 0.005 { throw .tapsTogether }
        if from.smallest < 0.05 * 0.05 * from.largest { throw .tapsOnALine }
        if to.smallest < 0.05 * 0.05 * to.largest || to.largest < 0.005 * 0.005 { throw .targetsOnALine }

        // Normal equations on centred points: [a b] = S⁻¹ · [Σ x̃ z̃, Σ ỹ z̃] for each output z, and
        // the offset carries the means. Centring keeps the 2x2 system well conditioned.
        let det = from.xx * from.yy - from.xy * from.xy
        func row(_ z: (Int) -> Double, mean zMean: Double) -> (Double, Double, Double) {
            var sxz = 0.0, syz = 0.0
            for (i, m) in measured.enumerated() {
                sxz += (m.x - from.meanX) * (z(i) - zMean)
                syz += (m.y - from.meanY) * (z(i) - zMean)
            }
            sxz /= Double(measured.count); syz /= Double(measured.count)
            let p = (from.yy * sxz - from.xy * syz) / det
            let q = (from.xx * syz - from.xy * sxz) / det
            return (p, q, zMean - p * from.meanX - q * from.meanY)
        }
        let (a, b, c) = row({ expected[$0].x }, mean: to.meanX)
        let (d, e, f) = row({ expected[$0].y }, mean: to.meanY)

        var sum = 0.0, worst = 0.0
        for (m, t) in zip(measured, expected) {
            let dx = a * m.x + b * m.y + c - t.x, dy = d * m.x + e * m.y + f - t.y
            let r2 = dx * dx + dy * dy
            sum += r2
            worst = max(worst, r2)
        }
        let matrix = CalibrationMatrix(a: Float(a), b: Float(b), c: Float(c), d: Float(d), e: Float(e), f: Float(f))
        return CalibrationFit(matrix: matrix, rmsResidual: (sum / Double(measured.count)).squareRoot(),
                              maxResidual: worst.squareRoot())
    }
}

/// Means and (population) covariance of a point set, with the covariance's eigenvalues: the squared
/// spread along the widest and the thinnest direction.
private struct Spread {
    var meanX = 0.0, meanY = 0.0, xx = 0.0, xy = 0.0, yy = 0.0

    init(_ points: [(x: Double, y: Double)]) {
        let n = Double(points.count)
        for p in points { meanX += p.x / n; meanY += p.y / n }
        for p in points {
            let dx = p.x - meanX, dy = p.y - meanY
            xx += dx * dx / n; xy += dx * dy / n; yy += dy * dy / n
        }
    }

    private var halfGap: Double {
        let half = (xx - yy) / 2
        return (half * half + xy * xy).squareRoot()
    }
    var largest: Double { (xx + yy) / 2 + halfGap }
    var smallest: Double { max(0, (xx + yy) / 2 - halfGap) }
}
