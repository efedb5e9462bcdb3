// libFuzzer harness: every provider's response parser (Yahoo chart JSON, Stooq CSV, Alpha Vantage
// and Twelve Data JSON, plain HTTP CSV), daily and intraday, on the same bytes; what a parser
// accepts must be what the data files may hold: bars in time order, prices finite and positive.
// The same bytes as a fetcher status file: the reason the wall shows from it is one short line.
import Feed
@testable import Fetch
import FuzzSupport

@main enum Harness { static func main() { runFuzzer(fuzz) } }

let providers: [any Provider] = ["yahoo", "stooq", "alphavantage", "twelvedata", "http-csv"].compactMap {
    Providers.make(ProviderSettings(name: $0, kind: $0))
}

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    let status = size > 0 && data[0] == 0x7F ? 429 : 200
    for provider in providers {
        for slot in Slot.allCases where provider.supports(slot) {
            let request = FetchRequest(symbol: "AAPL", slot: slot, now: 1_796_000_000, fileName: "AAPL.csv",
                                       newestBarOnDisk: size % 3 == 0 ? 1_700_000_000 : nil)
            let response = HTTPResponse(status: status, headers: ["content-type": "application/json"], body: body)
            switch provider.parse(response, for: request) {
            case .success(let result):
                checkBars(result.bars, provider.name)
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
