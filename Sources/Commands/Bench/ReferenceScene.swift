import Feed
import Kiosk
import KioskCore
import Raster

/// The reference benchmark scene of shared/bench/SCENE.md: geometry reproduced bit for bit
/// (plain Double arithmetic in the written order, no fused multiply-add), drawn with our Raster.
public enum ReferenceScene {
    public static func series(_ n: Int, seed: UInt64) -> [Double] {
        guard n > 0 else { return [] }
        var rng = SplitMix64(seed: seed)
        var v = [Double](repeating: 0, count: n)
        v[0] = 100.0
        for i in stride(from: 1, to: n, by: 1) {
            let step = rng.unit() - 0.5
            v[i] = v[i - 1] + step
        }
        return v
    }

    public static func resample(_ v: [Double], to m: Int) -> [Double] {
        let n = v.count
        return (0..<m).map { j in
            let p = (Double(j) * Double(n - 1)) / Double(m - 1)
            let i0 = min(max(Int(p.rounded(.down)), 0), n - 2)
            let f = p - Double(i0)
            return v[i0] + (v[i0 + 1] - v[i0]) * f
        }
    }

    /// easeInOutCubic, SCENE.md §6.
    public static func ease(_ t: Double) -> Double {
        if t < 0.5 { return 4.0 * t * t * t }
        let q = -2.0 * t + 2.0
        return 1.0 - (q * q * q) / 2.0
    }

    public struct Layout: Sendable {
        public let width: Int, height: Int, s: Double
        public let left: Double, right: Double, top: Double, bottom: Double, yHi: Double, yLo: Double
        public let lineWidth: Double, hairWidth: Double, dotRadius: Double, dashOn: Double, dashOff: Double

        public init(width: Int, height: Int) {
            self.width = width; self.height = height
            s = Double(width) / 1920.0
            left = 80.0 * s; right = Double(width) - 80.0 * s
            top = 60.0 * s; bottom = Double(height) - 60.0 * s
            yHi = top + 40.0 * s; yLo = bottom - 40.0 * s
            lineWidth = 3.0 * s; hairWidth = 1.0 * s; dotRadius = 6.0 * s
            dashOn = 2.0 * s; dashOff = 3.0 * s
        }
    }

    public struct Frame: Sendable {
        public var x: [Double], y: [Double]
        public var cursor: Int, cursorX: Double, baseY: Double
    }

    static func snap(_ c: Double, width: Double) -> Double {
        let rounded = (width + 0.5).rounded(.down)
        let half = rounded.truncatingRemainder(dividingBy: 2.0) == 1.0 ? 0.5 : 0.0
        return c.rounded(.down) + half
    }

    /// SCENE.md §4. `cursor` < 0 picks the default index 2(n-1)/3.
    public static func layout(_ L: Layout, _ v: [Double], cursor requested: Int = -1) -> Frame {
        let n = v.count
        var vmin = v[0], vmax = v[0]
        for a in v.dropFirst() {
            if a < vmin { vmin = a }
            if a > vmax { vmax = a }
        }
        let span = L.right - L.left, band = L.yLo - L.yHi
        var x = [Double](repeating: 0, count: n), y = x
        for i in 0..<n {
            x[i] = L.left + (span * Double(i)) / Double(n - 1)
            y[i] = vmax > vmin ? L.yLo - ((v[i] - vmin) * band) / (vmax - vmin) : (L.yLo + L.yHi) / 2.0
        }
        let k = min(requested < 0 ? (2 * (n - 1)) / 3 : requested, n - 1)
        return Frame(x: x, y: y, cursor: k, cursorX: snap(x[k], width: L.hairWidth),
                     baseY: snap(y[0], width: L.hairWidth))
    }

    /// FNV-1a 64 over the IEEE bits of x0, y0, ..., cursorX, baseY (SCENE.md §7).
    public static func fingerprint(_ f: Frame) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        func eat(_ d: Double) {
            var b = d.bitPattern
            for _ in 0..<8 { h ^= b & 0xFF; h = h &* 0x100_0000_01B3; b >>= 8 }
        }
        for i in 0..<f.x.count { eat(f.x[i]); eat(f.y[i]) }
        eat(f.cursorX); eat(f.baseY)
        return h
    }

    static let background = Color(rgb: 0x0D1117)
    static let lineColor = Color(rgb: 0x00C805)
    static let baselineColor = Color(rgb: 0xA0A0A0)
    static let cursorColor = Color(rgb: 0x8B949E)

    /// Draws SCENE.md §5 steps 1-6 into `canvas`, inside `clip` if given.
    public static func draw(_ L: Layout, _ f: Frame, on canvas: Canvas, clip: IntRect? = nil) {
        canvas.clip = (clip ?? canvas.bounds).intersection(canvas.bounds)
        canvas.clear(background)
        let n = f.x.count
        var area = Path(reservingCapacity: n + 3)
        let points = (0..<n).lazy.map { Point(f.x[$0], f.y[$0]) }
        area.addPolyline(points)
        area.line(to: Point(f.x[n - 1], L.bottom))
        area.line(to: Point(f.x[0], L.bottom))
        area.close()
        let gradient = LinearGradient(start: Point(0, L.yHi), end: Point(0, L.bottom), stops: [
            (0, Color(red: 0, green: 200, blue: 5, alpha: 64)), (1, Color(red: 0, green: 200, blue: 5, alpha: 0)),
        ])
        canvas.fill(area, paint: .linearGradient(gradient))

        var baseline = Path()
        baseline.move(to: Point(L.left, f.baseY)); baseline.line(to: Point(L.right, f.baseY))
        canvas.stroke(baseline, style: StrokeStyle(width: L.hairWidth, cap: .butt, dashes: [L.dashOn, L.dashOff]),
                      paint: .solid(baselineColor))

        var cursor = Path()
        cursor.move(to: Point(f.cursorX, L.top)); cursor.line(to: Point(f.cursorX, L.bottom))
        canvas.stroke(cursor, style: StrokeStyle(width: L.hairWidth, cap: .butt), paint: .solid(cursorColor))

        var line = Path(reservingCapacity: n)
        line.addPolyline(points)
        canvas.stroke(line, style: StrokeStyle(width: L.lineWidth, cap: .round, join: .round), paint: .solid(lineColor))

        var dot = Path()
        dot.addCircle(center: Point(f.x[f.cursor], f.y[f.cursor]), radius: L.dotRadius)
        canvas.fill(dot, paint: .solid(lineColor))
        canvas.finish()
        canvas.clip = canvas.bounds
    }
}
