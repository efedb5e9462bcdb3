// Holdings, the home currency, exchange-rate pairs and their checks (issue 36): the config side of
// the portfolio. Values are ExactDecimal, read from the config's text, never through a Double.

import Feed
import Text

/// One purchase: how many, at what unit price (the instrument's currency), and when (optional:
/// a dated lot counts from that day on, so a range starting earlier does not hold it yet).
public struct Lot: Equatable, Sendable {
    public var date: CivilDate?
    public var quantity: ExactDecimal
    public var unitCost: ExactDecimal?
    public var line: Int

    public init(date: CivilDate? = nil, quantity: ExactDecimal, unitCost: ExactDecimal?, line: Int = 0) {
        self.date = date
        self.quantity = quantity
        self.unitCost = unitCost
        self.line = line
    }
}

/// What an instrument section says about a holding: `quantity` with `cost` (per unit) or
/// `cost-total`, and/or `lot` lines.
public struct Holding: Equatable, Sendable {
    public var quantity: ExactDecimal?
    public var unitCost: ExactDecimal?
    public var totalCost: ExactDecimal?
    public var lots: [Lot] = []
    /// The file the `lot` lines so far are from: a later file's lots replace them (a drop-in lists
    /// the lots it means), lines of one file add up.
    public var lotsFile: String?

    public init() {}

    public var isEmpty: Bool { quantity == nil && lots.isEmpty }

    /// Every lot, the `quantity`/`cost` pair as an undated one first.
    public var allLots: [Lot] {
        var out: [Lot] = []
        if let quantity {
            var cost = unitCost
            if cost == nil, let totalCost, !quantity.isZero { cost = totalCost.divided(by: quantity) }
            out.append(Lot(quantity: quantity, unitCost: cost))
        }
        return out + lots
    }

    /// The cost of the undated `quantity` as configured (`cost-total` exactly, not re-multiplied).
    func undatedCost() -> ExactDecimal? {
        if let totalCost { return totalCost }
        guard let quantity, let unitCost else { return nil }
        return quantity.multiplied(by: unitCost)
    }
}

/// `[portfolio] show`: what a wall shows of the money.
public enum PortfolioShow: String, Equatable, Sendable {
    /// Values, costs and gains in the home currency.
    case value
    /// Only relative changes (percent): an office wall shows no money.
    case percent
    /// No portfolio screen and no position values anywhere.
    case off
}

/// `[portfolio]`: the home currency holdings are summed in, and what is shown of them.
public struct PortfolioConfig: Equatable, Sendable {
    /// nil: the currency of the first held instrument (GBp counts as GBP).
    public var currency: String?
    public var show = PortfolioShow.value
    /// `tiles = value`: a held instrument's watchlist tile shows the position (quantity × price, in
    /// the instrument's money) instead of the price; only with `show = value`.
    public var tileValues = false
    public var lines: [String: Int] = [:]
    public init() {}
}

/// `[fx USDEUR]`: the price of one unit of `base` in `quote` (1 USD = 0.95 EUR), read like an
/// instrument's daily file; `symbol =` and the other fetcher keys are for tickerboard-fetch.
public struct FXPairConfig: Equatable, Sendable {
    public var base: String
    public var quote: String
    public var dailyFile: String?
    public var timeZone = "Europe/London"
    public var line: Int
    public var lines: [String: Int] = [:]
    public var files: [String: String] = [:]

    public var id: String { base + quote }
}

/// A named section (`[fx PAIR]`, `[alert NAME]`) that may be spread over the main file and its
/// drop-ins: where each key was set, for `FILE:LINE: key:` messages.
package protocol SectionLocation {
    /// The line of the section's first key.
    var line: Int { get }
    var lines: [String: Int] { get set }
    /// The drop-in each key was set in, absent for the main file; "" is the first key's.
    var files: [String: String] { get set }
}

extension SectionLocation {
    /// Where `key` was set, else the section's first key.
    package func location(of key: String, mainFile: String) -> (file: String, line: Int) {
        lines[key] != nil ? (files[key] ?? mainFile, lines[key]!) : (files[""] ?? mainFile, line)
    }

    mutating func note(_ key: String, line: Int, file: String?) {
        lines[key] = line
        files[key] = file
        if lines[""] == nil { lines[""] = line; files[""] = file }
    }
}

extension FXPairConfig: SectionLocation {}
extension AlertConfig: SectionLocation {}

enum HoldingsLimits {
    static let lots = 64
    static let fxPairs = 32
    static let alerts = 64
}

extension Config {
    /// `quantity`, `cost`, `cost-total` and `lot` of an instrument section; false for another key.
    static func applyHoldingKey(_ key: String, _ value: String, line: Int, file: String? = nil, to holding: inout Holding,
                                fail: (String) -> Void, warn: (String) -> Void = { _ in }) -> Bool {
        switch key {
        case "quantity":
            guard let q = parseAmount(value), !q.isNegative, !q.isZero else {
                fail("expected a quantity above 0 like 12.5 (at most 12 decimals, below 10^15), found \"\(value)\""); return true
            }
            holding.quantity = q
        case "cost":
            guard let c = parseAmount(value), !c.isNegative else {
                fail("expected the price paid per unit in the instrument's currency, like 151.20, found \"\(value)\""); return true
            }
            if holding.totalCost != nil { fail("cost and cost-total are two ways to say one thing; keep one"); return true }
            holding.unitCost = c
        case "cost-total":
            guard let c = parseAmount(value), !c.isNegative else {
                fail("expected the total paid for the quantity in the instrument's currency, like 1890.00, found \"\(value)\""); return true
            }
            if holding.unitCost != nil { fail("cost and cost-total are two ways to say one thing; keep one"); return true }
            holding.totalCost = c
        case "lot":
            // Issue 54: the main file's lots and a drop-in's added up (10 + 5 + 5 = 20, without a word).
            if !holding.lots.isEmpty, holding.lotsFile != file { holding.lots = [] }
            holding.lotsFile = file
            guard holding.lots.count < HoldingsLimits.lots else { fail("at most \(HoldingsLimits.lots) lots per instrument"); return true }
            switch parseLot(value, line: line) {
            case .success(let lot):
                if let same = holding.lots.first(where: { $0.date == lot.date && $0.quantity == lot.quantity && $0.unitCost == lot.unitCost }) {
                    warn("the same lot as line \(same.line); both count (lots of one file add up)")
                }
                holding.lots.append(lot)
            case .failure(let e): fail(e.message)
            }
        default:
            return false
        }
        return true
    }

    /// A config amount: exact decimal text below 10^15 (so products of amounts stay far inside ExactDecimal's bound).
    static func parseAmount(_ text: String) -> ExactDecimal? {
        guard let v = ExactDecimal(text), v.magnitude < ExactDecimal(units: 1_000_000_000_000_000 * 1_000_000_000_000) else { return nil }
        return v
    }

    /// `2024-03-01 10 @ 151.20`, `10 @ 151.20`, `2024-03-01 10` (no cost: no total gain for it).
    static func parseLot(_ text: String, line: Int) -> Result<Lot, ConfigValueError> {
        let usage = "expected \"[YYYY-MM-DD] QUANTITY [@ UNIT-COST]\" like 2024-03-01 10 @ 151.20, found \"\(text.prefix(60))\""
        let halves = text.split(separator: "@", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return .failure(ConfigValueError(message: usage)) }
        let words = halves[0].split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard (1...2).contains(words.count) else { return .failure(ConfigValueError(message: usage)) }
        var date: CivilDate?
        if words.count == 2 {
            guard let d = parseISODate(words[0]) else {
                return .failure(ConfigValueError(message: "\"\(words[0].prefix(20))\" is not a date like 2024-03-01; " + usage))
            }
            date = d
        }
        guard let q = parseAmount(words[words.count - 1]), !q.isNegative, !q.isZero else {
            return .failure(ConfigValueError(message: "the quantity must be a number above 0; " + usage))
        }
        var cost: ExactDecimal?
        if halves.count == 2 {
            guard let c = parseAmount(String(halves[1]).trimmingWhitespace()), !c.isNegative else {
                return .failure(ConfigValueError(message: "the unit cost must be a number of at least 0; " + usage))
            }
            cost = c
        }
        return .success(Lot(date: date, quantity: q, unitCost: cost, line: line))
    }

    static func parseISODate(_ text: String) -> CivilDate? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1900...2200).contains(y)
        else { return nil }
        return CivilDate(year: y, month: m, day: d)
    }

    /// `[portfolio]` keys; the message for a bad value, or nil.
    static func applyPortfolioKey(_ key: String, _ value: String, line: Int, to config: inout Config,
                                  fail: (String) -> Void, warn: (String) -> Void) {
        config.portfolio.lines[key] = line
        switch key {
        case "currency":
            guard let c = Currency(code: value), c.code != "XXX" else {
                fail("expected the ISO 4217 code of the home currency like EUR, found \"\(value)\""); return
            }
            // Holdings are summed in a currency, not in its pence.
            config.portfolio.currency = c.isSubunit ? homeCode(of: c.code) : c.code
            if c.isSubunit { warn("\(value) is a quote in a hundredth; the portfolio is summed in \(homeCode(of: c.code))") }
        case "show":
            guard let s = PortfolioShow(rawValue: value.lowercased()) else {
                fail("expected value, percent (relative changes only, no money on the wall) or off, found \"\(value)\""); return
            }
            config.portfolio.show = s
        case "tiles":
            switch value.lowercased() {
            case "price": config.portfolio.tileValues = false
            case "value": config.portfolio.tileValues = true
            default: fail("expected price or value (the position, quantity × price; only with show = value), found \"\(value)\"")
            }
        default:
            warn(unknownKeyMessage(key, known: portfolioKeys))
        }
    }

    /// The currency a price code is money in: GBp -> GBP.
    public static func homeCode(of code: String) -> String {
        Currency.subunits.first { $0.0 == code }?.2 ?? code.uppercased()
    }

    /// `[fx PAIR]` keys.
    static func applyFXEntry(section: String, _ key: String, _ value: String, line: Int, file: String?, to config: inout Config,
                             fail: (String) -> Void, warn: (String) -> Void) {
        let name = String(section.dropFirst("fx ".count)).trimmingWhitespace()
        let letters = name.uppercased().filter { $0 != "/" && $0 != "-" }
        let base = String(letters.prefix(3)), quote = String(letters.dropFirst(3))
        guard letters.count == 6, letters.unicodeScalars.allSatisfy({ $0.value >= 65 && $0.value <= 90 }),
              base != quote else {
            fail("[fx \(name.prefix(20))]: expected a pair of currency codes like [fx USDEUR] (the price of 1 USD in EUR)")
            return
        }
        if !config.fxPairs.contains(where: { $0.id == base + quote }), config.fxPairs.count >= HoldingsLimits.fxPairs {
            fail("more than \(HoldingsLimits.fxPairs) [fx] sections"); return
        }
        var pair = config.fxPairs.first { $0.id == base + quote } ?? FXPairConfig(base: base, quote: quote, line: line)
        pair.note(key, line: line, file: file)
        switch key {
        case "daily", "file": pair.dailyFile = value
        case "time-zone", "timezone":
            if ExchangeTimeZone.isValidIdentifier(value) { pair.timeZone = value } else {
                fail("\"\(value)\" is not an IANA time zone name like Europe/London")
            }
        default:
            switch FetchSettings.checkInstrumentKey(key, value) {
            case .ok: break
            case .invalid(let message): fail(message)
            case .unknown: warn(unknownKeyMessage(key, known: fxKeys))
            }
        }
        if let i = config.fxPairs.firstIndex(where: { $0.id == pair.id }) { config.fxPairs[i] = pair } else { config.fxPairs.append(pair) }
    }

    /// The rate pair that converts `from` into `to`, and whether it is used inverted.
    public func fxPair(from: String, to: String) -> (pair: FXPairConfig, inverted: Bool)? {
        if let p = fxPairs.first(where: { $0.base == from && $0.quote == to }) { return (p, false) }
        if let p = fxPairs.first(where: { $0.base == to && $0.quote == from }) { return (p, true) }
        return nil
    }

    /// The home currency: `[portfolio] currency`, else the first held instrument's.
    public var homeCurrency: String? {
        portfolio.currency ?? instruments.first { !$0.holding.isEmpty }.map { Self.homeCode(of: $0.currency) }
    }

    /// Checks that need the whole file: cost without quantity, holdings in a currency no pair converts.
    static func checkHoldings(_ config: Config, mainFile: String) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let home = config.homeCurrency
        for inst in config.instruments {
            let h = inst.holding
            if h.quantity == nil, h.unitCost != nil || h.totalCost != nil {
                let key = h.unitCost != nil ? "cost" : "cost-total"
                let at = inst.location(of: key, mainFile: mainFile)
                issues.append(ConfigIssue(file: at.file, line: at.line, key: key,
                                          message: "a cost without quantity = is not a holding; add quantity = or use lot = QUANTITY @ COST",
                                          severity: .error))
            }
            guard !h.isEmpty, let home else { continue }
            let key = inst.lines["quantity"] != nil ? "quantity" : "lot"
            let (file, line) = inst.location(of: key, mainFile: mainFile)
            // `none` is kept as written (the display reads it as XXX); both mean no currency.
            if Currency(code: inst.currency)?.code == "XXX" {
                issues.append(ConfigIssue(file: file, line: line, key: key,
                                          message: "[instrument \(inst.id)] has no currency (currency = none): a holding needs one to be valued",
                                          severity: .error))
                continue
            }
            let money = homeCode(of: inst.currency)
            if money != home, config.fxPair(from: money, to: home) == nil {
                issues.append(ConfigIssue(file: file, line: line, key: key,
                                          message: "[instrument \(inst.id)] is in \(money): add [fx \(money)\(home)] (or [fx \(home)\(money)]) with daily = FILE to value it in \(home)",
                                          severity: .error))
            }
        }
        for pair in config.fxPairs where pair.dailyFile == nil {
            let at = pair.location(of: "", mainFile: mainFile)
            issues.append(ConfigIssue(file: at.file, line: at.line, key: "daily",
                                      message: "[fx \(pair.id)] has no daily = FILE of its rates", severity: .error))
        }
        return issues
    }
}

extension Config {
    /// `[alert NAME]` keys.
    static func applyAlertEntry(section: String, _ key: String, _ value: String, line: Int, file: String?, to config: inout Config,
                                fail: (String) -> Void, warn: (String) -> Void) {
        let name = String(section.dropFirst("alert ".count)).trimmingWhitespace()
        guard !name.isEmpty, name.count <= Limits.nameLength,
              name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) })
        else { fail("[alert NAME]: a name is 1 to \(Limits.nameLength) letters, digits, - _ ."); return }
        if !config.alerts.contains(where: { $0.name == name }), config.alerts.count >= HoldingsLimits.alerts {
            fail("more than \(HoldingsLimits.alerts) [alert] sections"); return
        }
        var alert = config.alerts.first { $0.name == name } ?? AlertConfig(name: name, line: line)
        alert.note(key, line: line, file: file)
        // The values' syntax is Feed's, shared with tickerboard-fetch (which runs `command`).
        switch alert.apply(key, value, file: file) {
        case .ok: break
        case .invalid(let message): fail(message)
        case .unknown: warn(unknownKeyMessage(key, known: AlertConfig.keys))
        }
        if let i = config.alerts.firstIndex(where: { $0.name == name }) { config.alerts[i] = alert } else { config.alerts.append(alert) }
    }

    static func checkAlerts(_ config: Config, mainFile: String) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        for alert in config.alerts {
            let header = alert.location(of: "", mainFile: mainFile)
            if let id = alert.instrument {
                if !config.instruments.contains(where: { $0.id == id }) {
                    let at = alert.location(of: "instrument", mainFile: mainFile)
                    issues.append(ConfigIssue(file: at.file, line: at.line, key: "instrument",
                                              message: "no [instrument \(id)] in this file (it has: \(config.instruments.map(\.id).joined(separator: " ")))",
                                              severity: .error))
                }
            } else {
                issues.append(ConfigIssue(file: header.file, line: header.line, key: "instrument",
                                          message: "[alert \(alert.name)] needs instrument = ID", severity: .error))
            }
            if alert.condition == nil {
                issues.append(ConfigIssue(file: header.file, line: header.line, key: "above",
                                          message: "[alert \(alert.name)] needs one of above =, below =, move = or stale =", severity: .error))
            }
        }
        return issues
    }
}
