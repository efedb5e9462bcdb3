/// Maps positions on the physical panel (what libinput's `*_transformed` calls give for the panel's
/// mode size) into the logical picture the renderer draws, which it rotates onto the panel with
/// Raster's `Transform.rotation(quarterTurns:width:height:)`. This is that transform's exact inverse.
///
/// Positions are in pixel units where the value `n` means pixel `n` (a device whose axis range is
/// 0...W-1 reports pixel indices, and libinput's transformed coordinates then map 1:1). The
/// rotation is therefore inverted about pixel centres: logical pixel `p` is drawn on panel pixel
/// `q = T(p + ½) - ½`, and `logicalPoint(q)` returns `p` exactly, for every rotation.
public struct TouchMapping: Equatable, Sendable {
    /// The panel's mode size in pixels (the size passed to libinput's transformed coordinates).
    public var panelWidth: Int
    public var panelHeight: Int
    /// Clockwise quarter turns from the logical picture to the panel, 0...3 (rotation / 90).
    public private(set) var quarterTurns: Int

    /// The safe area's margins on the panel (its own orientation, `[display] safe-area`): the
    /// picture is drawn inside them, so a touch is told in the picture's coordinates.
    public private(set) var marginX = 0
    public private(set) var marginY = 0

    /// `panelWidth` x `panelHeight` panel showing a picture rotated by `quarterTurns` clockwise,
    /// `marginX`/`marginY` in from its edges.
    public init(panelWidth: Int, panelHeight: Int, quarterTurns: Int = 0, marginX: Int = 0, marginY: Int = 0) {
        self.panelWidth = max(0, panelWidth)
        self.panelHeight = max(0, panelHeight)
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.marginX = min(max(0, marginX), self.panelWidth / 2)
        self.marginY = min(max(0, marginY), self.panelHeight / 2)
    }

    /// `rotation` in degrees: 0, 90, 180 or 270 (anything else: nil).
    public init?(panelWidth: Int, panelHeight: Int, rotationDegrees: Int) {
        guard rotationDegrees % 90 == 0 else { return nil }
        self.init(panelWidth: panelWidth, panelHeight: panelHeight, quarterTurns: rotationDegrees / 90)
    }

    /// The logical picture's width: the panel's, or its height when turned by 90 or 270 degrees,
    /// less the safe area's margins.
    public var logicalWidth: Int { turnedWidth - 2 * logicalMargins.x }
    public var logicalHeight: Int { turnedHeight - 2 * logicalMargins.y }
    /// The panel's size and margins in the picture's orientation.
    private var turnedWidth: Int { quarterTurns % 2 == 0 ? panelWidth : panelHeight }
    private var turnedHeight: Int { quarterTurns % 2 == 0 ? panelHeight : panelWidth }
    private var logicalMargins: (x: Int, y: Int) { quarterTurns % 2 == 0 ? (marginX, marginY) : (marginY, marginX) }

    /// Whether there is anything to map onto (a display with no mode has a zero size).
    public var hasArea: Bool { panelWidth > 0 && panelHeight > 0 }

    /// The logical position of panel position (`x`, `y`), clamped to the picture's pixels
    /// (0...logicalWidth-1, 0...logicalHeight-1). Non-finite input gives nil.
    public func logicalPoint(x: Double, y: Double) -> (x: Double, y: Double)? {
        guard x.isFinite, y.isFinite, hasArea else { return nil }
        let p = unclampedLogicalPoint(x: x, y: y)
        return (clamp(p.x, Double(logicalWidth - 1)), clamp(p.y, Double(logicalHeight - 1)))
    }

    /// The inverse rotation without clamping (for tests and for the rotation maths).
    public func unclampedLogicalPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        // Inverse of Transform.rotation about pixel centres. With W x H the turned panel's size:
        //   1 turn:  panel = (H - 1 - ly, lx)      3 turns: panel = (ly, W - 1 - lx)
        //   2 turns: panel = (W - 1 - lx, H - 1 - ly)
        let w = Double(turnedWidth), h = Double(turnedHeight)
        let m = logicalMargins, mx = Double(m.x), my = Double(m.y)
        switch quarterTurns {
        case 1: return (y - mx, h - 1 - x - my)
        case 2: return (w - 1 - x - mx, h - 1 - y - my)
        case 3: return (w - 1 - y - mx, x - my)
        default: return (x - mx, y - my)
        }
    }

    /// Where logical position (`x`, `y`) is on the panel: the inverse of `unclampedLogicalPoint`.
    public func panelPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        let w = Double(turnedWidth), h = Double(turnedHeight)
        let m = logicalMargins, lx = x + Double(m.x), ly = y + Double(m.y)
        switch quarterTurns {
        case 1: return (h - 1 - ly, lx)
        case 2: return (w - 1 - lx, h - 1 - ly)
        case 3: return (ly, w - 1 - lx)
        default: return (lx, ly)
        }
    }

    private func clamp(_ v: Double, _ upper: Double) -> Double {
        min(max(v, 0), max(upper, 0))
    }
}

/// libinput's calibration matrix: the top two rows of a 3x3 affine matrix applied to *normalised*
/// device coordinates (0...1 on each axis), `x' = a*x + b*y + c`, `y' = d*x + e*y + f`. udev sets a
/// device's default with `LIBINPUT_CALIBRATION_MATRIX`; ours from the config is composed with it.
public struct CalibrationMatrix: Equatable, Sendable, CustomStringConvertible {
    public var a: Float, b: Float, c: Float, d: Float, e: Float, f: Float

    public init(a: Float, b: Float, c: Float, d: Float, e: Float, f: Float) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.e = e; self.f = f
    }

    /// From six values in libinput's order (a b c d e f); nil unless exactly six finite values.
    public init?(_ values: [Float]) {
        guard values.count == 6, values.allSatisfy({ $0.isFinite }) else { return nil }
        self.init(a: values[0], b: values[1], c: values[2], d: values[3], e: values[4], f: values[5])
    }

    /// Parses "a b c d e f" (spaces and/or commas), the udev property's and our config's format.
    public init?(parsing text: String) {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        var values: [Float] = []
        for part in parts {
            guard let v = Float(part) else { return nil }
            values.append(v)
        }
        self.init(values)
    }

    public static let identity = CalibrationMatrix(a: 1, b: 0, c: 0, d: 0, e: 1, f: 0)

    /// The six values in libinput's order.
    public var values: [Float] { [a, b, c, d, e, f] }

    public var isIdentity: Bool { self == .identity }

    /// `self` applied first, then `next`: the matrix product `next x self`.
    public func then(_ next: CalibrationMatrix) -> CalibrationMatrix {
        CalibrationMatrix(
            a: next.a * a + next.b * d, b: next.a * b + next.b * e, c: next.a * c + next.b * f + next.c,
            d: next.d * a + next.e * d, e: next.d * b + next.e * e, f: next.d * c + next.e * f + next.f)
    }

    /// Applies the matrix to a normalised point.
    public func apply(x: Float, y: Float) -> (x: Float, y: Float) {
        (a * x + b * y + c, d * x + e * y + f)
    }

    public var description: String { values.map { "\($0)" }.joined(separator: " ") }
}
