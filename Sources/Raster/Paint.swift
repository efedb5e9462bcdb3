/// A linear gradient between two points, padded beyond its ends. Stops are straight-alpha colours;
/// interpolation happens on premultiplied values so a fade to transparent never darkens.
public struct LinearGradient: Sendable, Equatable {
    public var start: Point
    public var end: Point
    public var stops: [(offset: Double, color: Color)]

    public init(start: Point, end: Point, stops: [(offset: Double, color: Color)]) {
        self.start = start
        self.end = end
        self.stops = stops.filter { $0.offset.isFinite }.sorted { $0.offset < $1.offset }
    }

    public static func == (a: LinearGradient, b: LinearGradient) -> Bool {
        a.start == b.start && a.end == b.end && a.stops.count == b.stops.count
            && zip(a.stops, b.stops).allSatisfy { $0.offset == $1.offset && $0.color == $1.color }
    }

    /// Premultiplied colours at `lutSize` evenly spaced offsets from 0 to 1.
    func lookupTable() -> [UInt32] {
        let size = Self.lutSize
        guard let first = stops.first else { return Array(repeating: 0, count: size) }
        var table = [UInt32](repeating: 0, count: size)
        for i in 0..<size {
            let t = Double(i) / Double(size - 1)
            var lower = first, upper = stops[stops.count - 1]
            for s in stops {
                if s.offset <= t { lower = s }
                if s.offset >= t { upper = s; break }
            }
            let f = upper.offset > lower.offset ? (t - lower.offset) / (upper.offset - lower.offset) : 0
            func premul(_ c: Color) -> (Double, Double, Double, Double) {
                let a = Double(c.alpha) / 255
                return (Double(c.red) * a, Double(c.green) * a, Double(c.blue) * a, Double(c.alpha))
            }
            let p = premul(lower.color), q = premul(upper.color)
            func ch(_ u: Double, _ v: Double) -> UInt32 { UInt32(min(255, max(0, (u + (v - u) * f).rounded()))) }
            table[i] = ch(p.3, q.3) << 24 | ch(p.0, q.0) << 16 | ch(p.1, q.1) << 8 | ch(p.2, q.2)
        }
        return table
    }

    static let lutSize = 1024
}

/// What a shape is painted with.
public enum Paint: Sendable, Equatable {
    case solid(Color)
    case linearGradient(LinearGradient)
}

/// How painted pixels combine with what is already there.
public enum BlendMode: Sendable {
    /// Porter-Duff source-over: the usual painting.
    case sourceOver
    /// Replace what is under the shape (anti-aliased edges blend linearly with the old pixel).
    case sourceCopy
}

/// A paint prepared for one draw call: a solid pixel, or a gradient lookup table with its projection.
struct PreparedPaint {
    let solid: UInt32
    let isSolid: Bool
    let isOpaque: Bool
    let table: [UInt32]
    // Gradient position t = (x - sx) * ux + (y - sy) * uy, scaled to table indices.
    let sx: Double, sy: Double, ux: Double, uy: Double

    /// The last gradient's lookup table, kept by the canvas: a chart fills with the same gradient
    /// frame after frame, and building the table costs more than the fill's edges.
    struct TableCache {
        var stops: [(offset: Double, color: Color)] = []
        var table: [UInt32] = []

        mutating func table(for g: LinearGradient) -> [UInt32] {
            if table.isEmpty || stops.count != g.stops.count
                || !zip(stops, g.stops).allSatisfy({ $0.offset == $1.offset && $0.color == $1.color }) {
                stops = g.stops
                table = g.lookupTable()
            }
            return table
        }
    }

    init(_ paint: Paint, transform: Transform) {
        var cache = TableCache()
        self.init(paint, transform: transform, cache: &cache)
    }

    init(_ paint: Paint, transform: Transform, cache: inout TableCache) {
        switch paint {
        case .solid(let c):
            solid = c.premultiplied; isSolid = true; isOpaque = c.alpha == 255
            table = []; sx = 0; sy = 0; ux = 0; uy = 0
        case .linearGradient(let g):
            let a = transform.apply(g.start), b = transform.apply(g.end)
            let dx = b.x - a.x, dy = b.y - a.y
            let len2 = dx * dx + dy * dy
            let lut = cache.table(for: g)
            table = lut
            isSolid = false
            solid = 0
            isOpaque = lut.allSatisfy { $0 >> 24 == 255 }
            sx = a.x; sy = a.y
            let scale = len2 > 0 && len2.isFinite ? Double(LinearGradient.lutSize - 1) / len2 : 0
            ux = dx * scale; uy = dy * scale
        }
    }

    /// True when every pixel of a row has the same colour (solid, or a gradient along y only).
    var isConstantAlongRows: Bool { isSolid || ux == 0 }

    @inline(__always)
    func color(x: Int, y: Int) -> UInt32 {
        if isSolid { return solid }
        let t = (Double(x) + 0.5 - sx) * ux + (Double(y) + 0.5 - sy) * uy
        let last = Double(table.count - 1)
        let i = t <= 0 ? 0 : (t >= last ? table.count - 1 : Int(t + 0.5))
        return table[i]
    }
}
