// libFuzzer harness: the fetcher as a whole, as a property. Even first byte: the bytes are a
// fetcher config; one it accepts runs a whole dry pass against a transport that answers with the
// same bytes (scheduler, every provider, the checks, the merge) at three wall times, without a trap.
// Odd first byte: the bytes are a provider's answer, taken through the fetcher's own steps (parse,
// nothing after tomorrow, plausibility against a history, merge, render); whatever it would write
// the shared reader reads back row for row, and the daemon's chart can take every range of it.
import Chart
import Feed
@testable import Fetch
import FuzzSupport

@main enum Harness { static func main() { runFuzzer(fuzz) } }

struct Canned: HTTPTransport {
    let body: [UInt8]
    func get(_ request: HTTPRequest) -> Result<HTTPResponse, TransportError> {
        .success(HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: body))
    }
}

let kinds = ["yahoo", "stooq", "alphavantage", "twelvedata", "http-csv", "coinbase", "kraken", "binance", "coingecko"]
let providers: [any Provider] = kinds.compactMap { Providers.make(ProviderSettings(name: $0, kind: $0)) }
/// The crypto adapters want a pair.
let pairs: Set<String> = ["coinbase", "kraken", "binance", "coingecko"]
let now: Int64 = 1_796_000_000
let history: [PriceBar] = (0..<30).map { i in
    let c = 100 + Double(i % 7)
    return PriceBar(time: 1_793_000_000 - 1_793_000_000 % 86_400 + Int64(i) * 86_400, open: c, high: c + 1, low: c - 1, close: c)
}
let newYork = (try? ExchangeTimeZone(identifier: "America/New_York", posixRule: "EST5EDT,M3.2.0,M11.1.0")) ?? .utc

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 2 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes[0] % 2 == 0 { config(Array(bytes.dropFirst())) } else { pipeline(bytes[1], bytes[2], Array(bytes.dropFirst(3))) }
    return 0
}

func config(_ body: [UInt8]) {
    let (config, issues) = FetchConfig.parse(String(decoding: body, as: UTF8.self), file: "fuzz.conf")
    for issue in issues { fuzzCheck(!"\(issue)".contains("\n"), "config: one line per problem") }
    guard !issues.contains(where: \.isError), config.instruments.count <= 8 else { return }
    let fetcher = Fetcher(config: config, transport: Canned(body: body), mode: .dryRun, environment: [:],
                          log: FetchLog { _, _ in })
    for t in [0, now, 4_102_444_800] as [Int64] {
        _ = fetcher.runOnce(clock: { t })
        _ = fetcher.scheduler.next(now: t, jobs: fetcher.jobs)
    }
}

func pipeline(_ which: UInt8, _ flags: UInt8, _ body: [UInt8]) {
    let provider = providers[Int(which) % providers.count]
    let slot: Slot = flags % 2 == 0 || !provider.supports(.intraday) ? .daily : .intraday
    guard provider.supports(slot) else { return }
    let request = FetchRequest(symbol: pairs.contains(provider.name) ? "BTC-EUR" : "AAPL", slot: slot, now: now, fileName: "AAPL.csv",
                               newestBarOnDisk: flags & 2 == 0 ? history.last?.time : nil)
    let response = HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: body)
    guard case .success(var data) = provider.parse(response, for: request) else { return }
    data.bars.removeAll { $0.time > Fetcher.horizon(now) }
    let existing = flags & 4 == 0 ? history : []
    guard !data.bars.isEmpty, Plausibility.problem(new: data.bars, existing: existing) == nil else { return }
    let merged = DataFile.merge(existing: existing, new: data.bars, slot: slot, sessions: 5, zone: newYork)
    let rendered = DataFile.render(merged, slot: slot, zone: newYork)
    guard DataFile.unreadable(rendered, rows: merged.count) == nil else { return }
    // What the fetcher writes, the daemon reads (it leaves out an unterminated last line).
    guard let (series, report) = try? YahooCSV.parse(rendered, source: "AAPL.csv", completeLinesOnly: true) else {
        fuzzCheck(false, "the daemon's reader refuses what the fetcher would write")
        return
    }
    fuzzCheck(report.isClean && series.count == merged.count, "read back row for row")
    let market = MarketData(daily: slot == .daily ? series : nil, intraday: slot == .intraday ? series : nil,
                            timeZone: newYork, calendar: ExchangeCalendar.named("XNYS"))
    for range in ChartRange.allCases { _ = market.points(for: range) }
    _ = market.drawableRanges(of: ChartRange.allCases)
}
