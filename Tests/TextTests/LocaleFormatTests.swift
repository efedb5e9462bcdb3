import TestSupport
import Testing
import Text

#if canImport(Glibc)
import Glibc
#endif

/// The locale and currency tables against CLDR: Tests/Locale/cldr-expected.tsv is the output of
/// Tests/Locale/cldr-oracle.py (Babel), re-checked against Babel by Tests/Locale/check-cldr.sh.
@Suite("Locales and currencies against CLDR")
struct LocaleFormatTests {
    static func oracleLines() -> [[String]] {
        let path = TestPaths.repositoryRoot + "/Tests/Locale/cldr-expected.tsv"
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// CLDR writes a hyphen-minus; the kiosk draws U+2212.
    static func hyphenated(_ s: String) -> String { String(s.map { $0 == "\u{2212}" ? "-" : $0 }) }

    @Test("every currency's symbol and minor units are CLDR's")
    func currencies() {
        let rows = Self.oracleLines().filter { $0.first == "currency" }
        #expect(rows.count == Currency.knownCodes.count, "the oracle and the table list different currencies")
        for row in rows {
            let c = Currency(code: row[1])
            #expect(c?.minorUnits == Int(row[2]) && c?.symbol == row[3], "\(row[1]): CLDR says \(row[2]) decimals, \(row[3])")
        }
    }

    @Test("prices and percentages in every locale of the table read as CLDR writes them")
    func prices() {
        let rows = Self.oracleLines().filter { $0.first == "price" || $0.first == "percent" }
        #expect(rows.count > 500)
        #expect(Set(rows.map { $0[1] }) == Set(NumberLocale.knownIdentifiers), "the oracle and the table list different locales")
        for row in rows {
            guard let locale = NumberLocale(identifier: row[1]), let value = Double(row[3]) else {
                Issue.record("unreadable oracle line \(row)"); continue
            }
            if row[0] == "price" {
                guard let currency = Currency(code: row[2]) else { Issue.record("unknown currency \(row[2])"); continue }
                let got = Self.hyphenated(PriceFormat(currency: currency, locale: locale).price(value))
                #expect(got == row[4], "\(row[1]) \(row[2]) \(row[3])")
            } else {
                // The kiosk signs a change ("+1.23%"); CLDR's plain percentage has no "+".
                let got = Self.hyphenated(PriceFormat(currency: Currency(code: "USD")!, locale: locale).percent(value))
                #expect(got == (value > 0 ? "+" : "") + row[4], "\(row[1]) percent \(row[3])")
            }
        }
    }

    @Test("the issue's examples")
    func examples() throws {
        let de = try #require(NumberLocale(identifier: "de-DE"))
        let inLocale = try #require(NumberLocale(identifier: "en_IN"))
        let us = NumberLocale.enUS
        #expect(PriceFormat(currency: Currency(code: "EUR")!, locale: de).price(12_118.25) == "12.118,25\u{00A0}€")
        #expect(PriceFormat(currency: Currency(code: "INR")!, locale: inLocale).number(1_234_567.89) == "12,34,567.89")
        #expect(PriceFormat(currency: Currency(code: "INR")!, locale: inLocale).number(123) == "123.00")
        #expect(PriceFormat(currency: Currency(code: "JPY")!, locale: us).price(12_118.25) == "¥12,118")
        #expect(PriceFormat(currency: Currency(code: "KWD")!, locale: us).price(1.5) == "KWD1.500")
        #expect(NumberLocale(identifier: "xx-YY") == nil)
    }

    @Test("pence-quoted instruments show pence with the unit sign after the number, in any locale")
    func subunits() throws {
        let gbp = try #require(Currency(code: "GBp"))
        #expect(PriceFormat(currency: gbp, locale: .enUS).price(1234.5) == "1,234.50p")
        #expect(PriceFormat(currency: gbp, locale: .enUS).change(-12.25, currency: true) == "\u{2212}12.25p")
        #expect(PriceFormat(currency: Currency(code: "ZAc")!, locale: NumberLocale(identifier: "de-DE")!).price(4567.8) == "4.567,80c")
        #expect(PriceFormat(currency: Currency(code: "ILA")!, locale: .enUS).price(1520) == "1,520.00ag.")
        // GBP (pounds) is not GBp (pence).
        #expect(PriceFormat(currency: Currency(code: "GBP")!, locale: .enUS).price(12.345) == "£12.35")
        #expect(Currency(code: "gbp")?.symbol == "£")
        #expect(Currency(code: "US") == nil && Currency(code: "U5D") == nil)
    }

    @Test("sub-unit prices keep four significant digits; whole prices keep the minor units")
    func adaptiveDecimals() {
        let f = PriceFormat(currency: Currency(code: "USD")!, locale: .enUS)
        #expect(f.price(0.0034) == "$0.003400")
        #expect(f.price(0.5) == "$0.5000")
        #expect(f.price(0.000012345) == "$0.00001235")
        #expect(f.price(1.5) == "$1.50")
        #expect(f.price(189.43) == "$189.43")
        #expect(f.price(0) == "$0.00")
        // The adapted format fixes the decimals for a whole range, changes included.
        let a = f.adapted(toMagnitude: 0.0034)
        #expect(a.change(0.0001) == "+0.000100")
        #expect(a.price(0.0123) == "$0.012300")
        // A fixed decimals override (the config's `decimals = 2`) turns adaptation off.
        var fixed = f
        fixed.significantDigits = nil
        #expect(fixed.price(0.0034) == "$0.00")
    }
}

@Suite("Glyphs for every number the tables can write")
struct LocaleGlyphTests {
    @Test("DejaVu Sans (regular and bold) has every symbol, separator and the ▲/▼ cue")
    func glyphs() throws {
        var text = "\u{25B2}\u{25BC}\u{2212}+%"
        for code in Currency.knownCodes + ["GBp", "ZAc", "ILA"] { text += Currency(code: code)?.symbol ?? "" }
        for id in NumberLocale.knownIdentifiers {
            let l = try #require(NumberLocale(identifier: id))
            text += l.decimalSeparator + l.groupingSeparator + l.symbolSpacing + l.percentSpacing
        }
        for path in [TestFonts.regularPath, TestFonts.boldPath] {
            let face = try FontFace(path: path)
            let missing = text.unicodeScalars.filter { !face.hasGlyph(for: $0) }
            #expect(missing.isEmpty, "\(path) lacks \(missing.map { "U+" + String($0.value, radix: 16, uppercase: true) })")
        }
    }
}
