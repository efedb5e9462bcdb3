/// ISO 4217 currencies as a ticker shows them: the symbol and the minor units (JPY 0, KWD 3), and
/// the sub-unit quotes exchanges use (London's GBp, Johannesburg's ZAc, Tel Aviv's ILA).
///
/// The symbol is the currency's own (CLDR's English symbol: `$`, `£`, `CA$`, `CHF`), whatever the
/// locale: a wall ticker names the instrument's currency, and the locale only decides separators,
/// grouping and where the symbol stands. Tests/Locale/cldr-oracle.py checks this table against CLDR.
public struct Currency: Sendable, Equatable, Hashable {
    /// The code as configured: `USD`, or a sub-unit code such as `GBp` (case matters there).
    public var code: String
    public var symbol: String
    /// Decimals of a price in this currency (ISO 4217 minor units; 2 for sub-unit quotes, as
    /// London shows 1,234.50p).
    public var minorUnits: Int
    /// For sub-unit quotes: the symbol is a unit sign written after the number with no space
    /// ("1,234.50p"), whatever the locale's currency pattern.
    public var isSubunit: Bool

    public init(code: String, symbol: String, minorUnits: Int, isSubunit: Bool = false) {
        self.code = code
        self.symbol = symbol
        self.minorUnits = minorUnits
        self.isSubunit = isSubunit
    }

    /// Code, symbol, minor units. Codes not listed show their code as the symbol with 2 decimals.
    static let table: [(String, String, Int)] = [
        ("USD", "$", 2), ("EUR", "€", 2), ("GBP", "£", 2), ("JPY", "¥", 0), ("CHF", "CHF", 2),
        ("CAD", "CA$", 2), ("AUD", "A$", 2), ("NZD", "NZ$", 2), ("HKD", "HK$", 2), ("SGD", "SGD", 2),
        ("CNY", "CN¥", 2), ("TWD", "NT$", 2), ("KRW", "₩", 0), ("INR", "₹", 2), ("ILS", "₪", 2),
        ("BRL", "R$", 2), ("MXN", "MX$", 2), ("ZAR", "ZAR", 2), ("SEK", "SEK", 2), ("NOK", "NOK", 2),
        ("DKK", "DKK", 2), ("PLN", "PLN", 2), ("CZK", "CZK", 2), ("HUF", "HUF", 0), ("TRY", "TRY", 2),
        ("VND", "₫", 0), ("THB", "THB", 2), ("PHP", "₱", 2), ("ISK", "ISK", 0), ("CLP", "CLP", 0),
        ("KWD", "KWD", 3), ("BHD", "BHD", 3), ("OMR", "OMR", 3), ("JOD", "JOD", 3), ("TND", "TND", 3),
        ("SAR", "SAR", 2), ("AED", "AED", 2),
    ]

    /// Sub-unit quote codes: the code, the unit sign, the currency it is a hundredth of.
    package static let subunits: [(String, String, String)] = [("GBp", "p", "GBP"), ("GBX", "p", "GBP"), ("ZAc", "c", "ZAR"),
                                                       ("ILA", "ag.", "ILS")]

    /// The currency for a configured code: exact for sub-unit codes (GBp is not GBP), else
    /// case-insensitive. Nil for something that is not three letters.
    public init?(code raw: String) {
        if let sub = Self.subunits.first(where: { $0.0 == raw }) {
            self.init(code: sub.0, symbol: sub.1, minorUnits: 2, isSubunit: true)
            return
        }
        let upper = raw.uppercased()
        // An index has no currency: ISO 4217's XXX, or `none`, is the bare number.
        if upper == "NONE" || upper == "XXX" {
            self.init(code: "XXX", symbol: "", minorUnits: 2)
            return
        }
        guard upper.unicodeScalars.count == 3, upper.unicodeScalars.allSatisfy({ $0.value >= 65 && $0.value <= 90 }) else {
            return nil
        }
        if let row = Self.table.first(where: { $0.0 == upper }) {
            self.init(code: upper, symbol: row.1, minorUnits: row.2)
        } else {
            self.init(code: upper, symbol: upper, minorUnits: 2)
        }
    }

    /// The currency a price in this code is money in: GBP for GBp, the code itself otherwise.
    public var moneyCode: String { Self.subunits.first { $0.0 == code }?.2 ?? code }

    /// True when ISO 4217 lists the code (active codes and the funds, metals and testing codes);
    /// another three letters (`EUE`, `BTC`) are shown as they are, and `check-config` warns.
    public var isISO4217: Bool { isSubunit || Self.iso4217.contains(code) }

    /// ISO 4217's list (2024), for the warning on a code it does not have.
    static let iso4217: Set<String> = Set("""
        AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD
        CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP
        GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW
        KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN
        NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL
        SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES
        VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG ZWL
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))

    /// Every code of the tables, for the CLDR comparison.
    public static var knownCodes: [String] { table.map(\.0) }
}
