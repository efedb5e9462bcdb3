/// Formats prices, signed changes and percentages the way a configured market shows them, e.g.
/// `$12,345.67` or `12.345,67 €`, without Foundation (no locale database on the kiosk: `NumberLocale`
/// and `Currency` carry the few CLDR and ISO 4217 facts needed).
///
/// Rounding is half away from zero on the shortest decimal form of the `Double` (the digits Swift
/// prints), so 1.005 shows as 1.01, as a person reading the data file expects, rather than 1.00 as
/// `printf` would (it rounds the binary value 1.00499…).
public struct PriceFormat: Sendable, Equatable, Hashable {
    public enum SymbolPosition: Sendable, Equatable, Hashable {
        case before
        case after
    }

    /// Digits after the decimal separator (clamped to 0...12).
    public var decimals: Int
    /// Between groups of integer digits, e.g. "," or "." or "\u{202F}"; empty for none.
    public var groupingSeparator: String
    /// Digits per group (3 nearly everywhere); 0 for no grouping.
    public var groupingSize: Int
    /// Digits per group before the first one (2 in en-IN: 12,34,567); 0 means `groupingSize`.
    public var secondaryGroupingSize = 0
    /// When set, prices under 1 get more decimals than `decimals` so that this many significant
    /// digits show (0.0034 is "0.003400", not "0.00"). Nil when the decimals are fixed (the config's
    /// `decimals` override).
    public var significantDigits: Int?
    public var decimalSeparator: String
    /// e.g. "$" or "€"; empty for none.
    public var currencySymbol: String
    public var symbolPosition: SymbolPosition
    /// Between the number and the symbol: "" for `$12.00`, " " for `12,00 €`.
    public var symbolSpacing: String
    public var plusSign: String
    /// U+2212 MINUS SIGN by default: as wide as "+", unlike the hyphen. The layout draws "-" instead
    /// if the font lacks it; `usingMinusSign(supportedBy:)` makes that choice explicit.
    public var minusSign: String
    /// Between the number and "%": " " for `+1.23 %`, "" for `+1.23%`.
    public var percentSpacing: String

    public init(decimals: Int = 2, groupingSeparator: String = ",", groupingSize: Int = 3,
                decimalSeparator: String = ".", currencySymbol: String = "$", symbolPosition: SymbolPosition = .before,
                symbolSpacing: String = "", plusSign: String = "+", minusSign: String = "\u{2212}",
                percentSpacing: String = "") {
        self.decimals = decimals
        self.groupingSeparator = groupingSeparator
        self.groupingSize = groupingSize
        self.decimalSeparator = decimalSeparator
        self.currencySymbol = currencySymbol
        self.symbolPosition = symbolPosition
        self.symbolSpacing = symbolSpacing
        self.plusSign = plusSign
        self.minusSign = minusSign
        self.percentSpacing = percentSpacing
    }

    /// `$12,345.67`, `+1.23%`.
    public static let usDollar = PriceFormat()
    /// `12.345,67 €`, `+1,23 %`.
    public static let euroGerman = PriceFormat(groupingSeparator: ".", decimalSeparator: ",", currencySymbol: "€",
                                               symbolPosition: .after, symbolSpacing: " ", percentSpacing: " ")

    /// Shown for NaN and infinities: a missing value, not a number.
    public static let placeholder = "\u{2014}"

    /// This format with a plain "-" as minus sign if `face` has no U+2212.
    public func usingMinusSign(supportedBy face: FontFace) -> PriceFormat {
        var copy = self
        if let scalar = minusSign.unicodeScalars.first, minusSign.unicodeScalars.count == 1,
           !face.hasGlyph(for: scalar) {
            copy.minusSign = "-"
        }
        return copy
    }

    /// The decimals a price of `magnitude` shows: `decimals`, or more for a sub-unit price when
    /// `significantDigits` is set (4 digits: 0.5 → 0.5000, 0.0034 → 0.003400; at most 12).
    public func decimals(forMagnitude magnitude: Double) -> Int {
        guard let significantDigits, magnitude.isFinite, magnitude > 0, magnitude.magnitude < 1 else { return decimals }
        var leadingZeros = 0  // after the decimal point, before the first significant digit
        var m = magnitude.magnitude
        while m < 0.1, leadingZeros < 12 { m *= 10; leadingZeros += 1 }
        return min(12, max(decimals, leadingZeros + significantDigits))
    }

    /// This format with the decimals fixed for prices of `magnitude`: one instrument's price,
    /// change and scrubbed values then share a number of decimals, so digits do not come and go
    /// as the price moves.
    public func adapted(toMagnitude magnitude: Double) -> PriceFormat {
        var copy = self
        copy.decimals = decimals(forMagnitude: magnitude)
        copy.significantDigits = nil
        return copy
    }

    /// A price with the currency symbol: `$12,345.67`, `12.345,67 €`, `−$3.10` (no "+" for positives).
    public func price(_ value: Double) -> String {
        guard let (digits, negative) = number(value, decimals: decimals(forMagnitude: value.magnitude)) else {
            return Self.placeholder
        }
        return (negative ? minusSign : "") + withSymbol(digits)
    }

    /// The number alone, grouped, with a minus sign if negative: `12,345.67`.
    public func number(_ value: Double) -> String {
        guard let (digits, negative) = number(value, decimals: decimals) else { return Self.placeholder }
        return (negative ? minusSign : "") + digits
    }

    /// A signed change: `+1.23`, `−0.45`; with `currency`, `+$1.23`, `−0,45 €`. A change that rounds
    /// to zero has no sign (`0.00`), since it is neither up nor down.
    public func change(_ delta: Double, currency: Bool = false) -> String {
        guard let (digits, negative) = number(delta, decimals: decimals) else { return Self.placeholder }
        let body = currency ? withSymbol(digits) : digits
        return sign(digits: digits, negative: negative) + body
    }

    /// A signed percentage of a value already in percent: `percent(1.234)` is `+1.23%` (or `+1,23 %`).
    public func percent(_ percentValue: Double, decimals percentDecimals: Int = 2) -> String {
        guard let (digits, negative) = number(percentValue, decimals: percentDecimals) else {
            return Self.placeholder
        }
        return sign(digits: digits, negative: negative) + digits + percentSpacing + "%"
    }

    private func sign(digits: String, negative: Bool) -> String {
        if !digits.utf8.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) { return "" }
        return negative ? minusSign : plusSign
    }

    private func withSymbol(_ digits: String) -> String {
        guard !currencySymbol.isEmpty else { return digits }
        return symbolPosition == .before ? currencySymbol + symbolSpacing + digits
            : digits + symbolSpacing + currencySymbol
    }

    /// Grouped digits of |value| rounded to `places`, and whether the value is negative and does not
    /// round to zero. Nil for NaN and infinities.
    private func number(_ value: Double, decimals places: Int) -> (String, Bool)? {
        guard value.isFinite else { return nil }
        let places = min(max(places, 0), 12)
        var (digits, point) = Self.decimalDigits(of: value.magnitude)
        Self.round(&digits, point: &point, places: places)
        var out = ""
        out.reserveCapacity(digits.count + digits.count / 3 + 4)
        let secondary = secondaryGroupingSize > 0 ? secondaryGroupingSize : groupingSize
        for i in 0..<point {
            // Digits left of position i: a separator where the first group (next to the decimal
            // point) ends, then after every `secondary` digits.
            let left = point - i
            if i > 0, groupingSize > 0, left == groupingSize || (left > groupingSize && (left - groupingSize) % secondary == 0) {
                out += groupingSeparator
            }
            out.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "0") + digits[i]))
        }
        if places > 0 {
            out += decimalSeparator
            for d in digits[point...] { out.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "0") + d)) }
        }
        let isZero = !digits.contains(where: { $0 != 0 })
        return (out, value < 0 && !isZero)
    }

    /// The shortest round-trip decimal digits of a non-negative finite value and the position of the
    /// decimal point in them (digits before it), parsed from Swift's `description`
    /// ("123.45", "1e-05", "1.2345e+16").
    private static func decimalDigits(of magnitude: Double) -> ([UInt8], Int) {
        let text = Array(magnitude.description.utf8)
        var digits: [UInt8] = []
        var point: Int?
        var exponent = 0
        var i = 0
        while i < text.count {
            let c = text[i]
            if c == UInt8(ascii: ".") {
                point = digits.count
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                var sign = 1
                i += 1
                if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
                    if text[i] == UInt8(ascii: "-") { sign = -1 }
                    i += 1
                }
                while i < text.count { exponent = exponent * 10 + Int(text[i] &- UInt8(ascii: "0")); i += 1 }
                exponent *= sign
                break
            } else {
                digits.append(c &- UInt8(ascii: "0"))
            }
            i += 1
        }
        return (digits, (point ?? digits.count) + exponent)
    }

    /// Rounds the digit string (value = 0.d₁d₂… × 10^point) to `places` decimals, half away from
    /// zero, and pads it so there is at least one integer digit and exactly `places` fraction digits.
    private static func round(_ digits: inout [UInt8], point: inout Int, places: Int) {
        if point < 1 {
            digits.insert(contentsOf: repeatElement(0, count: 1 - point), at: 0)
            point = 1
        }
        let keep = point + places
        if digits.count > keep {
            let roundUp = digits[keep] >= 5
            digits.removeSubrange(keep...)
            if roundUp {
                var i = keep - 1
                while i >= 0 {
                    if digits[i] == 9 { digits[i] = 0; i -= 1 } else { digits[i] += 1; break }
                }
                if i < 0 { digits.insert(1, at: 0); point += 1 }
            }
        } else {
            digits.append(contentsOf: repeatElement(0, count: keep - digits.count))
        }
        // Leading zeros from the description ("0.5" → 0,5) or padding, beyond the first integer digit.
        var leading = 0
        while leading < point - 1, digits[leading] == 0 { leading += 1 }
        if leading > 0 { digits.removeFirst(leading); point -= leading }
    }
}
