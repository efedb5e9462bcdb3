// libFuzzer harness: CSV bytes -> instrument -> every scene, drawn at a small size: the line in
// every range (and morphs between them), the bar chart of monthly change, the draw-in, and
// scrubbing at several x, with the stats line and the clock. The parser's output is only the
// start: this checks its consumers.
import Chart
import Feed
import FuzzSupport
import Text

nonisolated(unsafe) let fonts: FontSet = {
    do { return try FontSet.load() } catch { fatalError("fuzz-scenes needs the fonts: \(error)") }
}()
let zone = SampleMarket.timeZone

@main enum Harness { static func main() { runFuzzer(fuzz) } }

func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    // Four fixed bytes, then the CSV: the seeds are plain CSV files behind a 4-byte prefix.
    let choice = input.byte(), xa = input.byte(), xb = input.byte(), sizeChoice = input.byte()
    let xs = (Double(xa) - 20, xb == 255 ? Double.nan : xb == 254 ? 1e308 : Double(xb) / 2)
    let csv = Array(input.remaining)
    let field: PriceField = choice & 0x80 != 0 ? .adjustedClose : .close
    guard let (series, _) = try? YahooCSV.parse(csv, source: "F.csv", priceField: field) else { return 0 }
    let market = series.interval.isIntraday
        ? MarketData(daily: nil, intraday: series, timeZone: zone, priceField: field)
        : MarketData(daily: series, intraday: nil, timeZone: zone, priceField: field)
    let instrument = Instrument(name: "F", market: market)
    // Small sizes keep an execution cheap; odd ones catch layout arithmetic that assumes room.
    let sizes = [(96, 64), (64, 96), (33, 17), (160, 90), (1, 1)]
    let (w, h) = sizes[Int(sizeChoice) % sizes.count]
    let ranges = ChartRange.allCases
    // Bit 6: the stats line (`[chart] stats = full`), bit 5: the header's clock.
    let model = ScreenModel(instrument: instrument, width: w, height: h, fonts: fonts,
                            range: ranges[Int(choice) % ranges.count], stats: choice & 0x40 != 0 ? .full : .off)
    if choice & 0x20 != 0 { model.clock = "12:34 EST" }
    if let s = model.stats().figures {
        // Whatever the file, the figures are prices it holds: finite, ordered, the place in range a percentage.
        if let lo = s.dayLow, let hi = s.dayHigh { fuzzCheck(lo.isFinite && hi.isFinite && lo <= hi, "day range ordered") }
        if let lo = s.yearLow, let hi = s.yearHigh { fuzzCheck(lo.isFinite && hi.isFinite && lo <= hi, "52-week range ordered") }
        if let p = s.yearPosition { fuzzCheck(p >= 0 && p <= 100, "place in the 52 weeks a percentage") }
        if let v = s.volume { fuzzCheck(v > 0 && v.isFinite, "volume positive") }
    }
    var t = 0.0
    let renderer = SceneRenderer()
    func frame() {
        let canvas = renderer.render(model, at: t)
        fuzzCheck(canvas.width == w && canvas.height == h, "canvas keeps its size")
        let v = model.values()
        if let p = v.price { fuzzCheck(p.isFinite, "shown price finite") }
        t += 0.35
    }
    // Every scene's geometry is computed each execution; only two frames are drawn (one mid-motion,
    // one settled), so an execution stays cheap enough for millions of them.
    switch choice % 4 {
    case 0:
        // Every range is laid out; the morph into one of them is drawn.
        for r in ranges { model.select(r, at: t); _ = model.values() }
        model.select(ranges[Int(xa) % ranges.count], at: t)
        t += 0.2; frame(); t += 2; frame()
    case 1:
        model.show(.bars, at: t); t += 0.4; frame(); t += 3; frame()
    case 2:
        model.show(.drawIn, at: t); t += 0.7; frame(); t += 3; frame()
    default:
        for x in [xs.0, xs.1, 0, Double(w) / 2, Double(w) - 1, -5, Double(w) + 5] {
            _ = model.scrub(atX: x)
            if let i = model.scrubIndex { fuzzCheck(i >= 0 && i < model.selection(for: model.range).points.count, "scrub index in range") }
            _ = model.values()
        }
        frame()
        model.endScrub(); frame()
    }
    return 0
}
