import Input
import InputModel
import Kiosk
import KioskCore

/// The calibration round of `touch-test`: a target near each corner of the picture, tapped in
/// turn, then the libinput matrix to configure. Pure: taps in, outcomes out.
///
/// Taps arrive as the daemon would see them: through the device's udev matrix, the calibration in
/// force (`current`), libinput's scaling to the panel and the rotation (`mapping`). The fit undoes
/// the rotation and works in libinput's normalised panel coordinates, where both matrices live, and
/// the result is `current` followed by the fit: libinput applies the configured matrix to the same
/// raw positions the taps came from, so that is the matrix that puts them on the targets.
struct CornerCalibration {
    let mapping: TouchMapping
    let current: CalibrationMatrix
    /// Target centres in picture coordinates, in the order they are to be tapped (clockwise from
    /// the top left).
    let targets: [(x: Double, y: Double)]
    private(set) var taps: [(x: Double, y: Double)] = []

    init(mapping: TouchMapping, current: CalibrationMatrix, inset: Double = 40) {
        self.mapping = mapping
        self.current = current
        let w = Double(mapping.logicalWidth), h = Double(mapping.logicalHeight)
        let i = min(inset, w / 4, h / 4)
        targets = [(i, i), (w - i, i), (w - i, h - i), (i, h - i)]
    }

    /// The index of the target to tap next.
    var nextTarget: Int { taps.count }

    struct Result: Equatable {
        /// The matrix for `[input] calibration`.
        var matrix: CalibrationMatrix
        /// How far the worst tap is from its target once the fit is applied, in panel pixels.
        var worstPixels: Double

        /// The line to paste into the `[input]` section.
        var line: String { CornerCalibration.line(for: matrix) }
    }

    /// `calibration = a b c d e f`, in the form `[input] calibration` reads (no exponents).
    static func line(for matrix: CalibrationMatrix) -> String {
        "calibration = " + matrix.values.map { compactNumber(Double($0), decimals: 6) }.joined(separator: " ")
    }

    enum Outcome: Equatable {
        /// Tap target `index` next.
        case next(Int)
        case done(Result)
        /// The round is over without a result (and starts again at the first target).
        case failed(String)
    }

    /// A tap lifted at picture position (`x`, `y`).
    mutating func tap(x: Double, y: Double) -> Outcome {
        let n = taps.count + 1
        let right = Double(mapping.logicalWidth - 1), bottom = Double(mapping.logicalHeight - 1)
        // Positions are clamped to the picture: one on its edge says nothing about where it was.
        guard x > 0, y > 0, x < right, y < bottom else {
            taps = []
            return .failed("tap \(n) landed on the edge of the picture: the calibration in force is too far off to "
                + "measure; start again with touch-test --calibration none")
        }
        taps.append((x, y))
        guard taps.count == targets.count else { return .next(taps.count) }
        defer { taps = [] }
        return Self.calibrate(taps: taps, targets: targets, mapping: mapping, current: current)
    }

    /// The fit of a whole round: `taps[i]` was aimed at `targets[i]`.
    static func calibrate(taps: [(x: Double, y: Double)], targets: [(x: Double, y: Double)],
                          mapping: TouchMapping, current: CalibrationMatrix) -> Outcome {
        let w = Double(mapping.panelWidth), h = Double(mapping.panelHeight)
        // A reported position n is panel pixel n, whose centre is picture coordinate n + 0.5.
        func normalised(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) {
            let q = mapping.panelPoint(x: p.x, y: p.y)
            return (q.x / w, q.y / h)
        }
        let measured = taps.map(normalised)
        let expected = targets.map { normalised(($0.x - 0.5, $0.y - 0.5)) }
        let fit: CalibrationFit
        do { fit = try CalibrationMatrix.fit(measured: measured, expected: expected) } catch {
            return .failed(error.description)
        }
        var worst = 0.0
        for (m, e) in zip(measured, expected) {
            let p = fit.matrix.apply(x: Float(m.x), y: Float(m.y))
            let dx = (Double(p.x) - e.x) * w, dy = (Double(p.y) - e.y) * h
            worst = max(worst, (dx * dx + dy * dy).squareRoot())
        }
        // Four taps that no single calibration explains: a target missed or tapped out of turn.
        if worst > 0.05 * min(w, h) {
            return .failed("the taps do not fit one calibration (one is \(Int(worst.rounded())) px off): "
                + "tap the highlighted targets in turn")
        }
        return .done(Result(matrix: current.then(fit.matrix), worstPixels: worst))
    }
}

/// `value` with at most `decimals` decimals and no trailing zeros ("1", "-0.25", "0.003125").
func compactNumber(_ value: Double, decimals: Int) -> String {
    var text = format(value, decimals)
    if text.contains(".") {
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
    }
    return text == "-0" ? "0" : text
}
