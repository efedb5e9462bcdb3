@testable import Commands
import DisplayModel
import Input
import InputModel
@testable import Kiosk
@testable import KioskCore
import Raster
import Testing
import Text

/// A touch panel as the daemon sees it, simulated independently of the code under test: a finger
/// at normalised panel position p is reported raw at `error(p)`, libinput applies the configured
/// matrix and scales to the panel's pixels, and the mapping turns that into picture pixels.
private struct SimulatedPanel {
    var width: Int, height: Int, quarterTurns: Int
    /// The touch layer's error, finger -> raw, as a b c d e f.
    var error: [Double]
    var configured: CalibrationMatrix

    var mapping: TouchMapping { TouchMapping(panelWidth: width, panelHeight: height, quarterTurns: quarterTurns) }

    func raw(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) {
        (error[0] * p.x + error[1] * p.y + error[2], error[3] * p.x + error[4] * p.y + error[5])
    }

    /// Where a finger on picture coordinate `c` is reported, in picture pixels (what a tap gives).
    func reported(picture c: (x: Double, y: Double)) -> (x: Double, y: Double) {
        let logicalW = Double(mapping.logicalWidth), logicalH = Double(mapping.logicalHeight)
        // Raster draws picture coordinate c at panel coordinate T(c); panel pixel n spans n...n+1.
        let onPanel = Transform.rotation(quarterTurns: quarterTurns, width: logicalW, height: logicalH).apply(Point(c.x, c.y))
        let finger = ((onPanel.x - 0.5) / Double(width), (onPanel.y - 0.5) / Double(height))
        let r = raw(finger)
        let m = configured.apply(x: Float(r.x), y: Float(r.y))
        return mapping.logicalPoint(x: Double(m.x) * Double(width), y: Double(m.y) * Double(height))!
    }

    /// Where a finger on `c` would be reported with `matrix` configured instead, in picture pixels.
    func reported(picture c: (x: Double, y: Double), with matrix: CalibrationMatrix) -> (x: Double, y: Double) {
        var other = self
        other.configured = matrix
        return other.reported(picture: c)
    }
}

@Suite("Touch test screen")
struct TouchTestScreenTests {
    private func screen(_ mapping: TouchMapping, current: CalibrationMatrix = .identity,
                        report: @escaping (CornerCalibration.Outcome) -> Void = { _ in }) throws -> TouchTestScreen {
        TouchTestScreen(calibration: CornerCalibration(mapping: mapping, current: current), fonts: try FontSet.load(), report: report)
    }

    @Test("contacts appear as rings where they touch and disappear when lifted; rates are counted")
    func contacts() throws {
        let screen = try screen(TouchMapping(panelWidth: 400, panelHeight: 300))
        let background = Color(rgb: 0x0D1117).premultiplied
        #expect(screen.handle(.touchDown(slot: 3, x: 200, y: 250, time: 1)))
        var frame = screen.render()
        // The ring (radius 36, 4 px wide) passes through (236, 250); its centre stays empty.
        #expect(frame[236, 250] != background)
        #expect(frame[200, 250] == background)
        #expect(screen.handle(.touchMotion(slot: 3, x: 100, y: 250, time: 2)))
        frame = screen.render()
        #expect(frame[136, 250] != background)
        #expect(frame[236, 250] == background)
        #expect(screen.tick())
        #expect(screen.reportRate == 2)
        #expect(screen.handle(.touchUp(slot: 3, time: 3)))
        frame = screen.render()
        #expect(frame[136, 250] == background)
        // Corner targets are drawn; the first to tap in another colour than the rest.
        #expect(frame[40, 40] != background)
        #expect(frame[360, 260] != background)
        #expect(frame[40, 40] != frame[360, 260])
    }

    /// Four corner taps on panels that are wrong in known ways, through every rotation: the printed
    /// matrix, configured instead, puts each finger on its target.
    struct PanelCase: Sendable, CustomTestStringConvertible {
        var name: String
        /// The touch layer's error, finger -> raw.
        var error: [Double]
        /// The calibration configured while tapping.
        var current = CalibrationMatrix.identity
        var testDescription: String { name }
    }

    @Test("four corner taps give the calibration that puts fingers on the targets", arguments: [
        PanelCase(name: "right already", error: [1, 0, 0, 0, 1, 0]),
        PanelCase(name: "swapped axes", error: [0, 1, 0, 1, 0, 0]),
        PanelCase(name: "smaller touch area, offset", error: [0.85, 0, 0.08, 0, 0.9, 0.04]),
        PanelCase(name: "mirrored x, wrongly fixed as mirrored y", error: [-1, 0, 1, 0, 1, 0],
                  current: CalibrationMatrix(a: 1, b: 0, c: 0, d: 0, e: -1, f: 1)),
        PanelCase(name: "skewed, with an old calibration", error: [0.97, 0.03, 0.01, -0.02, 1.01, 0.0],
                  current: CalibrationMatrix(a: 1.02, b: 0, c: -0.01, d: 0, e: 0.98, f: 0.01)),
    ], [0, 1, 2, 3])
    func calibrationRound(panelCase: PanelCase, quarterTurns: Int) throws {
        let current = panelCase.current
        let panel = SimulatedPanel(width: 800, height: 480, quarterTurns: quarterTurns, error: panelCase.error, configured: current)
        var outcomes: [CornerCalibration.Outcome] = []
        let screen = try screen(panel.mapping, current: current) { outcomes.append($0) }
        for (i, target) in screen.calibration.targets.enumerated() {
            #expect(screen.calibration.nextTarget == i)
            let p = panel.reported(picture: target)
            _ = screen.handle(.touchDown(slot: 0, x: p.x, y: p.y, time: UInt64(i)))
            _ = screen.handle(.touchUp(slot: 0, time: UInt64(i)))
        }
        #expect(outcomes.count == 4)
        guard case .done(let result) = outcomes.last else { Issue.record("no result: \(outcomes)"); return }
        #expect(result.worstPixels < 0.5)
        #expect(screen.status.first == result.line)
        #expect(screen.calibration.nextTarget == 0, "a new round starts")
        // The line goes through the config parser, and with it configured fingers land on targets,
        // the corners and anywhere else.
        let (config, issues) = Config.parse("[input]\n\(result.line)\n", file: "pasted.conf")
        #expect(issues.isEmpty, "\(issues)")
        let pasted = try #require(config.calibration.flatMap { CalibrationMatrix($0.map(Float.init)) })
        let w = Double(panel.mapping.logicalWidth), h = Double(panel.mapping.logicalHeight)
        for c in screen.calibration.targets + [(w / 2, h / 2), (w * 0.3, h * 0.7)] {
            let p = panel.reported(picture: c, with: pasted)
            // Reported pixel n is centred on picture coordinate n + 0.5.
            #expect(abs(p.x + 0.5 - c.x) < 0.5 && abs(p.y + 0.5 - c.y) < 0.5, "\(c) reported at \(p)")
        }
    }

    @Test("the printed line round-trips through the config parser to the same matrix")
    func lineRoundTrip() throws {
        for m in [CalibrationMatrix.identity, CalibrationMatrix(a: -0.000001, b: 1.2345678, c: -0.5, d: 1e-7, e: 0.999999, f: 12.5)] {
            let line = CornerCalibration.line(for: m)
            #expect(line.hasPrefix("calibration = ") && !line.contains("e-") && !line.contains("nan"))
            let (config, issues) = Config.parse("[input]\n\(line)\n", file: "t.conf")
            #expect(issues.isEmpty)
            let parsed = try #require(config.calibration)
            for (value, original) in zip(parsed, m.values.map(Double.init)) {
                // Six decimals: half a millionth, plus the Float the matrix is kept in.
                #expect(abs(value - original) <= 5e-7 + 1e-6 * abs(original), "\(line) -> \(parsed)")
            }
        }
        #expect(CornerCalibration.line(for: .identity) == "calibration = 1 0 0 0 1 0")
    }

    @Test("taps that cannot calibrate: one spot, out of turn, on the edge, with two fingers")
    func badRounds() throws {
        let mapping = TouchMapping(panelWidth: 800, panelHeight: 480)
        var outcomes: [CornerCalibration.Outcome] = []
        let screen = try screen(mapping) { outcomes.append($0) }
        func tap(_ p: (x: Double, y: Double)) {
            _ = screen.handle(.touchDown(slot: 1, x: p.x, y: p.y, time: 0))
            _ = screen.handle(.touchUp(slot: 1, time: 0))
        }
        func lastFailure() -> String? { if case .failed(let m) = outcomes.last { m } else { nil } }
        let t = screen.calibration.targets
        for _ in 0..<4 { tap((400, 240)) }
        #expect(lastFailure()?.contains("one spot") == true)
        for i in [0, 2, 1, 3] { tap(t[i]) }
        #expect(lastFailure()?.contains("in turn") == true)
        tap(t[0]); tap((799, 10))
        #expect(lastFailure()?.contains("edge") == true)
        #expect(screen.calibration.nextTarget == 0)
        // A second finger makes the lifts not taps, until every finger is up.
        _ = screen.handle(.touchDown(slot: 0, x: t[0].x, y: t[0].y, time: 0))
        _ = screen.handle(.touchDown(slot: 1, x: 300, y: 300, time: 0))
        _ = screen.handle(.touchUp(slot: 1, time: 0))
        _ = screen.handle(.touchUp(slot: 0, time: 0))
        #expect(screen.calibration.nextTarget == 0)
        tap(t[0])
        #expect(screen.calibration.nextTarget == 1)
        #expect(outcomes.last == .next(1))
    }
}
