import Testing
import Text

@Suite("Number formatting")
struct PriceFormatTests {
    @Test("us dollar prices") func usDollarPrices() {
        let f = PriceFormat.usDollar
        #expect(f.price(12345.67) == "$12,345.67")
        #expect(f.price(189.43) == "$189.43")
        #expect(f.price(0) == "$0.00")
        #expect(f.price(0.5) == "$0.50")
        #expect(f.price(999.999) == "$1,000.00")
        #expect(f.price(1_234_567_890.1) == "$1,234,567,890.10")
        #expect(f.price(-3.1) == "\u{2212}$3.10")
        #expect(f.price(-0.001) == "$0.00")  // rounds to zero: no sign
        #expect(f.price(.nan) == "\u{2014}")
        #expect(f.price(-.infinity) == "\u{2014}")
        #expect(f.number(1234.5) == "1,234.50")
    }

    @Test("german euro prices") func germanEuroPrices() {
        let f = PriceFormat.euroGerman
        #expect(f.price(12345.67) == "12.345,67 €")
        #expect(f.price(0.07) == "0,07 €")
        #expect(f.change(-0.45, currency: true) == "\u{2212}0,45 €")
        #expect(f.percent(1.234) == "+1,23 %")
    }

    @Test("rounding is half away from zero on the decimal digits") func roundingIsHalfAwayFromZeroOnTheDecimalDigits() {
        let f = PriceFormat.usDollar
        #expect(f.number(1.005) == "1.01")  // printf("%.2f") says 1.00
        #expect(f.number(2.675) == "2.68")
        #expect(f.number(0.125) == "0.13")
        #expect(f.number(1.004999) == "1.00")
        #expect(f.number(99.995) == "100.00")
        #expect(f.number(1e-7) == "0.00")
        #expect(f.number(1.5e16) == "15,000,000,000,000,000.00")
        var noDecimals = f
        noDecimals.decimals = 0
        #expect(noDecimals.number(2.5) == "3")
        #expect(noDecimals.number(1234) == "1,234")
        var four = f
        four.decimals = 4
        four.groupingSeparator = ""
        #expect(four.number(12345.6789) == "12345.6789")
        #expect(four.number(0.00005) == "0.0001")
    }

    @Test("signed changes and percentages") func signedChangesAndPercentages() {
        let f = PriceFormat.usDollar
        #expect(f.change(1.23) == "+1.23")
        #expect(f.change(-0.45) == "\u{2212}0.45")
        #expect(f.change(0) == "0.00")
        #expect(f.change(-0.004) == "0.00")
        #expect(f.change(1234.5, currency: true) == "+$1,234.50")
        #expect(f.percent(1.234) == "+1.23%")
        #expect(f.percent(-12.5, decimals: 1) == "\u{2212}12.5%")
        #expect(f.percent(.nan) == "\u{2014}")
        var spaced = f
        spaced.percentSpacing = " "
        #expect(spaced.percent(1.23) == "+1.23 %")
        var ascii = f
        ascii.minusSign = "-"
        #expect(ascii.change(-0.45) == "-0.45")
    }
}
