// libFuzzer harness: every provider's response parser (Yahoo chart JSON, Stooq CSV, Alpha Vantage
// and Twelve Data JSON, plain HTTP CSV, the crypto exchanges' candles and CoinGecko's chart),
// daily and intraday, on the same bytes; what a parser accepts must be what the data files may
// hold: bars in time order, prices finite and positive.
// The same bytes as a fetcher status file: the reason the wall shows from it is one short line.
import Feed
@testable import Fetch
import FuzzSupport

@main enum Harness { static func main() { runFuzzer(fuzz) } }

let providers: [any Provider] = ProviderKind.all.map(\.name).compactMap {
    Providers.make(ProviderSettings(name: $0, kind: $0, baseURL: $0 == "http-csv" ? "http://127.0.0.1:9" : nil))
}
/// The crypto adapters want a pair; the others a ticker.
let crypto: Set<String> = ["coinbase", "kraken", "binance", "coingecko"]

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    let status = size > 0 && data[0] == 0x7F ? 429 : 200
    for provider in providers {
        for slot in Slot.allCases where provider.supports(slot) {
            let symbol = crypto.contains(provider.name) ? (size % 2 == 0 ? "BTC-EUR" : "ETH/USD") : "AAPL"
            let request = FetchRequest(symbol: symbol, slot: slot, now: 1_796_000_000, fileName: "AAPL.csv",
                                       newestBarOnDisk: size % 3 == 0 ? 1_700_000_000 : nil)
            let headers = ["content-type": "application/json", "retry-after": size % 5 == 0 ? "Wed, 21 Oct 2015 07:28:00 GMT" : "30"]
            let response = HTTPResponse(status: size > 1 && data[1] == 0x7F ? 418 : status, headers: headers, body: body)
            switch provider.parse(response, for: request) {
            case .success(let result):
                checkBars(result.bars, provider.name)
                if crypto.contains(provider.name) {
                    fuzzCheck(result.exchangeTimeZone == "UTC" && result.tradesAroundTheClock, "\(provider.name): UTC, around the clock")
                    // Daily bars at UTC midnights, intraday ones on the 5-minute grid.
                    let step: Int64 = slot == .daily ? 86_400 : 300
                    fuzzCheck(result.bars.allSatisfy { $0.time % step == 0 }, "\(provider.name): bars on the \(slot) grid")
                }
                if case .intraday(let s) = result.interval { fuzzCheck(s > 0, "\(provider.name): spacing positive") }
            case .failure(let problem):
                let text = "\(problem)"
                fuzzCheck(!text.contains("\n") && text.utf8.count < 2048, "\(provider.name): problem is one short line")
            }
        }
    }
    if let parsed = FetchStatus.parse(body) {
        for now in [Int64.min, 0, 1_796_000_000, Int64.max] {
            if let reason = parsed.reason(at: now) {
                fuzzCheck(!reason.contains("\n") && reason.count <= 200, "status: the reason is one short line")
            }
        }
    }
    return 0
}
