// Byte-level primitives for the CSV parser: number and timestamp parsing straight from the file's
// bytes. They work on raw pointers and index ranges so a 100 MB file is parsed without creating a
// String per field; only the rare number the exact fast path cannot handle becomes a String.

import Glibc

enum ASCII {
    static let comma = UInt8(ascii: ",")
    static let quote = UInt8(ascii: "\"")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let zero = UInt8(ascii: "0")
    static let nine = UInt8(ascii: "9")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let colon = UInt8(ascii: ":")

    @inline(__always) static func isSpace(_ byte: UInt8) -> Bool { byte == space || byte == tab }
    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte &- zero < 10 }
    @inline(__always) static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

/// A half-open range of bytes inside the buffer being parsed.
struct ByteRange {
    var start: Int
    var end: Int
    var isEmpty: Bool { start >= end }
}

/// The first `byte` in `base[from..<to]`, via memchr: the hot loops find newlines and commas this way
/// because a byte-by-byte Swift loop is several times slower (and far slower in debug builds).
@inline(__always)
func findByte(_ byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
    guard from < to, let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
}

/// Does `base[range]` spell `word` (lowercase ASCII), ignoring case?
func bytesEqualIgnoringCase(_ base: UnsafePointer<UInt8>, _ range: ByteRange, _ word: StaticString) -> Bool {
    guard range.end - range.start == word.utf8CodeUnitCount else { return false }
    let letters = word.utf8Start
    for offset in 0..<word.utf8CodeUnitCount where ASCII.lowercased(base[range.start + offset]) != letters[offset] {
        return false
    }
    return true
}

// MARK: - Numbers

enum NumberField {
    case value(Double)
    /// Empty or `null`: the source says "no value" (yfinance and old Yahoo exports both do this).
    case missing
    case notANumber
    /// NaN, infinity, or a literal too large for a Double.
    case notFinite
}

enum DecimalParser {
    // Every power of ten up to 1e22 is exactly representable in a Double, which is what makes the
    // fast path below exact.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses a decimal number such as `-12.5`, `130.31`, `4.186662803811` or `1.5e-3` (no spaces,
    /// no hex, no thousands separators), correctly rounded.
    ///
    /// Clinger's fast path: a mantissa of at most 15 digits and a power of ten of at most 22 are both
    /// exact Doubles, so one IEEE multiply or divide gives the correctly rounded result. That covers
    /// every price a quote feed writes; anything longer goes to the stdlib's (exact) parser.
    static func parse(_ base: UnsafePointer<UInt8>, _ range: ByteRange) -> NumberField {
        var index = range.start
        let end = range.end
        if index >= end { return .missing }

        var negative = false
        if base[index] == ASCII.minus || base[index] == ASCII.plus {
            negative = base[index] == ASCII.minus
            index += 1
        }
        if index < end && !ASCII.isDigit(base[index]) && base[index] != ASCII.dot {
            let word = ByteRange(start: index, end: end)
            if index == range.start && bytesEqualIgnoringCase(base, word, "null") { return .missing }
            if bytesEqualIgnoringCase(base, word, "nan") || bytesEqualIgnoringCase(base, word, "inf")
                || bytesEqualIgnoringCase(base, word, "infinity")
            {
                return .notFinite
            }
            return .notANumber
        }

        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var sawDigit = false
        while index < end && ASCII.isDigit(base[index]) {
            let digit = UInt64(base[index] &- ASCII.zero)
            sawDigit = true
            if significantDigits < 19 {
                if mantissa != 0 || digit != 0 {
                    mantissa = mantissa &* 10 &+ digit
                    significantDigits += 1
                }
            } else {
                exponent += 1
                significantDigits += 1  // beyond 19: forces the slow path below
            }
            index += 1
        }
        if index < end && base[index] == ASCII.dot {
            index += 1
            while index < end && ASCII.isDigit(base[index]) {
                let digit = UInt64(base[index] &- ASCII.zero)
                sawDigit = true
                if significantDigits < 19 {
                    if mantissa != 0 || digit != 0 {
                        mantissa = mantissa &* 10 &+ digit
                        significantDigits += 1
                    }
                    exponent -= 1
                } else {
                    significantDigits += 1
                }
                index += 1
            }
        }
        guard sawDigit else { return .notANumber }

        if index < end && (base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E")) {
            index += 1
            var exponentNegative = false
            if index < end && (base[index] == ASCII.minus || base[index] == ASCII.plus) {
                exponentNegative = base[index] == ASCII.minus
                index += 1
            }
            guard index < end && ASCII.isDigit(base[index]) else { return .notANumber }
            var written = 0
            while index < end && ASCII.isDigit(base[index]) {
                // Clamped: anything this large is 0 or infinity anyway, and it cannot overflow.
                if written < 100_000 { written = written * 10 + Int(base[index] &- ASCII.zero) }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        guard index == end else { return .notANumber }

        if mantissa == 0 { return .value(negative ? -0.0 : 0.0) }
        if significantDigits <= 15 && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 {
                value /= exactPowersOfTen[-exponent]
            } else {
                value *= exactPowersOfTen[exponent]
            }
            return .value(negative ? -value : value)
        }
        let text = String(
            decoding: UnsafeBufferPointer(start: base + range.start, count: end - range.start),
            as: UTF8.self
        )
        guard let value = Double(text) else { return .notANumber }
        return value.isFinite ? .value(value) : .notFinite
    }
}

extension DecimalParser {
    /// Parses a number as German (and most of continental Europe's) exports write it: `23.874,12`,
    /// `-0,5`, `1.000.000`: points group thousands in threes, a comma is the decimal mark. A lone `-`
    /// (how such exports leave a volume out) is missing, as `null` is. Grouping in the wrong places
    /// (`1.23,4`) is not a number rather than a guess.
    static func parseDecimalComma(_ base: UnsafePointer<UInt8>, _ range: ByteRange) -> NumberField {
        let length = range.end - range.start
        if length == 1 && base[range.start] == ASCII.minus { return .missing }
        // No number needs more; a longer field is refused here instead of being copied.
        guard length <= 64 else { return .notANumber }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer -> NumberField in
            var out = 0
            var index = range.start
            var digitsInGroup = 0
            var sawGrouping = false
            var sawComma = false
            var integerDigits = 0
            while index < range.end {
                let byte = base[index]
                if byte == ASCII.dot && !sawComma {
                    // A point groups thousands: 1 to 3 digits before the first, exactly 3 between.
                    guard integerDigits > 0, sawGrouping ? digitsInGroup == 3 : digitsInGroup <= 3 else { return .notANumber }
                    sawGrouping = true
                    digitsInGroup = 0
                } else if byte == ASCII.comma && !sawComma {
                    if sawGrouping && digitsInGroup != 3 { return .notANumber }
                    sawComma = true
                    buffer[out] = ASCII.dot
                    out += 1
                } else {
                    if ASCII.isDigit(byte) && !sawComma {
                        digitsInGroup += 1
                        integerDigits += 1
                    } else if byte == ASCII.dot {
                        return .notANumber  // a point after the decimal comma
                    }
                    buffer[out] = byte
                    out += 1
                }
                index += 1
            }
            if sawGrouping && !sawComma && digitsInGroup != 3 { return .notANumber }
            return parse(UnsafePointer(buffer.baseAddress!), ByteRange(start: 0, end: out))
        }
    }
}

extension NumberField: Equatable {}

// MARK: - Timestamps

/// A parsed `Date` or `Datetime` cell.
struct Timestamp {
    /// The calendar date as written (local to whatever offset follows it).
    var daysSinceEpoch: Int
    /// Seconds after local midnight; 0 for a date alone.
    var secondOfDay: Int
    /// Seconds east of UTC, when the cell carries an offset (`-05:00`, `Z`).
    var utcOffset: Int?
    var hasTime: Bool

    /// The instant, reading a time without an offset as UTC.
    var unixTime: Int64 { Int64(daysSinceEpoch) * 86_400 + Int64(secondOfDay) - Int64(utcOffset ?? 0) }
}

enum TimestampParser {
    /// Parses `2024-03-01`, `2024-03-01 09:30:00-05:00`, `2024-03-01T14:30:00Z`, `2024-03-01 09:30`,
    /// `2024-03-01 09:30:00.000+0100`, and the same with the date as `01.03.2024`. Returns nil for anything else, including impossible dates
    /// (2023-02-29) and times (24:00), so the row is reported rather than silently moved.
    static func parse(_ base: UnsafePointer<UInt8>, _ range: ByteRange) -> Timestamp? {
        var index = range.start
        let end = range.end

        func digits(min: Int, max: Int) -> Int? {
            var value = 0
            var count = 0
            while index < end && count < max && ASCII.isDigit(base[index]) {
                value = value * 10 + Int(base[index] &- ASCII.zero)
                index += 1
                count += 1
            }
            return count >= min ? value : nil
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < end && base[index] == byte else { return false }
            index += 1
            return true
        }

        // ISO (`2024-03-01`) or, as German spreadsheets and brokers write it, `01.03.2024`.
        let date: CivilDate
        if let first = digits(min: 1, max: 4), index < end, base[index] == ASCII.dot {
            index += 1
            guard let month = digits(min: 1, max: 2), expect(ASCII.dot),
                let year = digits(min: 4, max: 4),
                let german = CivilDate(year: year, month: month, day: first)
            else { return nil }
            date = german
        } else {
            index = range.start
            guard let year = digits(min: 4, max: 4), expect(ASCII.minus),
                let month = digits(min: 1, max: 2), expect(ASCII.minus),
                let day = digits(min: 1, max: 2),
                let iso = CivilDate(year: year, month: month, day: day)
            else { return nil }
            date = iso
        }
        var stamp = Timestamp(daysSinceEpoch: date.daysSinceEpoch, secondOfDay: 0, utcOffset: nil, hasTime: false)
        if index == end { return stamp }

        guard base[index] == ASCII.space || base[index] == UInt8(ascii: "T") else { return nil }
        index += 1
        guard let hour = digits(min: 2, max: 2), hour < 24, expect(ASCII.colon),
            let minute = digits(min: 2, max: 2), minute < 60
        else { return nil }
        var second = 0
        if expect(ASCII.colon) {
            guard let value = digits(min: 2, max: 2), value < 60 else { return nil }
            second = value
            if expect(ASCII.dot) {
                // Sub-second digits: bars start on whole seconds, so they are read and dropped.
                guard digits(min: 1, max: 9) != nil else { return nil }
            }
        }
        stamp.secondOfDay = hour * 3600 + minute * 60 + second
        stamp.hasTime = true
        while index < end && ASCII.isSpace(base[index]) { index += 1 }
        if index == end { return stamp }

        if base[index] == UInt8(ascii: "Z") || base[index] == UInt8(ascii: "z") {
            index += 1
            stamp.utcOffset = 0
        } else if base[index] == ASCII.plus || base[index] == ASCII.minus {
            let sign = base[index] == ASCII.minus ? -1 : 1
            index += 1
            guard let offsetHours = digits(min: 2, max: 2), offsetHours <= 18 else { return nil }
            _ = expect(ASCII.colon)
            var offsetMinutes = 0
            if index < end {
                guard let value = digits(min: 2, max: 2), value < 60 else { return nil }
                offsetMinutes = value
            }
            stamp.utcOffset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        return index == end ? stamp : nil
    }
}
