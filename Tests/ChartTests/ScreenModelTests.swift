import Chart
import Feed
import Testing
import Text

/// The composed screen: what the header says, which buttons there are, how large it is drawn.
@Suite("Screen model")
struct ScreenModelTests {
    /// A font set per use: a FontSet (its faces and glyph caches) must not be shared between
    /// threads, and Swift Testing runs tests in parallel.
    static var fonts: FontSet { try! FontSet.load() }

    @Test("a slow sweep visits every point in order, at any density", arguments: [0.5, 2.0, 5.0, 50.0])
    func sweepVisitsEveryPoint(spacing: Double) {
        let xs = (0..<200).map { Double($0) * spacing + (($0 % 7 == 0) ? spacing * 0.3 : 0) }
        var snapper = ScrubSnapper(xs: xs, hysteresis: 3)
        var visited: [Int] = []
        var x = xs[0]
        while x <= xs[xs.count - 1] {
            if let i = snapper.update(x: x), visited.last != i { visited.append(i) }
            x += spacing / 3
        }
        #expect(visited == Array(0..<xs.count))
        // And back.
        visited = []
        while x >= xs[0] - 1 {
            if let i = snapper.update(x: x), visited.last != i { visited.append(i) }
            x -= spacing / 3
        }
        #expect(visited == Array((0..<xs.count).reversed()))
    }

    @Test("scrubbing a falling range to a point above its start: the header turns green, the pill stays the line's red")
    func pillKeepsTheRangeColour() throws {
        let days = [(2026, 11, 2), (2026, 11, 3), (2026, 11, 4), (2026, 11, 5), (2026, 11, 6)]
        let values = [100.0, 110, 120, 105, 90]
        let bars = zip(days, values).map { d, v in
            PriceBar(time: CivilDate(year: d.0, month: d.1, day: d.2)!.unixTimeAtMidnightUTC, open: v, high: v, low: v, close: v)
        }
        let market = MarketData(daily: PriceSeries(name: "F", interval: .daily, bars: bars), intraday: nil, timeZone: .utc)
        let model = ScreenModel(instrument: Instrument(name: "F", market: market), width: 480, height: 270,
                                fonts: Self.fonts, range: .oneMonth)
        let palette = model.screen.palette
        #expect(model.currentLabels().changeColor == palette.down)
        SceneRenderer().render(model, at: 0)
        let x = try #require(model.presentationForTesting(at: 0).positions.dropFirst(2).first?.x)   // the 120 point
        model.scrub(atX: x)
        let scrubbed = model.currentLabels()
        #expect(scrubbed.changeColor == palette.up)
        #expect(scrubbed.selectionColor == palette.down)
    }

    /// Issue 48 item 6. By hand: the regular session holds 100 and 101 only, the previous close is
    /// 100.5; a dimmed bar widens the scale by half the session's span at most, so the print at 50
    /// counts as 99.5 and the scale fits 99.5...101 with 8 % padding each side: the session spans
    /// 1 / (1.5 × 1.16) = 57.5 % of the plot's height. Before, the print set the scale: 1 / (51 × 1.16)
    /// = 1.7 %, a flat line.
    @Test("dimmed pre-market bars do not set the scale: one thin print at half the price leaves the session its height")
    func dimmedBarsDoNotScale() throws {
        let york = try ExchangeTimeZone(identifier: "America/New_York")
        func at(_ day: Int, _ h: Int, _ m: Int, _ v: Double) -> PriceBar {
            PriceBar(time: york.unixTime(for: CivilDateTime(year: 2026, month: 6, day: day, hour: h, minute: m)!), open: v, high: v, low: v, close: v)
        }
        var bars = [at(2, 15, 30, 100.5), at(3, 8, 0, 50)]
        for i in 0..<13 { bars.append(at(3, 9 + (30 + 30 * i) / 60, (30 + 30 * i) % 60, i % 2 == 0 ? 100 : 101)) }
        let market = MarketData(daily: nil, intraday: PriceSeries(name: "US", interval: .intraday(seconds: 1800), bars: bars),
                                timeZone: york, calendar: ExchangeCalendar.named("XNYS"))
        let model = ScreenModel(instrument: Instrument(name: "US", market: market), width: 960, height: 540, fonts: Self.fonts, range: .oneDay)
        let view = model.presentationForTesting(at: 10)
        let plot = model.screen.layout.plot
        #expect(view.times.count == 14)
        let regular = view.positions.dropFirst()
        let spread = (regular.map(\.y).max() ?? 0) - (regular.map(\.y).min() ?? 0)
        #expect(abs(spread - plot.height / (1.5 * 1.16)) < 1, "the session spans \(spread) of \(plot.height) px")
        let pre = try #require(view.positions.first)
        #expect(pre.y >= plot.top && pre.y <= plot.bottom && pre.y > regular.map(\.y).max()!, "the dimmed print is drawn within the plot, below the session")
    }

    @Test("on a narrow panel the note drops its least parts first and never reaches the change", arguments: [
        (800, 480, 2.0), (480, 320, 1.5), (480, 320, nil), (1080, 1920, nil), (1920, 1080, nil),
    ] as [(Int, Int, Double?)])
    func noteFitsBesideTheChange(width: Int, height: Int, scale: Double?) {
        let screen = TickerScreen(width: width, height: height, fonts: Self.fonts, scale: scale)
        let note = "Closed · opens Mon 09:30 · as of 27 Nov 16:00 EST · delayed 15 min · no update since 09:41: yahoo unreachable · stale"
        let labels = TickerLabels(instrument: "DAX", price: "23.874,12", change: "▼ −118,43 (−0,49 %)", note: note,
                                  selectedRange: .oneDay, changeColor: screen.palette.down)
        let fitted = screen.fittedNote(labels)
        let L = screen.layout
        let change = screen.look(of: .change, in: labels).bounds, shown = screen.look(of: .note, in: labels).bounds
        if !fitted.isEmpty {
            #expect(shown.x0 > change.x1, "\(width)x\(height) scale \(scale ?? 0): '\(fitted)' reaches the change")
            #expect(Double(shown.x1) <= Double(L.width) - L.margin + 2)
        }
        // What is kept keeps its order, and the stale mark goes last.
        #expect(fitted.isEmpty || fitted.hasSuffix("stale"))
        if width >= 1920 { #expect(fitted.contains("stale")) }
    }

    /// Issue 52 item 9: the market's state ("Closed") outlives every other part but the stale
    /// mark; the countdown leaves first; a scrubbed point's time is said shorter, never left out.
    @Test("on a narrow panel the state stays longest but for the stale mark, the countdown goes first, a scrubbed time is never dropped",
          arguments: [(480, 320, 1.5), (480, 320, nil), (320, 480, nil), (800, 480, 2.0)] as [(Int, Int, Double?)])
    func stateOutlivesTheRest(width: Int, height: Int, scale: Double?) {
        let screen = TickerScreen(width: width, height: height, fonts: Self.fonts, scale: scale)
        let change = "▼ −118.43 (−0.49%)"
        let note = "Closed · opens Mon 09:30 · as of 27 Nov 16:00 EST · delayed 15 min · stale"
        let fitted = screen.fittedNote(TickerLabels(instrument: "DAX", price: "23,874.12", change: change, note: note,
                                                    selectedRange: .oneDay, changeColor: screen.palette.down))
        // Anything kept besides the stale mark includes the state.
        let rest = fitted.split(separator: "·").map { $0.filter { $0 != " " } }.filter { $0 != "stale" }
        #expect(rest.isEmpty || rest.contains("Closed"), "\(width)x\(height): '\(fitted)'")
        #expect(fitted.isEmpty || fitted.hasSuffix("stale"))
        // The countdown leaves before the "as of" time.
        let open = "Open · closes in 42 min · as of 27 Nov 15:48 EST"
        let openFitted = screen.fittedNote(TickerLabels(instrument: "DAX", price: "23,874.12", change: change, note: open,
                                                        selectedRange: .oneDay, changeColor: screen.palette.down))
        #expect(openFitted == open || !openFitted.contains("closes in"), "'\(openFitted)'")
        // A scrubbed point's time, however narrow the screen: the longest form that fits, at least the shortest.
        var scrub = TickerLabels(instrument: "DAX", price: "23,874.12", change: "▼ −1,118.43 (−4.49%)", note: "Fri 27 Nov 15:42 EST",
                                 selectedRange: .fiveDays, changeColor: screen.palette.down)
        scrub.noteForms = ["Fri 27 Nov 15:42 EST", "27 Nov 15:42 EST", "27 Nov 15:42", "15:42"]
        let time = screen.fittedNote(scrub)
        #expect(scrub.noteForms.contains(time), "\(width)x\(height): '\(time)'")
    }

    @Test("during a morph the header's change text and colour come from the same numbers")
    func headerAgreesDuringMorph() {
        let model = ScreenModel(instrument: .sample(), width: 480, height: 270, fonts: Self.fonts, range: .oneMonth)
        let palette = model.screen.palette
        for (from, to) in [(ChartRange.oneMonth, ChartRange.oneYear), (.oneYear, .oneMonth), (.fiveYears, .oneDay)] {
            model.select(from, at: 0, animated: false)
            SceneRenderer().render(model, at: 0)
            model.select(to, at: 1)
            for t in stride(from: 1.0, through: 2.4, by: 0.1) {
                SceneRenderer().render(model, at: t)
                guard let labels = model.labelsOnScreen else { Issue.record("no labels drawn"); return }
                // The ▼ cue and the sign after it say the same as the colour.
                let falling = labels.change.hasPrefix(TrendArrow.down + " \u{2212}")
                #expect(falling || !labels.change.contains("\u{2212}"), "\(labels.change): sign and arrow disagree")
                #expect(labels.changeColor == (falling ? palette.down : palette.up),
                        "\(from)→\(to) at \(t): \(labels.change) in the wrong colour")
            }
        }
    }

    @Test("the header's cross-fade is decided as the model moves on, painted or not (the core's driver never paints)")
    func crossFadeWithoutPainting() {
        // Two models, one painted every frame as the daemon does, one only moved on as the core
        // under the tests' driver does: a finger moving the header's price fades the words for
        // labelFade (0.2 s) in both, and both are still again after it.
        let painted = ScreenModel(instrument: .sample(), width: 480, height: 270, fonts: Self.fonts, range: .oneYear)
        let bare = ScreenModel(instrument: .sample(), width: 480, height: 270, fonts: Self.fonts, range: .oneYear)
        let renderer = SceneRenderer()
        renderer.render(painted, at: 0)
        bare.advance(to: 0)
        for model in [painted, bare] { #expect(model.scrub(atX: 240)) }
        renderer.render(painted, at: 1)
        bare.advance(to: 1)
        for (name, model) in [("painted", painted), ("not painted", bare)] {
            #expect(model.isAnimating(at: 1.1), "\(name): the new price fades in over 0.2 s")
            #expect(!model.isAnimating(at: 1.25), "\(name): still once the fade is over")
        }
        #expect(painted.labelsOnScreen == bare.labelsOnScreen)
    }

    @Test("the configured ranges are the buttons, centred, and a tap finds each")
    func rangeButtons() {
        let layout = TickerScreenLayout(width: 1920, height: 1080, ranges: [.oneDay, .oneYear])
        #expect(layout.ranges == [.oneDay, .oneYear])
        #expect(layout.selectorCenters.count == 2)
        #expect(abs((layout.selectorCenters[0] + layout.selectorCenters[1]) / 2 - 960) < 1e-9)
        #expect(layout.range(atX: layout.selectorCenters[1], y: layout.selectorBaseline) == .oneYear)
        #expect(layout.range(atX: 100, y: layout.selectorBaseline) == nil)
        let all = TickerScreenLayout(width: 1920, height: 1080)
        #expect(all.selectorCenters.first == all.margin + (1920 - 2 * all.margin) / 12)
    }

    @Test("scale: text, lines and touch targets grow together, capped to fit")
    func largeText() {
        let normal = TickerScreenLayout(width: 1280, height: 720)
        let large = TickerScreenLayout(width: 1280, height: 720, scale: 1.2)
        #expect(abs(normal.scale - 0.6667) < 0.001)
        #expect(large.scale == 1.2)
        #expect(large.priceBaseline > normal.priceBaseline)
        #expect(large.plot.height > 0)
        let absurd = TickerScreenLayout(width: 1280, height: 720, scale: 4)
        #expect(absurd.plot.height >= 720 * 0.15)
    }

    @Test("a placeholder shows the instrument's name and what it waits for, and no line")
    func placeholder() {
        let empty = Instrument(name: "Apple Inc.", market: MarketData(daily: nil, intraday: nil, timeZone: .utc))
        let model = ScreenModel(instrument: empty, width: 480, height: 270, fonts: Self.fonts)
        model.placeholder = "waiting for data: AAPL.csv"
        SceneRenderer().render(model, at: 0)
        let values = model.values()
        #expect(values.waitingFor == "waiting for data: AAPL.csv")
        #expect(values.price == nil)
        #expect(model.currentLabels().instrument == "Apple Inc.")
        #expect(!model.scrub(atX: 100))
    }
}
