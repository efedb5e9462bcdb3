// Software dimming: colours scaled in linear light as they enter the rasterizer (a paint, a clear,
// a text colour), so a dimmed frame costs what a full one costs — no pass over the pixels — and
// a gradient is interpolated between dimmed stops at full table resolution (no new banding).

/// Scales colours to `level` (0...1) of their linear-light intensity. Alpha is kept: a blend of
/// two dimmed colours in sRGB is, to within the 8-bit rounding and the sRGB curve's linear toe,
/// the dimmed blend (the curve is close to a power law, which commutes with scaling).
public struct Dimming: Sendable, Equatable {
    public let level: Double
    /// sRGB byte in, dimmed sRGB byte out.
    private let table: [UInt8]

    /// nil at full level (nothing to do) or for a level that is not a number.
    public init?(level: Double) {
        guard level.isFinite, level < 1 else { return nil }
        let l = max(0, level)
        self.level = l
        var t = [UInt8](repeating: 0, count: 256)
        for i in 0..<256 {
            let encoded = Dimming.encode(Dimming.decode(Double(i) / 255) * l)
            t[i] = UInt8(min(255, max(0, (encoded * 255).rounded())))
        }
        table = t
    }

    public static func == (a: Dimming, b: Dimming) -> Bool { a.level == b.level }

    /// The sRGB transfer function and its inverse (IEC 61966-2-1).
    public static func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    public static func encode(_ v: Double) -> Double { v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    public func apply(_ c: Color) -> Color {
        Color(red: table[Int(c.red)], green: table[Int(c.green)], blue: table[Int(c.blue)], alpha: c.alpha)
    }

    public func apply(_ paint: Paint) -> Paint {
        switch paint {
        case .solid(let c): return .solid(apply(c))
        case .linearGradient(let g):
            return .linearGradient(LinearGradient(start: g.start, end: g.end, stops: g.stops.map { ($0.offset, apply($0.color)) }))
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
