// The built-in sample market: a fictional instrument whose prices our own code invents, so the
// daemon shows a realistic chart with no configuration and no vendor data (issue 2).
//
// Determinism is the point: the same bytes on every machine, forever, so golden images and the
// checked-in CSVs in assets/sample stay valid. Hence a fixed seed, a fixed end date, a fixed POSIX
// rule for New York instead of whatever tzdata is installed, and only IEEE +, -, *, / and
// squareRoot (correctly rounded everywhere) — no exp/log/sin from libm, whose last bits differ
// between C libraries. Normal variates come from the Irwin–Hall sum of 12 uniforms for the same
// reason; its missing far tails are supplied by explicit jump days.

/// A deterministic synthetic stock: "Tickerboard Sample Co." (TBSC), NYSE calendar, USD.
public enum SampleMarket {
    public static let symbol = "TBSC"
    public static let name = "Tickerboard Sample Co."
    public static let currency = "USD"
    public static let timeZoneIdentifier = "America/New_York"

    /// First daily bar (about seven years before `lastDate`, so a 5Y range is full).
    public static let firstDate = CivilDate(uncheckedYear: 2019, month: 12, day: 2)
    /// The newest trading day of the sample (the day after Thanksgiving 2026, an early close).
    public static let lastDate = CivilDate(uncheckedYear: 2026, month: 11, day: 27)
    /// How many of the latest sessions also have 1-minute bars.
    public static let intradaySessionCount = 5

    /// New York time as the US has kept it since 2007, built in so the sample needs no tzdata.
    public static let timeZone: ExchangeTimeZone = {
        do {
            return try ExchangeTimeZone(identifier: timeZoneIdentifier, posixRule: "EST5EDT,M3.2.0,M11.1.0")
        } catch {
            fatalError("built-in TZ rule does not parse: \(error)")  // a constant: caught by the tests
        }
    }()

    /// About seven years of daily bars ending on `lastDate`; `time` is each date's UTC midnight.
    public static func daily() -> PriceSeries {
        PriceSeries(name: symbol, interval: .daily, bars: generated.daily.map(\.bar))
    }

    /// 1-minute bars of the last `intradaySessionCount` sessions (09:30–16:00 New York, 13:00 on
    /// early-close days). Their last close is the last daily close.
    public static func intraday() -> PriceSeries {
        PriceSeries(name: symbol, interval: .intraday(seconds: 60), bars: generated.intraday.map(\.bar))
    }

    /// The daily bars in the Yahoo layout (`Date,Open,High,Low,Close,Adj Close,Volume`).
    public static func dailyCSV() -> String {
        csv(header: "Date", rows: generated.daily) { $0.date.description }
    }

    /// The 1-minute bars in the yfinance layout, `Datetime` with the New York UTC offset.
    public static func intradayCSV() -> String {
        csv(header: "Datetime", rows: generated.intraday) { row in
            "\(CivilDateTime(unixTime: row.time, utcOffset: row.utcOffset))\(formatUTCOffset(row.utcOffset))"
        }
    }

    // MARK: - Generation

    /// A bar in exact fixed point: prices in millionths of a dollar, the precision of the CSV, so
    /// the series and its CSV are the same numbers (parsing the CSV gives back identical Doubles).
    struct Row {
        var date: CivilDate
        var time: Int64
        var utcOffset: Int
        var open: Int64
        var high: Int64
        var low: Int64
        var close: Int64
        var adjustedClose: Int64
        var volume: Int64

        var bar: PriceBar {
            PriceBar(
                time: time,
                open: dollars(open),
                high: dollars(high),
                low: dollars(low),
                close: dollars(close),
                adjustedClose: dollars(adjustedClose),
                volume: Double(volume)
            )
        }
    }

    static let generated = SampleGenerator.run()

    private static func csv(header: String, rows: [Row], stamp: (Row) -> String) -> String {
        var text = "\(header),Open,High,Low,Close,Adj Close,Volume\n"
        text.reserveCapacity(rows.count * 72)
        for row in rows {
            text += stamp(row)
            for micros in [row.open, row.high, row.low, row.close, row.adjustedClose] {
                text += ","
                text += formatMicros(micros)
            }
            text += ",\(row.volume)\n"
        }
        return text
    }
}

/// `123.450000` for 123_450_000: the six decimals yfinance writes, without floating-point printing.
func formatMicros(_ micros: Int64) -> String {
    let sign = micros < 0 ? "-" : ""
    let magnitude = micros.magnitude
    let fraction = String(magnitude % 1_000_000)
    return "\(sign)\(magnitude / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
}

@inline(__always)
private func dollars(_ micros: Int64) -> Double { Double(micros) / 1e6 }

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and fully specified, so the sequence is the
/// same on every platform and compiler, unlike the stdlib's unseeded generator. The benchmark's
/// reference scene (shared/bench/SCENE.md §3) and the tests' mutations use it too.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Approximately standard normal (Irwin–Hall, 12 uniforms): mean 0, variance 1, within ±6.
    mutating func normal() -> Double {
        var sum = 0.0
        for _ in 0..<12 { sum += unit() }
        return sum - 6
    }
}

/// The sample's random walk. Internal (not private) so tests can run it afresh.
struct SampleGenerator {
    // Model parameters. Annual volatility 25 % in the long run with GARCH(1,1) clustering: calm
    // stretches and nervous weeks, as real stocks have. Drift 9 %/yr.
    static let seed: UInt64 = 0x5442_5343_2026_1127  // "TBSC", 2026-11-27
    static let startPrice = 38.0
    static let annualDrift = 0.09
    static let annualVolatility = 0.25
    static let tradingDaysPerYear = 252.0
    static let garchAlpha = 0.09
    static let garchBeta = 0.87
    /// Roughly two "earnings surprise" days a year, moving the price 3–6 standard deviations.
    static let jumpProbability = 0.008
    static let baseVolume = 18_000_000.0
    /// Quarterly dividend per share, paid from the first trading day on or after the 8th of
    /// February, May, August and November; it grows a cent a year.
    static let firstDividend = 0.19

    /// E[shock²]: 1 for the normal part plus the jumps' share (size uniform in 3...6: E[s²] = 21).
    static let shockSecondMoment = 1 + jumpProbability * 21

    var random = SplitMix64(seed: seed)
    /// The GARCH long-run variance, set so normal days and jumps together give `annualVolatility`.
    let longRunVariance = annualVolatility * annualVolatility / tradingDaysPerYear / shockSecondMoment
    var variance: Double
    var daily: [SampleMarket.Row] = []
    var intraday: [SampleMarket.Row] = []
    var dividends: [CivilDate: Double] = [:]

    init() { variance = longRunVariance }

    static func run() -> (daily: [SampleMarket.Row], intraday: [SampleMarket.Row]) {
        var generator = SampleGenerator()
        generator.generate()
        return (generator.daily, generator.intraday)
    }

    mutating func generate() {
        let days = NYSECalendar.tradingDays(from: SampleMarket.firstDate, through: SampleMarket.lastDate)
        scheduleDividends(on: days)
        var previousClose = cents(SampleGenerator.startPrice)
        for (index, day) in days.enumerated() {
            if index < days.count - SampleMarket.intradaySessionCount {
                previousClose = dailyBar(on: day, previousClose: previousClose)
            } else {
                previousClose = session(on: day, previousClose: previousClose)
            }
        }
        adjustForDividends()
    }

    mutating func scheduleDividends(on days: [CivilDate]) {
        var index = 0
        for year in SampleMarket.firstDate.year...SampleMarket.lastDate.year {
            let amount = SampleGenerator.firstDividend + 0.01 * Double(year - SampleMarket.firstDate.year)
            for month in [2, 5, 8, 11] {
                let target = CivilDate(uncheckedYear: year, month: month, day: 8)
                while index < days.count && days[index] < target { index += 1 }
                // Not on the very first bar: there is no earlier close to adjust.
                if index < days.count && index > 0 { dividends[days[index]] = amount }
            }
        }
    }

    /// One day of the daily-only history; returns the close in micros.
    mutating func dailyBar(on day: CivilDate, previousClose: Int64) -> Int64 {
        let reference = Double(previousClose) / 1e6 - (dividends[day] ?? 0)
        let sigma = variance.squareRoot()
        let shock = dailyShock()
        let dayReturn = SampleGenerator.annualDrift / SampleGenerator.tradingDaysPerYear + sigma * shock
        let open = cents(reference * (1 + sigma * 0.3 * random.normal()))
        let close = cents(reference * (1 + dayReturn))
        let wick = sigma * 0.45
        let high = max(cents(Double(max(open, close)) / 1e6 * (1 + abs(random.normal()) * wick)), open, close)
        let low = min(cents(Double(min(open, close)) / 1e6 * (1 - abs(random.normal()) * wick)), open, close)
        let volume = dailyVolume(shock: shock)
        daily.append(
            SampleMarket.Row(
                date: day,
                time: day.unixTimeAtMidnightUTC,
                utcOffset: 0,
                open: open,
                high: high,
                low: max(low, 10_000),
                close: close,
                adjustedClose: close,
                volume: volume
            )
        )
        updateVariance(dayReturn: Double(close) / 1e6 / reference - 1)
        return close
    }

    /// One session of 1-minute bars plus the daily bar that summarises it; returns the close.
    mutating func session(on day: CivilDate, previousClose: Int64) -> Int64 {
        guard let hours = NYSECalendar.session(on: day) else { return previousClose }
        let minutes = (hours.close - hours.open) / 60
        let reference = Double(previousClose) / 1e6 - (dividends[day] ?? 0)
        // A shorter session carries proportionally less variance.
        let sessionSigma = (variance * Double(minutes) / 390).squareRoot()
        let totalVolume = Double(dailyVolume(shock: random.normal())) * Double(minutes) / 390

        // Volatility and volume are U-shaped over the day: busy open, quiet lunch, busy close.
        var volatilityWeights: [Double] = []
        var volumeWeights: [Double] = []
        for minute in 0..<minutes {
            let x = (Double(minute) + 0.5) / Double(minutes)
            let centred = 2 * x - 1
            volatilityWeights.append((minute == 0 ? 2.5 : 1) * (0.6 + 1.4 * centred * centred))
            let early = (1 - x) * (1 - x) * (1 - x) * (1 - x)
            let late = x * x * x * x
            volumeWeights.append((minute == 0 ? 4 : 1) * (0.5 + 1.5 * early * early + 2.2 * late * late))
        }
        let volatilityNorm = volatilityWeights.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let volumeNorm = volumeWeights.reduce(0, +)
        let minuteDrift = SampleGenerator.annualDrift / SampleGenerator.tradingDaysPerYear / 390

        var last = cents(reference * (1 + sessionSigma * 0.3 * random.normal()))
        var first: SampleMarket.Row?
        var high = Int64.min
        var low = Int64.max
        var volume: Int64 = 0
        for minute in 0..<minutes {
            let sigma = sessionSigma * volatilityWeights[minute] / volatilityNorm
            let price = Double(last) / 1e6
            let open = last
            let close = cents(price * (1 + minuteDrift + sigma * random.normal()))
            let barHigh = max(
                cents(Double(max(open, close)) / 1e6 * (1 + abs(random.normal()) * sigma * 0.5)),
                open,
                close
            )
            let barLow = min(
                cents(Double(min(open, close)) / 1e6 * (1 - abs(random.normal()) * sigma * 0.5)),
                open,
                close
            )
            let noise = 0.6 + 0.8 * random.unit()
            let barVolume = Int64((totalVolume * volumeWeights[minute] / volumeNorm * noise).rounded())

            let wallClock = CivilDateTime(unixTime: day.unixTimeAtMidnightUTC + Int64(hours.open + minute * 60))
            let time = SampleMarket.timeZone.unixTime(for: wallClock)
            let row = SampleMarket.Row(
                date: day,
                time: time,
                utcOffset: SampleMarket.timeZone.utcOffset(atUnixTime: time),
                open: open,
                high: barHigh,
                low: max(barLow, 10_000),
                close: close,
                adjustedClose: close,
                volume: barVolume
            )
            intraday.append(row)
            if first == nil { first = row }
            high = max(high, row.high)
            low = min(low, row.low)
            volume += barVolume
            last = close
        }
        daily.append(
            SampleMarket.Row(
                date: day,
                time: day.unixTimeAtMidnightUTC,
                utcOffset: 0,
                open: first!.open,
                high: high,
                low: low,
                close: last,
                adjustedClose: last,
                volume: volume
            )
        )
        updateVariance(dayReturn: Double(last) / 1e6 / reference - 1)
        return last
    }

    /// A standard-normal day, or now and then a jump of 3–6 standard deviations either way.
    mutating func dailyShock() -> Double {
        var shock = random.normal()
        if random.unit() < SampleGenerator.jumpProbability {
            let size = 3 + 3 * random.unit()
            shock += random.unit() < 0.5 ? -size : size
        }
        return shock
    }

    /// Volume rises with the size of the move, as it does on news days; rounded to 100-share lots.
    mutating func dailyVolume(shock: Double) -> Int64 {
        let activity = (0.7 + 0.6 * random.unit()) * (0.75 + 0.45 * abs(shock))
        return Int64((SampleGenerator.baseVolume * activity / 100).rounded()) * 100
    }

    mutating func updateVariance(dayReturn: Double) {
        let mean = SampleGenerator.annualDrift / SampleGenerator.tradingDaysPerYear
        // Jumps feed the variance too, so ω accounts for E[shock²] > 1 to keep the long run on target.
        let omega =
            longRunVariance
            * (1 - SampleGenerator.garchAlpha * SampleGenerator.shockSecondMoment - SampleGenerator.garchBeta)
        let surprise = dayReturn - mean
        // Capped so one extreme day cannot send the model into a volatility spiral.
        variance = min(
            omega + SampleGenerator.garchAlpha * surprise * surprise + SampleGenerator.garchBeta * variance,
            16 * longRunVariance
        )
    }

    /// Yahoo's adjustment: every close before an ex-dividend day is scaled by
    /// (1 - dividend / the close the day before it), compounding backwards from today.
    mutating func adjustForDividends() {
        var factor = 1.0
        var index = daily.count - 1
        while index >= 0 {
            daily[index].adjustedClose = Int64((Double(daily[index].close) * factor).rounded())
            if index > 0, let dividend = dividends[daily[index].date] {
                factor *= 1 - dividend / (Double(daily[index - 1].close) / 1e6)
            }
            index -= 1
        }
    }

    /// Rounds dollars to whole cents (the US tick size), in micros.
    func cents(_ dollars: Double) -> Int64 {
        Int64((max(dollars, 0.01) * 100).rounded(.toNearestOrAwayFromZero)) * 10_000
    }
}
