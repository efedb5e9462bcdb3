// The portfolio's figures at a moment (issue 36): each holding's value, day gain and total gain in
// its own currency and in the home currency, and their sums. Pure: the prices and rates come in as
// series, the moment as a value; every figure is ExactDecimal.
//
// The rules, the ones Tests/Portfolio/portfolio_check.py computes independently:
// - A price is the close (or adjusted close) of the newest daily bar at or before `now` (a daily
//   bar is stamped at its date's midnight UTC, as the data files hold it). An exchange that is
//   closed (a weekend, its holiday) therefore carries its last close.
// - The day's baseline is the bar before that one: the previous close, the 1D chart's baseline.
//   The day's gain is the change between the two at one rate, `now`'s (issue 48: at the old day's
//   rate, a holding whose data stopped years ago showed years of currency movement as today's).
// - A holding is stale when its newest close is more than `[data] stale-after` past the end of
//   its day (UTC): it is valued at that close but adds no day gain (`portfolio_stale` names it).
// - A rate is the newest bar of the `[fx]` pair at or before the moment it converts: `now` for the
//   value and the day's baseline, a lot's date for its cost (an undated cost converts at `now`'s
//   rate). A pair configured the other way round is used as 1/rate.
// - Sub-unit quotes (GBp, ZAc, ILA) are hundredths: the price is shifted two places to money.
// - Products and quotients are rounded half to even at 12 decimals; each line (a position's
//   value, a lot's cost) is rounded half to even to the currency's minor units, and the totals
//   are the sums of the lines, as a statement adds up.
// - The quantity is what the lots hold on `now`'s date (a lot dated later is not held yet); the
//   same quantity values the baseline, so a purchase today is not a gain today.

import Feed
import Text

/// One holding's figures; money in `currency` (the money the quote is in: GBP for GBp) and in home.
public struct PositionFigures: Equatable, Sendable {
    public var id: String
    public var currency: String
    public var quantity: ExactDecimal
    public var price: ExactDecimal
    public var value: ExactDecimal
    public var valueHome: ExactDecimal
    public var previousValueHome: ExactDecimal?
    public var dayGainHome: ExactDecimal? { previousValueHome.map { valueHome - $0 } }
    /// nil when a lot has no cost.
    public var costHome: ExactDecimal?
    /// The newest close is older than `stale-after`: no day gain.
    public var isStale = false
    public var totalGainHome: ExactDecimal? { costHome.map { valueHome - $0 } }
}

/// The whole portfolio at a moment.
public struct PortfolioFigures: Equatable, Sendable {
    public var currency: String
    public var positions: [PositionFigures] = []
    /// Holdings that could not be valued at that moment, with the reason.
    public var missing: [(id: String, reason: String)] = []

    public var value: ExactDecimal { positions.reduce(.zero) { $0 + $1.valueHome } }
    /// Of the positions with a baseline.
    public var previousValue: ExactDecimal { positions.reduce(.zero) { $0 + ($1.previousValueHome ?? $1.valueHome) } }
    public var dayGain: ExactDecimal { positions.reduce(.zero) { $0 + ($1.dayGainHome ?? .zero) } }
    /// Of the positions whose every lot has a cost.
    public var cost: ExactDecimal { positions.reduce(.zero) { $0 + ($1.costHome ?? .zero) } }
    public var totalGain: ExactDecimal { positions.reduce(.zero) { $0 + ($1.totalGainHome ?? .zero) } }

    /// `gain / base` in percent, rounded half to even to 2 decimals; nil on a zero base.
    public static func percent(_ gain: ExactDecimal, of base: ExactDecimal) -> ExactDecimal? {
        guard !base.isZero, let ratio = gain.multiplied(by: ExactDecimal(100)).flatMap({ $0.divided(by: base) }) else { return nil }
        return ratio.rounded(to: 2)
    }
    public var dayGainPercent: ExactDecimal? { Self.percent(dayGain, of: previousValue) }
    public var totalGainPercent: ExactDecimal? { Self.percent(totalGain, of: cost) }

    public static func == (a: PortfolioFigures, b: PortfolioFigures) -> Bool {
        a.currency == b.currency && a.positions == b.positions && a.missing.map(\.id) == b.missing.map(\.id)
    }
}

/// Computes `PortfolioFigures` from a config's holdings and the loaded series.
public struct Portfolio: Sendable {
    public var config: Config
    /// Daily series by instrument id.
    public var daily: [String: PriceSeries]
    /// Daily rate series by pair id (`USDEUR`).
    public var rates: [String: PriceSeries]

    public init(config: Config, daily: [String: PriceSeries], rates: [String: PriceSeries]) {
        self.config = config
        self.daily = daily
        self.rates = rates
    }

    public var home: String? { config.homeCurrency }
    public var held: [InstrumentConfig] { config.instruments.filter { !$0.holding.isEmpty } }

    /// Index of the newest bar at or before `time`, or nil.
    static func index(in series: PriceSeries, atOrBefore time: Int64) -> Int? {
        let i = series.firstIndex(atOrAfter: time + 1) - 1
        return i >= 0 && i < series.count ? i : nil
    }

    static func price(_ bar: PriceBar, _ field: PriceField) -> ExactDecimal? {
        ExactDecimal(shortest: bar.price(field))
    }

    /// The rate converting one unit of `money` into home at `time`; nil when no rate is known then.
    public func rate(from money: String, at time: Int64) -> ExactDecimal? {
        guard let home else { return nil }
        if money == home { return ExactDecimal(1) }
        guard let (pair, inverted) = config.fxPair(from: money, to: home), let series = rates[pair.id],
              let i = Self.index(in: series, atOrBefore: time), let r = Self.price(series.bars[i], .close), !r.isZero
        else { return nil }
        return inverted ? ExactDecimal(1).divided(by: r) : r
    }

    static func minorUnits(_ code: String) -> Int { Currency(code: code)?.minorUnits ?? 2 }

    /// The first moment from which the value line can differ between two sets of series (nil: no
    /// difference): the first bar that is not the same in both, per series.
    public static func firstDifference(_ old: [String: PriceSeries], _ new: [String: PriceSeries]) -> Int64? {
        var first: Int64?
        func note(_ t: Int64) { first = min(first ?? t, t) }
        for id in Set(old.keys).union(new.keys) {
            let a = old[id]?.bars ?? [], b = new[id]?.bars ?? []
            var i = 0
            while i < a.count, i < b.count, a[i] == b[i] { i += 1 }
            if i < a.count { note(a[i].time) }
            if i < b.count { note(b[i].time) }
        }
        return first
    }

    /// Every figure at `now` (Unix seconds).
    public func figures(at now: Int64) -> PortfolioFigures? {
        guard let home else { return nil }
        var out = PortfolioFigures(currency: home)
        let homeMinor = Self.minorUnits(home)
        let today = CivilDate(unixTime: now)
        for inst in held {
            let money = Config.homeCode(of: inst.currency)
            let subunit = Currency(code: inst.currency)?.isSubunit ?? false
            let field: PriceField = inst.adjusted ? .adjustedClose : .close
            func toMoney(_ v: ExactDecimal) -> ExactDecimal? { subunit ? v.shifted(by: -2) : v }
            let lots = inst.holding.allLots.filter { $0.date.map { $0 <= today } ?? true }
            let quantity = lots.reduce(ExactDecimal.zero) { $0 + $1.quantity }
            guard !quantity.isZero else { continue }
            guard let series = daily[inst.id], let i = Self.index(in: series, atOrBefore: now) else {
                out.missing.append((inst.id, "no daily price at or before that moment")); continue
            }
            guard let quote = Self.price(series.bars[i], field), let price = toMoney(quote),
                  let local = quantity.multiplied(by: price) else {
                out.missing.append((inst.id, "a price out of range")); continue
            }
            guard let r = rate(from: money, at: now), let home = local.multiplied(by: r) else {
                out.missing.append((inst.id, "no \(money) rate to \(out.currency) at or before that moment")); continue
            }
            var position = PositionFigures(id: inst.id, currency: money, quantity: quantity, price: quote,
                                           value: local.rounded(to: Self.minorUnits(money)),
                                           valueHome: home.rounded(to: homeMinor))
            let limit = Int64(config.staleAfterSeconds)
            position.isStale = limit > 0 && now - (series.bars[i].time + 86_400) > limit
            if !position.isStale, i > 0, let q = Self.price(series.bars[i - 1], field), let p = toMoney(q),
               let l = quantity.multiplied(by: p), let h = l.multiplied(by: r) {
                position.previousValueHome = h.rounded(to: homeMinor)
            }
            position.costHome = cost(of: inst, lots: lots, money: money, now: now, homeMinor: homeMinor, toMoney: toMoney)
            out.positions.append(position)
        }
        return out
    }

    func cost(of inst: InstrumentConfig, lots: [Lot], money: String, now: Int64, homeMinor: Int,
              toMoney: (ExactDecimal) -> ExactDecimal?) -> ExactDecimal? {
        var total = ExactDecimal.zero
        for (n, lot) in lots.enumerated() {
            // The undated `quantity` line comes first; its `cost-total` is taken as written.
            let local: ExactDecimal?
            if n == 0, inst.holding.quantity != nil, lot.date == nil {
                local = inst.holding.undatedCost()
            } else {
                local = lot.unitCost.flatMap { lot.quantity.multiplied(by: $0) }
            }
            guard let local, let m = toMoney(local) else { return nil }
            let at = lot.date?.unixTimeAtMidnightUTC ?? now
            guard let r = rate(from: money, at: at), let h = m.multiplied(by: r) else { return nil }
            total += h.rounded(to: homeMinor)
        }
        return total
    }

    /// `key=value` lines for `render --values` and the status file. With `show = percent` no
    /// money is printed, only the relative changes; with `off`, nothing.
    public static func keyValueLines(_ f: PortfolioFigures, show: PortfolioShow) -> String {
        guard show != .off else { return "" }
        let minor = minorUnits(f.currency)
        var lines: [String] = []
        func add(_ key: String, _ value: String) { lines.append(key + "=" + value) }
        if show == .value {
            add("portfolio_currency", f.currency)
            add("portfolio_value", f.value.formatted(decimals: minor))
            // No cost given anywhere: no cost and no gain, rather than 0.00 read as "break-even".
            if f.positions.contains(where: { $0.costHome != nil }) {
                add("portfolio_cost", f.cost.formatted(decimals: minor))
                add("total_gain", f.totalGain.formatted(decimals: minor))
            }
            add("day_gain", f.dayGain.formatted(decimals: minor))
        }
        add("total_gain_percent", f.totalGainPercent?.formatted(decimals: 2) ?? "-")
        add("day_gain_percent", f.dayGainPercent?.formatted(decimals: 2) ?? "-")
        if show == .value {
            for p in f.positions {
                let key = "position." + p.id
                add(key + ".quantity", p.quantity.description)
                add(key + ".price", p.price.description)
                add(key + ".value", p.value.formatted(decimals: minorUnits(p.currency)) + " " + p.currency)
                add(key + ".value_home", p.valueHome.formatted(decimals: minor))
                add(key + ".day_gain_home", p.dayGainHome?.formatted(decimals: minor) ?? "-")
                add(key + ".total_gain_home", p.totalGainHome?.formatted(decimals: minor) ?? "-")
            }
        }
        add("portfolio_missing", f.missing.isEmpty ? "-" : f.missing.map(\.id).joined(separator: ","))
        let stale = f.positions.filter(\.isStale).map(\.id)
        add("portfolio_stale", stale.isEmpty ? "-" : stale.joined(separator: ","))
        return lines.map { $0 + "\n" }.joined()
    }
}

extension Portfolio {
    /// The portfolio's value on a common grid, as a daily series an instrument's chart draws: every
    /// date any held instrument has a bar, valued with each holding's newest close at that moment
    /// (a closed exchange carries its last price) and its lots held then. A date on which some
    /// holding has no price or rate yet is left out rather than drawn as a drop. `upTo` bounds the
    /// grid (render --now): nothing after it is drawn.
    public func valueSeries(name: String, upTo now: Int64? = nil) -> PriceSeries? {
        valueSeries(name: name, upTo: now, keeping: nil)
    }

    /// The value line again after some series changed from `kept.from` on: the dates before it are
    /// `kept.line`'s (a date's value depends only on bars and rates at or before it), the rest is
    /// worked out. A held file gaining a day values one date, not thirty years of them.
    public func valueSeries(name: String, upTo now: Int64? = nil, keeping kept: (line: PriceSeries?, from: Int64)?) -> PriceSeries? {
        // The rules of `figures(at:)`'s value, walked date by date with a cursor per series instead
        // of a search and the whole figures per date: 100 holdings over 30 years took 70 s that
        // way (every date × every holding × every lot's cost), and the daemon waited for it.
        guard let home else { return nil }
        let homeMinor = Self.minorUnits(home)
        var tracks = held.map { ValueTrack(inst: $0, portfolio: self, home: home) }
        var times = Set<Int64>()
        for inst in held { for bar in daily[inst.id]?.bars ?? [] { times.insert(bar.time) } }
        var bars: [PriceBar] = []
        if let kept { bars = kept.line?.bars.filter { $0.time < kept.from } ?? [] }
        let from = kept?.from ?? .min
        dates: for t in times.sorted() where t >= from && now.map({ t <= $0 }) ?? true {
            let today = CivilDate(unixTime: t)
            var total = ExactDecimal.zero, positions = 0
            for k in tracks.indices {
                switch tracks[k].valueHome(at: t, today: today, homeMinor: homeMinor) {
                case .notHeld: continue
                case .missing: continue dates
                case .value(let v): total += v; positions += 1
                }
            }
            guard positions > 0 else { continue }
            let v = total.doubleValue
            bars.append(PriceBar(time: t, open: v, high: v, low: v, close: v))
        }
        guard !bars.isEmpty else { return nil }
        return PriceSeries(name: name, interval: .daily, bars: bars)
    }
}

/// One holding walked forward in time for `valueSeries`: its bars, its rates and its lots each
/// with a cursor that only moves on (the dates come in order).
private struct ValueTrack {
    enum Answer { case notHeld, missing, value(ExactDecimal) }
    let bars: [PriceBar]?
    let field: PriceField
    let subunit: Bool
    /// nil: no rate is ever known (no pair); the rate series and whether it converts the other way.
    let rates: (bars: [PriceBar], inverted: Bool)?
    let sameMoney: Bool
    let undated: ExactDecimal
    let dated: [(date: CivilDate, quantity: ExactDecimal)]
    var bar = -1, rate = -1, lot = 0
    var quantity: ExactDecimal
    var price: (index: Int, value: ExactDecimal?)?
    var rateValue: (index: Int, value: ExactDecimal?)?

    init(inst: InstrumentConfig, portfolio: Portfolio, home: String) {
        bars = portfolio.daily[inst.id]?.bars
        field = inst.adjusted ? .adjustedClose : .close
        subunit = Currency(code: inst.currency)?.isSubunit ?? false
        let money = Config.homeCode(of: inst.currency)
        sameMoney = money == home
        rates = portfolio.config.fxPair(from: money, to: home).flatMap { found in
            portfolio.rates[found.pair.id].map { ($0.bars, found.inverted) }
        }
        let lots = inst.holding.allLots
        undated = lots.filter { $0.date == nil }.reduce(.zero) { $0 + $1.quantity }
        dated = lots.compactMap { l in l.date.map { ($0, l.quantity) } }.sorted { $0.date < $1.date }
        quantity = undated
    }

    mutating func valueHome(at t: Int64, today: CivilDate, homeMinor: Int) -> Answer {
        while lot < dated.count, dated[lot].date <= today { quantity += dated[lot].quantity; lot += 1 }
        guard !quantity.isZero else { return .notHeld }
        guard let bars else { return .missing }
        while bar + 1 < bars.count, bars[bar + 1].time <= t { bar += 1 }
        guard bar >= 0 else { return .missing }
        if price?.index != bar {
            let quote = ExactDecimal(shortest: bars[bar].price(field))
            price = (bar, subunit ? quote?.shifted(by: -2) : quote)
        }
        guard let p = price?.value, let local = quantity.multiplied(by: p) else { return .missing }
        let r: ExactDecimal
        if sameMoney {
            r = ExactDecimal(1)
        } else {
            guard let rates else { return .missing }
            while rate + 1 < rates.bars.count, rates.bars[rate + 1].time <= t { rate += 1 }
            guard rate >= 0 else { return .missing }
            if rateValue?.index != rate {
                let raw = ExactDecimal(shortest: rates.bars[rate].price(.close))
                let value = raw.flatMap { $0.isZero ? nil : rates.inverted ? ExactDecimal(1).divided(by: $0) : $0 }
                rateValue = (rate, value)
            }
            guard let value = rateValue?.value else { return .missing }
            r = value
        }
        guard let home = local.multiplied(by: r) else { return .missing }
        return .value(home.rounded(to: homeMinor))
    }
}
/// What of the configuration the portfolio's value line comes from: a reload that changes none of
/// it keeps the line and values only what new data changed.
struct PortfolioInputs: Equatable {
    var held: [InstrumentConfig]
    var pairs: [FXPairConfig]
    var home: String?
}

extension Config {
    var portfolioInputs: PortfolioInputs {
        PortfolioInputs(held: instruments.filter { !$0.holding.isEmpty }, pairs: fxPairs, home: homeCurrency)
    }
}
