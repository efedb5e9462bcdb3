/// A point in pixels; y grows downwards and pixel (i, j) covers [i, i+1) x [j, j+1).
public struct Point: Equatable, Hashable, Sendable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }

    public var isFinite: Bool { x.isFinite && y.isFinite }

    @inlinable static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    @inlinable static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    @inlinable static func * (a: Point, s: Double) -> Point { Point(a.x * s, a.y * s) }

    @inlinable func distance(to other: Point) -> Double {
        let dx = other.x - x, dy = other.y - y
        return (dx * dx + dy * dy).squareRoot()
    }
}

/// An affine transform `x' = a*x + c*y + tx`, `y' = b*x + d*y + ty`.
public struct Transform: Equatable, Sendable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    public static let identity = Transform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public static func translation(_ x: Double, _ y: Double) -> Transform {
        Transform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public static func scale(_ sx: Double, _ sy: Double) -> Transform {
        Transform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
    }

    /// Rotation by a multiple of 90 degrees (clockwise on screen) that keeps a `width` x `height`
    /// picture inside the rotated target: what a display mounted on its side needs.
    public static func rotation(quarterTurns: Int, width: Double, height: Double) -> Transform {
        switch ((quarterTurns % 4) + 4) % 4 {
        case 1: return Transform(a: 0, b: 1, c: -1, d: 0, tx: height, ty: 0)
        case 2: return Transform(a: -1, b: 0, c: 0, d: -1, tx: width, ty: height)
        case 3: return Transform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: width)
        default: return .identity
        }
    }

    /// `self` applied first, then `next`.
    public func then(_ next: Transform) -> Transform {
        Transform(a: a * next.a + b * next.c, b: a * next.b + b * next.d,
                  c: c * next.a + d * next.c, d: c * next.b + d * next.d,
                  tx: tx * next.a + ty * next.c + next.tx, ty: tx * next.b + ty * next.d + next.ty)
    }

    @inlinable public func apply(_ p: Point) -> Point {
        Point(a * p.x + c * p.y + tx, b * p.x + d * p.y + ty)
    }

    /// How much the transform scales lengths (exact for the similarity transforms we use).
    public var lengthScale: Double { abs(a * d - b * c).squareRoot() }

    public var isIdentity: Bool { self == .identity }
}
