// libFuzzer harness: the number formatters (prices, changes, percentages, bar-chart tick labels)
// and the tick generator on arbitrary doubles: NaN, ±inf, subnormals, 1e308.
@testable import Chart
import FuzzSupport
import Text

@main enum Harness { static func main() { runFuzzer(fuzz) } }

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let format = PriceFormat(decimals: input.int(below: 16) - 2, groupingSeparator: input.bool() ? "," : "\u{202F}",
                             groupingSize: input.int(below: 6), decimalSeparator: input.bool() ? "." : ",",
                             currencySymbol: input.bool() ? "$" : "€", symbolPosition: input.bool() ? .before : .after)
    let scene = BarChartScene(bars: [], plot: PlotRect(left: 0, top: 0, right: 100, bottom: 50), palette: .standard)
    while !input.isAtEnd {
        let v = input.double(), w = input.double()
        for text in [format.price(v), format.number(v), format.change(v), format.change(v, currency: true),
                     format.percent(v), format.percent(v, decimals: input.int(below: 20) - 4)] {
            // 309 digits of 1e308, a 3-byte separator after each (grouping size 1), 12 decimals: the longest.
            fuzzCheck(!text.isEmpty && text.utf8.count < 2048, "formatted text is bounded: \(text.utf8.count)")
            if !v.isFinite { continue }
        }
        fuzzCheck(scene.formatTick(v).utf8.count < 64, "tick label short")
        let maxLines = input.int(below: 12)
        let scale = NiceScale(covering: v, w, maxLines: maxLines)
        fuzzCheck(scale.lines.count <= 12 && scale.lines.allSatisfy(\.isFinite) && scale.lines.contains(0),
                  "nice scale of \(v), \(w) in \(maxLines): at most 12 finite lines through zero: \(scale.lines)")
        let count = input.int(below: 12)
        let ticks = niceTicks(lo: min(v, w), hi: max(v, w), count: count)
        fuzzCheck(ticks.count <= 101, "at most 101 ticks")
        fuzzCheck(ticks.allSatisfy(\.isFinite), "ticks are finite: \(min(v, w))...\(max(v, w)) count \(count): \(ticks)")
    }
    return 0
}
