/// How a locale writes money: separators, grouping sizes, where the currency symbol stands, and
/// which colour means up. A small table of CLDR's data for the locales a ticker is likely to be set
/// to; Tests/Locale/cldr-oracle.py prints what CLDR (through Babel) says for each, and the checked-in
/// Tests/Locale/cldr-expected.tsv that the tests compare against is that script's output.
public struct NumberLocale: Sendable, Equatable, Hashable {
    public enum Trend: String, Sendable, Equatable, Hashable {
        /// Up is green, down is red: the Americas and Europe.
        case greenUp = "green-up"
        /// Up is red, down is green: mainland China, Japan, Korea, Taiwan.
        case redUp = "red-up"
    }

    /// BCP 47 tag as configured, e.g. `de-DE`.
    public var identifier: String
    public var decimalSeparator: String
    public var groupingSeparator: String
    /// Digits in the group next to the decimal separator (3), and in the groups before it (2 for
    /// en-IN's 12,34,567.89).
    public var groupingSize: Int
    public var secondaryGroupingSize: Int
    public var symbolPosition: PriceFormat.SymbolPosition
    /// Between symbol and number: "" (`$12.00`) or U+00A0 (`12,00 €`).
    public var symbolSpacing: String
    /// Between number and "%".
    public var percentSpacing: String
    public var trend: Trend

    static let nbsp = "\u{00A0}"
    static let narrowNbsp = "\u{202F}"

    /// The table: identifier, decimal, group, sizes, symbol after?, symbol spacing, percent spacing,
    /// trend. CLDR's patterns, reduced to what differs between these locales.
    static let table: [NumberLocale] = [
        .init("en-US", ".", ",", 3, 3, .before, "", "", .greenUp),
        .init("en-GB", ".", ",", 3, 3, .before, "", "", .greenUp),
        .init("en-CA", ".", ",", 3, 3, .before, "", "", .greenUp),
        .init("en-AU", ".", ",", 3, 3, .before, "", "", .greenUp),
        .init("en-IN", ".", ",", 3, 2, .before, "", "", .greenUp),
        .init("de-DE", ",", ".", 3, 3, .after, nbsp, nbsp, .greenUp),
        .init("de-AT", ",", ".", 3, 3, .before, nbsp, nbsp, .greenUp),
        .init("fr-FR", ",", narrowNbsp, 3, 3, .after, nbsp, nbsp, .greenUp),
        .init("fr-CH", ",", "'", 3, 3, .after, nbsp, "", .greenUp),
        .init("it-IT", ",", ".", 3, 3, .after, nbsp, "", .greenUp),
        .init("sv-SE", ",", nbsp, 3, 3, .after, nbsp, nbsp, .greenUp),
        .init("pt-BR", ",", ".", 3, 3, .before, nbsp, "", .greenUp),
        .init("ja-JP", ".", ",", 3, 3, .before, "", "", .redUp),
        .init("zh-CN", ".", ",", 3, 3, .before, "", "", .redUp),
        .init("zh-TW", ".", ",", 3, 3, .before, "", "", .redUp),
        .init("ko-KR", ".", ",", 3, 3, .before, "", "", .redUp),
    ]

    init(_ id: String, _ decimal: String, _ group: String, _ size: Int, _ secondary: Int,
         _ position: PriceFormat.SymbolPosition, _ spacing: String, _ percentSpacing: String, _ trend: Trend) {
        identifier = id
        decimalSeparator = decimal
        groupingSeparator = group
        groupingSize = size
        secondaryGroupingSize = secondary
        symbolPosition = position
        symbolSpacing = spacing
        self.percentSpacing = percentSpacing
        self.trend = trend
    }

    /// The default: what the kiosk showed before locales existed.
    public static let enUS = table[0]

    /// Every locale of the table, for the CLDR comparison and for messages.
    public static var knownIdentifiers: [String] { table.map(\.identifier) }

    /// `de-DE`, `de_DE` and `DE-de` all name the same entry; nil for a locale not in the table.
    public init?(identifier raw: String) {
        let wanted = String(raw.map { $0 == "_" ? "-" : $0 }).lowercased()
        guard let found = Self.table.first(where: { $0.identifier.lowercased() == wanted }) else { return nil }
        self = found
    }
}

extension PriceFormat {
    /// Prices in `currency` as `locale` writes them, with decimals that adapt to sub-unit prices
    /// (see `significantDigits`).
    public init(currency: Currency, locale: NumberLocale) {
        self.init(decimals: currency.minorUnits, groupingSeparator: locale.groupingSeparator,
                  groupingSize: locale.groupingSize, decimalSeparator: locale.decimalSeparator,
                  currencySymbol: currency.symbol, symbolPosition: currency.isSubunit ? .after : locale.symbolPosition,
                  symbolSpacing: currency.isSubunit ? "" : locale.symbolSpacing, percentSpacing: locale.percentSpacing)
        secondaryGroupingSize = locale.secondaryGroupingSize
        significantDigits = 4
    }
}
