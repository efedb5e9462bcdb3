// The invariants every price series holds, whichever parser made it (the CSV reader, a provider
// adapter): one check, so the harnesses ask the same of all of them.
import Feed

/// Times strictly ascending, prices finite and positive, volumes finite and not negative.
public func checkBars(_ bars: [PriceBar], _ who: String) {
    var previous: Int64?
    for bar in bars {
        if let previous { fuzzCheck(bar.time > previous, "\(who): times strictly ascending") }
        previous = bar.time
        for p in [bar.open, bar.high, bar.low, bar.close] + [bar.adjustedClose].compactMap({ $0 }) {
            fuzzCheck(p.isFinite && p > 0, "\(who): price finite and positive: \(p)")
        }
        if let v = bar.volume { fuzzCheck(v.isFinite && v >= 0, "\(who): volume finite, not negative: \(v)") }
    }
}
