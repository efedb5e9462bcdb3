// libFuzzer harness: the price CSV parser (daily and intraday, both price fields) and the
// invariants every consumer relies on. Run with -malloc_limit_mb (Tests/fuzz.sh) for the memory bound.
import Feed
import FuzzSupport

@_cdecl("fuzz_csv_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for field in PriceField.allCases {
        let series: PriceSeries, report: ParseReport
        do { (series, report) = try YahooCSV.parse(bytes, source: "fuzz.csv", priceField: field) } catch {
            // Every error must say something and stay one short line.
            let text = "\(error)"
            fuzzCheck(!text.isEmpty && !text.contains("\n"), "error message is one line: \(text)")
            fuzzCheck(text.utf8.count < 1024, "error message is short: \(text.utf8.count) bytes")
            continue
        }
        fuzzCheck(!series.isEmpty, "a series is never empty")
        fuzzCheck(report.usedRows == series.count, "usedRows \(report.usedRows) == bars \(series.count)")
        fuzzCheck(report.dataRows == report.usedRows + report.skippedRows + report.duplicateRows,
                  "rows add up: \(report.dataRows) = \(report.usedRows) + \(report.skippedRows) + \(report.duplicateRows)")
        fuzzCheck(report.firstSkipped.count == min(report.skippedRows, ParseReport.itemisedLimit), "itemised skips")
        if let message = report.message { fuzzCheck(!message.contains("\n") && message.utf8.count < 2048, "report is one short line") }
        checkBars(series.bars, "csv")
        for bar in series.bars { fuzzCheck(bar.price(field).isFinite, "chosen price finite") }
        if case .intraday(let seconds) = series.interval { fuzzCheck(seconds > 0, "intraday spacing positive") }
        _ = series.firstIndex(atOrAfter: series.bars.last?.time ?? 0)
    }
    return 0
}
