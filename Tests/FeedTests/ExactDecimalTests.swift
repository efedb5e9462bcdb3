// ExactDecimal: exact parsing, sums, rounding half to even, products and quotients at 12 decimals.

import Testing

@testable import Feed

@Suite struct ExactDecimalTests {
    func d(_ text: String) -> ExactDecimal { ExactDecimal(text)! }

    @Test("parses decimal text exactly") func parses() {
        #expect(d("151.20").description == "151.2")
        #expect(d("151.20").units == 151_200_000_000_000)
        #expect(d("-0.05").description == "-0.05")
        #expect(d("+12").description == "12")
        #expect(d(".5").description == "0.5")
        #expect(d("1e-05").description == "0.00001")
        #expect(d("2.5E+3").description == "2500")
        #expect(d("-0").description == "0")
        #expect(d("0.000000000001").units == 1)
        #expect(d("1.500000000000000").description == "1.5")
        for bad in ["", ".", "-", "1,5", "1.2.3", "abc", "1e", "1e1234", "0.0000000000001", "1 2", "0x10", "1e19", "nan"] {
            #expect(ExactDecimal(bad) == nil, "\(bad)")
        }
        #expect(ExactDecimal("1000000000000000000") != nil)
        #expect(ExactDecimal("1000000000000000001") == nil)
    }

    @Test("0.1 + 0.2 is 0.3, and a thousand cents are ten") func sums() {
        #expect(d("0.1") + d("0.2") == d("0.3"))
        var total = ExactDecimal.zero
        for _ in 0..<1000 { total += d("0.01") }
        #expect(total == d("10"))
        #expect((d("5") - d("7.25")).description == "-2.25")
    }

    @Test("the shortest text of a Double") func fromDouble() {
        #expect(ExactDecimal(shortest: 151.2)?.description == "151.2")
        #expect(ExactDecimal(shortest: 0.1 + 0.2)?.description == "0.3")  // 0.30000000000000004 rounds at 12 decimals
        #expect(ExactDecimal(shortest: 0.0998239)?.description == "0.0998239")
        #expect(ExactDecimal(shortest: 1e-5)?.description == "0.00001")
        #expect(ExactDecimal(shortest: 9e-14)?.description == "0")
        #expect(ExactDecimal(shortest: 5e-13)?.description == "0")          // half: to even (0)
        #expect(ExactDecimal(shortest: 1.5e-12)?.units == 2)                 // half: to even (2)
        #expect(ExactDecimal(shortest: 2.5e-12)?.units == 2)
        #expect(ExactDecimal(shortest: .infinity) == nil)
        #expect(ExactDecimal(shortest: .nan) == nil)
        #expect(ExactDecimal(shortest: 1e30) == nil)
    }

    @Test("rounding to minor units is half to even") func rounding() {
        #expect(d("2.345").rounded(to: 2) == d("2.34"))
        #expect(d("2.355").rounded(to: 2) == d("2.36"))
        #expect(d("2.3451").rounded(to: 2) == d("2.35"))
        #expect(d("-2.345").rounded(to: 2) == d("-2.34"))
        #expect(d("-2.355").rounded(to: 2) == d("-2.36"))
        #expect(d("0.5").rounded(to: 0) == d("0"))
        #expect(d("1.5").rounded(to: 0) == d("2"))
        #expect(d("1234.5").formatted(decimals: 0) == "1234")
        #expect(d("1234.5678").formatted(decimals: 3) == "1234.568")
        #expect(d("-0.004").formatted(decimals: 2) == "0.00")
        #expect(d("-0.006").formatted(decimals: 2) == "-0.01")
        #expect(d("7").formatted(decimals: 2) == "7.00")
        #expect(d("0.05").formatted(decimals: 2) == "0.05")
    }

    @Test("products and quotients") func products() {
        #expect(d("12.5").multiplied(by: d("151.20")) == d("1890"))
        #expect(d("-3").multiplied(by: d("0.333333333333")) == d("-0.999999999999"))
        // 0.000001 * 0.0000005 = 5e-13: half, to even (0); 0.000001 * 0.0000015 = 1.5e-12 -> 2e-12.
        #expect(d("0.000001").multiplied(by: d("0.0000005")) == .zero)
        #expect(d("0.000001").multiplied(by: d("0.0000015"))?.units == 2)
        #expect(d("1").divided(by: d("3")) == d("0.333333333333"))
        #expect(d("2").divided(by: d("3")) == d("0.666666666667"))
        #expect(d("1").divided(by: d("1.08")) == d("0.925925925926"))
        #expect(d("-1").divided(by: d("8")) == d("-0.125"))
        #expect(d("1").divided(by: .zero) == nil)
        #expect(d("1000000000").multiplied(by: d("1000000000")) == d("1000000000000000000"))
        #expect(d("1000000000").multiplied(by: d("1000000001")) == nil)
        #expect(d("1000000000000000000").multiplied(by: d("1000000000000000000")) == nil)
        #expect(d("1000000000000").divided(by: d("0.000000000001")) == nil)
        #expect(d("1234.5").shifted(by: -2) == d("12.345"))
        #expect(d("12.345").shifted(by: 2) == d("1234.5"))
        #expect(d("0.000000000005").shifted(by: -1) == .zero)
    }

    @Test("the Double for drawing") func double() {
        #expect(d("151.2").doubleValue == 151.2)
        #expect(d("-0.25").doubleValue == -0.25)
    }
}
