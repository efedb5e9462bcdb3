// What the keyless crypto adapters share (Coinbase.swift, Kraken.swift, Binance.swift,
// CoinGecko.swift): the pair syntax of the config, JSON arrays of mixed numbers and strings, and
// the checks and facts every candle answer gets. Crypto trades around the clock in UTC: daily
// candles start at 00:00 UTC, intraday ones are 5 minutes wide, so that one request covers a whole
// 1D (Coinbase sends at most 300 candles, Kraken 720, Binance 1000: 25 hours and more).

import Feed

/// A pair as the config writes it: `BTC-EUR` or `BTC/EUR`, base then quote.
struct CryptoPair: Equatable {
    var base: String
    var quote: String

    init?(_ symbol: String) {
        let parts = symbol.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "-" || $0 == "/" })
        guard parts.count == 2 else { return nil }
        let words = parts.map { $0.uppercased() }
        for word in words {
            guard (2...12).contains(word.count), word.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        }
        base = words[0]
        quote = words[1]
    }

    /// Said when provider `provider` needs a pair and the config gave something else.
    static func problem(_ symbol: String, provider: String) -> String? {
        CryptoPair(symbol) == nil
            ? "\(provider) needs a pair like BTC-EUR (base-quote; symbol = or \(provider)-symbol =), found \"\(symbol)\"" : nil
    }
}

/// The exchanges' candle adapters (Coinbase, Kraken, Binance): every slot, a pair for a symbol.
public protocol ExchangeCandles: Provider {}

extension ExchangeCandles {
    public func supports(_ slot: Slot) -> Bool { true }
    public static func symbolProblem(_ symbol: String, name: String) -> String? { CryptoPair.problem(symbol, provider: name) }
}

/// One element of a JSON array that mixes numbers and strings (Kraken's and Binance's candles).
enum JSONScalar: Decodable, Equatable {
    case integer(Int64)
    case number(Double)
    case text(String)
    case other

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Int64.self) {
            self = .integer(v)
        } else if let v = try? c.decode(Double.self) {
            self = .number(v)
        } else if let v = try? c.decode(String.self) {
            self = .text(v)
        } else {
            self = .other
        }
    }

    /// A price or quantity: a JSON number, or a decimal string read as `Double(_:)` reads it
    /// (correctly rounded, as the CSV and Twelve Data's strings are read).
    var double: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .number(let v): return v
        case .text(let t): return Double(t)
        case .other: return nil
        }
    }

    /// A time: a JSON integer, or a number with nothing after the point.
    var integer: Int64? {
        switch self {
        case .integer(let v): return v
        case .number(let v): return v.rounded(.towardZero) == v && abs(v) < 9e18 ? Int64(v) : nil
        case .text(let t): return Int64(t)
        case .other: return nil
        }
    }

    var described: String {
        switch self {
        case .integer(let v): return "\(v)"
        case .number(let v): return "\(v)"
        case .text(let t): return "\"\(ResponseChecks.oneLine(t, limit: 20))\""
        case .other: return "null"
        }
    }
}

enum CryptoCandles {
    /// Intraday candles are this wide (see the file's head).
    static let intradaySeconds: Int64 = 300

    static func seconds(_ slot: Slot) -> Int64 { slot == .daily ? 86_400 : intradaySeconds }

    /// How many candles reach back to the newest bar on disk (and over it: it may have been in
    /// progress), at most `maximum`; the maximum the first time.
    static func count(for request: FetchRequest, maximum: Int) -> Int {
        guard let newest = request.newestBarOnDisk else { return maximum }
        let (gap, overflow) = request.now.subtractingReportingOverflow(newest)
        guard !overflow, gap >= 0 else { return maximum }
        return Int(min(Int64(maximum), gap / seconds(request.slot) + 2))
    }

    /// One candle as an adapter read it.
    struct Candle {
        var time: Int64
        var open: Double
        var high: Double
        var low: Double
        var close: Double
        var volume: Double?
    }

    /// Columns of one candle by index; the first bad value names the candle and the field.
    struct Row {
        let fields: [JSONScalar]
        let index: Int

        func number(_ at: Int, _ name: String) throws(FetchProblem) -> Double {
            guard at < fields.count else { throw .badData("candle \(index + 1) has \(fields.count) fields, no \(name)") }
            guard let v = fields[at].double else {
                throw .badData("candle \(index + 1): \(name) is \(fields[at].described), expected a number")
            }
            return v
        }

        func time(_ at: Int, _ name: String = "time") throws(FetchProblem) -> Int64 {
            guard at < fields.count, let v = fields[at].integer else {
                throw .badData("candle \(index + 1): \(name) is \(at < fields.count ? fields[at].described : "missing"), expected a whole number")
            }
            return v
        }
    }

    /// Candles read by `read`, checked like every provider's bars, then: each on the slot's grid
    /// (a daily candle at 00:00 UTC), and an intraday answer with candles closer than a day (else
    /// it is daily bars).
    static func bars(_ rows: [[JSONScalar]], slot: Slot, empty: String,
                     read: (Row) throws(FetchProblem) -> Candle) -> Result<[PriceBar], FetchProblem> {
        guard !rows.isEmpty else { return .failure(.badData(empty)) }
        var candles: [Candle] = []
        candles.reserveCapacity(rows.count)
        do throws(FetchProblem) {
            for (index, fields) in rows.enumerated() { candles.append(try read(Row(fields: fields, index: index))) }
        } catch {
            return .failure(error)
        }
        let step = seconds(slot)
        if let off = candles.first(where: { $0.time % step != 0 }) {
            return .failure(.badData("a candle at t=\(off.time) is off the \(slot == .daily ? "00:00 UTC" : "\(step) s") grid: not \(slot) candles"))
        }
        return ResponseChecks.bars(times: candles.map(\.time), open: candles.map { $0.open }, high: candles.map { $0.high },
                                   low: candles.map { $0.low }, close: candles.map { $0.close }, volume: candles.map(\.volume)).flatMap { raw in
            let bars = ResponseChecks.sorted(raw)
            // Two or more intraday bars whose closest are a day or more apart are daily bars.
            if slot == .intraday, bars.count >= 2, let closest = zip(bars, bars.dropFirst()).map({ $1.time &- $0.time }).min(),
                closest >= 86_400
            {
                return .failure(.badData("asked for intraday bars, the closest are \(closest / 3600) hours apart: daily bars"))
            }
            return .success(bars)
        }
    }

    /// The facts of a crypto answer: UTC, around the clock, the quote currency, the newest price.
    static func data(_ bars: [PriceBar], slot: Slot, currency: String?, symbol: String) -> ProviderData {
        var data = ProviderData(bars: bars, interval: slot == .daily ? .daily : .intraday(seconds: Int(intradaySeconds)))
        data.symbol = symbol
        data.currency = currency
        data.exchangeTimeZone = "UTC"
        data.tradesAroundTheClock = true
        data.marketState = "REGULAR"
        data.price = bars.last?.close
        if slot == .daily, bars.count >= 2 { data.previousClose = bars[bars.count - 2].close }
        return data
    }

    /// The `message` (Coinbase), `msg` (Binance) or `error` (CoinGecko, Kraken's first) of an error
    /// body, on one line; nil when the body is not such an object.
    static func errorMessage(_ body: [UInt8]) -> String? {
        guard case .success(let e) = decodeJSON(ErrorBody.self, body) else { return nil }
        let said = e.message ?? e.msg ?? e.error ?? e.errorList?.first ?? e.status?.error_message ?? e.nested?.status?.error_message
        return said.map { ResponseChecks.oneLine($0) }
    }

    struct ErrorBody: Decodable {
        struct Status: Decodable {
            var error_code: Int?
            var error_message: String?
        }
        struct Nested: Decodable { var status: Status? }
        var message: String?
        var msg: String?
        var code: Int?
        var error: String?
        var errorList: [String]?
        var status: Status?
        var nested: Nested?

        enum Keys: String, CodingKey { case message, msg, code, error, status }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            message = try? c.decode(String.self, forKey: .message)
            msg = try? c.decode(String.self, forKey: .msg)
            code = try? c.decode(Int.self, forKey: .code)
            error = try? c.decode(String.self, forKey: .error)
            errorList = try? c.decode([String].self, forKey: .error)
            status = try? c.decode(Status.self, forKey: .status)
            nested = try? c.decode(Nested.self, forKey: .error)
        }
    }
}
