// Exact decimal numbers for money: quantities, costs, prices, exchange rates and their sums.
//
// Binary floating point cannot hold 0.10 or 151.20, and a position's value printed from a Double
// can be a cent off an owner's statement. This is a fixed-point decimal: a 128-bit integer count of
// 10⁻¹² units, so every config number (at most 12 decimals) is held exactly, sums are exact, and a
// product or quotient is rounded once, at 12 decimals, half to even. Money is rounded to a
// currency's minor units only where it is shown or summed as a statement line (`rounded(to:)`).
//
// Why half to even: it is the IEEE 754 default and Python's `decimal` default (the independent
// check in Tests/Portfolio uses it unchanged), and over the many roundings of a portfolio it has
// no bias: halves go up as often as down, so a sum of rounded lines drifts less than half-up's.
// Foundation's Decimal is not used: swift-corelibs-foundation's is a separate implementation with
// its own rounding, and Feed links no Foundation.

/// A decimal number with 12 fractional digits, exact for every value written with at most 12.
public struct ExactDecimal: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The value times 10¹².
    public let units: Int128

    public static let scale = 12
    static let one: Int128 = 1_000_000_000_000
    /// The largest magnitude any operation returns (10¹⁸): a product or a sum of up to millions of
    /// such values cannot overflow the 128-bit units (10³⁸), so only multiplication and division
    /// check, and they return nil past it.
    public static let bound = ExactDecimal(units: 1_000_000_000_000_000_000 * one)

    public static let zero = ExactDecimal(units: 0)

    public init(units: Int128) { self.units = units }

    public init(_ integer: Int) { units = Int128(integer) * Self.one }

    public var isZero: Bool { units == 0 }
    public var isNegative: Bool { units < 0 }
    public var magnitude: ExactDecimal { ExactDecimal(units: units < 0 ? -units : units) }

    public static func < (a: ExactDecimal, b: ExactDecimal) -> Bool { a.units < b.units }
    public static func + (a: ExactDecimal, b: ExactDecimal) -> ExactDecimal { ExactDecimal(units: a.units + b.units) }
    public static func - (a: ExactDecimal, b: ExactDecimal) -> ExactDecimal { ExactDecimal(units: a.units - b.units) }
    public static prefix func - (a: ExactDecimal) -> ExactDecimal { ExactDecimal(units: -a.units) }
    public static func += (a: inout ExactDecimal, b: ExactDecimal) { a = a + b }

    /// Powers of ten up to 10³⁸ fit UInt128; only 0...24 are used.
    static func power(_ n: Int) -> UInt128 {
        var p: UInt128 = 1
        for _ in 0..<n { p *= 10 }
        return p
    }

    /// `numerator / divisor` rounded half to even, for magnitudes (the caller applies the sign).
    static func divideRounding(_ high: UInt128, _ low: UInt128, by divisor: UInt128) -> UInt128? {
        // The quotient fits 128 bits only when the high word is smaller than the divisor.
        guard high < divisor else { return nil }
        let (q, r) = divisor.dividingFullWidth((high: high, low: low))
        let twice = r.multipliedReportingOverflow(by: 2)
        // r < divisor, so 2r overflows only when it is certainly more than the divisor.
        let roundUp = twice.overflow || twice.partialValue > divisor || (twice.partialValue == divisor && q % 2 == 1)
        if roundUp {
            let next = q.addingReportingOverflow(1)
            return next.overflow ? nil : next.partialValue
        }
        return q
    }

    static func make(negative: Bool, magnitude: UInt128) -> ExactDecimal? {
        guard magnitude <= UInt128(bound.units) else { return nil }
        let u = Int128(magnitude)
        return ExactDecimal(units: negative ? -u : u)
    }

    /// The product, rounded half to even at 12 decimals; nil past `bound`.
    public func multiplied(by other: ExactDecimal) -> ExactDecimal? {
        let p = units.magnitude.multipliedFullWidth(by: other.units.magnitude)
        guard let q = Self.divideRounding(p.high, p.low, by: UInt128(Self.one)) else { return nil }
        return Self.make(negative: (units < 0) != (other.units < 0) && q != 0, magnitude: q)
    }

    /// The quotient, rounded half to even at 12 decimals; nil for a zero divisor or past `bound`.
    public func divided(by other: ExactDecimal) -> ExactDecimal? {
        guard other.units != 0 else { return nil }
        let p = units.magnitude.multipliedFullWidth(by: UInt128(Self.one))
        guard let q = Self.divideRounding(p.high, p.low, by: other.units.magnitude) else { return nil }
        return Self.make(negative: (units < 0) != (other.units < 0) && q != 0, magnitude: q)
    }

    /// Multiplied or divided by a power of ten (GBp to GBP is `shifted(by: -2)`): exact while the
    /// digits fit 12 decimals, else rounded half to even.
    public func shifted(by places: Int) -> ExactDecimal? {
        if places >= 0 {
            let p = units.magnitude.multipliedFullWidth(by: Self.power(min(places, 24)))
            guard p.high == 0 else { return nil }
            return Self.make(negative: units < 0, magnitude: p.low)
        }
        guard let q = Self.divideRounding(0, units.magnitude, by: Self.power(min(-places, 24))) else { return nil }
        return Self.make(negative: units < 0 && q != 0, magnitude: q)
    }

    /// Rounded half to even to `decimals` (0...12): a currency's minor units for a statement line.
    public func rounded(to decimals: Int) -> ExactDecimal {
        let d = max(0, min(Self.scale, decimals))
        let step = Self.power(Self.scale - d)
        // Cannot fail: the magnitude only shrinks (or grows by less than one step, within the bound's margin).
        let q = Self.divideRounding(0, units.magnitude, by: step) ?? 0
        let u = Int128(q * step)
        return ExactDecimal(units: units < 0 ? -u : u)
    }

    /// Plain digits with exactly `decimals` decimals after rounding half to even: `-1234.50`.
    public func formatted(decimals: Int) -> String {
        let d = max(0, min(Self.scale, decimals))
        let r = rounded(to: d)
        let mag = r.units.magnitude
        let whole = mag / UInt128(Self.one)
        var text = (r.units < 0 ? "-" : "") + String(whole)
        if d > 0 {
            let fraction = (mag % UInt128(Self.one)) / Self.power(Self.scale - d)
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: d - digits.count) + digits
        }
        return text
    }

    /// The shortest exact text: `151.2`, `-0.000001`, `12`.
    public var description: String {
        var text = formatted(decimals: Self.scale)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// The nearest Double (for drawing only: a chart's y is a pixel, not money).
    public var doubleValue: Double {
        let whole = units / Self.one, fraction = units % Self.one
        return Double(whole) + Double(fraction) / 1e12
    }

    /// Parses `151.20`, `-3`, `+0.5`, `1e-05`, `2.5E+3` exactly. Nil for anything else, for more
    /// than 12 decimals (a config value is never silently rounded), or past 10¹⁸.
    public init?(_ text: some StringProtocol) {
        guard let parsed = Self.parse(Substring(text), roundingExcess: false) else { return nil }
        self = parsed
    }

    /// The decimal a Double was written as: the shortest text that reads back as the same Double
    /// (Swift's `description`), so a CSV's `151.2` becomes exactly 151.2, not 151.19999999999998863.
    /// Digits past 12 decimals are rounded half to even. Nil for infinities, NaN and past 10¹⁸.
    public init?(shortest value: Double) {
        guard value.isFinite else { return nil }
        guard let parsed = Self.parse(Substring(value.description), roundingExcess: true) else { return nil }
        self = parsed
    }

    static func parse(_ text: Substring, roundingExcess: Bool) -> ExactDecimal? {
        var s = text.unicodeScalars[...]
        var negative = false
        if let c = s.first, c == "-" || c == "+" { negative = c == "-"; s = s.dropFirst() }
        var digits: [UInt8] = []
        var pointAt: Int?
        var exponent = 0
        var sawDigit = false
        while let c = s.first {
            if c.value >= 48 && c.value <= 57 {
                sawDigit = true
                // Leading zeros carry nothing (and would only lengthen the digit list).
                if !(digits.isEmpty && c == "0" && pointAt == nil) { digits.append(UInt8(c.value - 48)) }
            } else if c == ".", pointAt == nil {
                pointAt = digits.count
            } else if c == "e" || c == "E" {
                s = s.dropFirst()
                var expNegative = false
                if let sign = s.first, sign == "-" || sign == "+" { expNegative = sign == "-"; s = s.dropFirst() }
                guard !s.isEmpty, s.count <= 3, s.allSatisfy({ $0.value >= 48 && $0.value <= 57 }) else { return nil }
                for e in s { exponent = exponent * 10 + Int(e.value - 48) }
                if expNegative { exponent = -exponent }
                s = s[s.endIndex...]
                break
            } else {
                return nil
            }
            s = s.dropFirst()
        }
        guard sawDigit else { return nil }
        // value = 0.d1d2d3... shifted: digits with (count - point) decimals, times 10^exponent.
        let integerDigits = (pointAt ?? digits.count) + exponent
        let decimals = digits.count - integerDigits
        guard integerDigits <= 19 else { return digits.isEmpty ? .zero : nil }
        // Below 10⁻¹³ everything rounds to zero.
        if integerDigits < -scale { return roundingExcess || digits.allSatisfy({ $0 == 0 }) ? .zero : nil }
        if decimals > scale {
            guard roundingExcess else {
                // Trailing zeros past 12 decimals are still exact.
                let extra = digits.suffix(decimals - scale)
                guard extra.allSatisfy({ $0 == 0 }) else { return nil }
                return parse(digitsOf: Array(digits.dropLast(decimals - scale)), decimals: scale, negative: negative)
            }
            // Keep 12 decimals and round half to even on what follows.
            let keep = max(0, digits.count - (decimals - scale))
            var kept = parse(digitsOf: Array(digits.prefix(keep)), decimals: keep - integerDigits, negative: false)?.units ?? 0
            let rest = Array(digits.dropFirst(keep))
            if let first = rest.first {
                let tail = rest.dropFirst().contains { $0 != 0 }
                if first > 5 || (first == 5 && (tail || kept % 2 != 0)) { kept += 1 }
            }
            return make(negative: negative && kept != 0, magnitude: UInt128(kept))
        }
        return parse(digitsOf: digits, decimals: decimals, negative: negative)
    }

    static func parse(digitsOf digits: [UInt8], decimals: Int, negative: Bool) -> ExactDecimal? {
        var u: UInt128 = 0
        for d in digits {
            let m = u.multipliedReportingOverflow(by: 10)
            guard !m.overflow else { return nil }
            u = m.partialValue + UInt128(d)
        }
        let shift = scale - decimals
        if shift > 0 {
            guard shift <= 38 else { return u == 0 ? .zero : nil }
            let p = u.multipliedFullWidth(by: power(min(shift, 38)))
            guard p.high == 0 else { return nil }
            u = p.low
        } else if shift < 0 {
            return nil
        }
        return make(negative: negative && u != 0, magnitude: u)
    }
}
