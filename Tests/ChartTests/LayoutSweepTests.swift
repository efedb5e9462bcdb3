@testable import Chart
import Feed
import Raster
import Testing
import Text

/// Small panels to 4K, both orientations, every `scale`, every locale the kiosk formats numbers
/// for: what the screen writes stays legible and never collides. Judged on the layout (the ink
/// boxes of the text as the real fonts set it), not on pixels, so a failure names the two pieces
/// of text and where they are.
@Suite("Layout sweep")
struct LayoutSweepTests {
    /// Landscape sizes from a 2.8" panel to 4K (the 7" Pi panel, 1024x600 netbook panels, the E2E's
    /// 640x480, 1024x768 and 1280x800), each also in portrait (720x1280 is the Pi Touch Display 2).
    static let landscape = [(320, 240), (480, 320), (640, 480), (800, 480), (1024, 600), (1024, 768), (1280, 720),
                            (1280, 800), (1920, 1080), (3840, 2160)]
    static let sizes = landscape + landscape.map { ($0.1, $0.0) }
    /// nil is `scale = auto`.
    static let scales: [Double?] = [nil, 0.5, 1, 1.5, 2, 3]
    static let locales = ["en-US", "de-DE"] + NumberLocale.knownIdentifiers.filter { $0 != "en-US" && $0 != "de-DE" }

    /// The least cap heights (a capital H's ink, in pixels) the header keeps at any size and scale.
    static let minimumPriceCap = 16
    static let minimumTextCap = 9

    enum Scene: String, CaseIterable, Sendable { case line, bars }

    /// A worst case as the header really reads: a DAX-sized price in euros with a fall of
    /// −13,89 %, a long company name, and a status line with every part it can have.
    static func labels(locale id: String, fonts: FontSet, palette: ChartPalette, scene: Scene) -> TickerLabels {
        let locale = NumberLocale(identifier: id)!
        let format = PriceFormat(currency: Currency(code: "EUR")!, locale: locale).usingMinusSign(supportedBy: fonts.regular)
        let change = TrendArrow.down + " " + format.change(-3851.04) + "  (" + format.percent(-13.89) + ")"
        let note = "Lunch break · reopens 12:30 · as of Fri 27 Nov 11:29 JST · delayed 15 min · no update since 09:41: provider unreachable · stale"
        var labels = TickerLabels(instrument: "MC.PA · LVMH Moët Hennessy Louis Vuitton SE", price: format.price(23874.12),
                                  change: change, note: note, selectedRange: .fiveYears, changeColor: palette.down)
        if scene == .bars {
            // What SceneRenderer puts in the change's place for the bar chart.
            labels.change = "monthly change, last 12 months"
            labels.selectedRange = .oneYear
        }
        return labels
    }

    /// Twelve months with a large fall, a large rise and the month in progress (its "MTD" line).
    static let bars: [Bar] = zip(["Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov"],
                                 [-13.89, 8.2, 23.4, -4.1, 0.3, 12.7, -7.5, 3.3, -0.8, 5.6, -11.2, 2.1])
        .enumerated().map { Bar(label: $0.element.0, value: $0.element.1, isPartial: $0.offset == 11) }

    /// Where a set of boxes breaks the rules: one outside `frame`, or two that share a pixel.
    static func collisions(_ boxes: [(name: String, bounds: IntRect)], frame: IntRect) -> [String] {
        var found: [String] = []
        for b in boxes where !b.bounds.isEmpty && b.bounds.intersection(frame) != b.bounds {
            found.append("\(b.name) \(b.bounds) leaves \(frame)")
        }
        for (i, a) in boxes.enumerated() where !a.bounds.isEmpty {
            for b in boxes[(i + 1)...] where !b.bounds.isEmpty && !a.bounds.intersection(b.bounds).isEmpty {
                found.append("\(a.name) \(a.bounds) overlaps \(b.name) \(b.bounds)")
            }
        }
        return found
    }

    /// Everything one screen of `scene` writes, the line's plot as a box of its own: the header must
    /// not reach into the chart, nor the selector.
    static func problems(scene: Scene, width: Int, height: Int, scale: Double?, locale: String, fonts: FontSet,
                         renderer: TextRenderer) -> [String] {
        let screen = TickerScreen(width: width, height: height, fonts: fonts, renderer: renderer, scale: scale)
        let L = screen.layout
        let labels = Self.labels(locale: locale, fonts: fonts, palette: screen.palette, scene: scene)
        let header = screen.textBoxes(for: labels)
        var boxes = header.map { (name: "\($0.role) '\($0.text)'", bounds: $0.bounds) }
        var found: [String] = []
        switch scene {
        case .line:
            // The line's stroke reaches half its width past the plot.
            let half = Int((LineChartMetrics(scale: L.scale).lineWidth / 2).rounded(.up))
            boxes.append(("plot", IntRect(x0: Int(L.plot.left) - half, y0: Int(L.plot.top.rounded(.down)) - half,
                                          x1: Int(L.plot.right.rounded(.up)) + half, y1: Int(L.plot.bottom.rounded(.up)) + half)))
        case .bars:
            let format = PriceFormat(currency: Currency(code: "EUR")!, locale: NumberLocale(identifier: locale)!)
            let chart = ScreenModel.barScene(bars, layout: L, palette: screen.palette, format: format)
            let font = Font(face: fonts.regular, clampingPixelSize: L.barLabelSize)
            // The bars at full height: no value label may sit on one.
            for i in chart.bars.indices {
                let r = chart.barRect(i)
                boxes.append(("bar \(i)", IntRect(x0: Int(r.x0.rounded(.down)), y0: Int(min(r.zeroY, r.endY).rounded(.down)),
                                                  x1: Int(r.x1.rounded(.up)), y1: Int(max(r.zeroY, r.endY).rounded(.up)))))
            }
            for p in chart.labelPlacements(font: font) {
                boxes.append(("bar label '\(p.text)'", renderer.inkBounds(of: p.text, font: font, x: p.x, y: p.y, alignment: p.alignment)))
            }
            if L.barLabelSize < TickerScreenLayout.minimumChartLabelSize {
                found.append("bar labels at \(L.barLabelSize) px")
            }
        }
        found += collisions(boxes, frame: IntRect(x0: 0, y0: 0, x1: width, y1: height))
        for box in header {
            let least = box.role == "price" ? minimumPriceCap : minimumTextCap
            if box.capHeight < least { found.append("\(box.role) cap height \(box.capHeight) px < \(least)") }
        }
        // The words that matter are never dropped: the price and the change are always there.
        for role in ["name", "price", "change"] where !header.contains(where: { $0.role == role }) {
            found.append("no \(role)")
        }
        return found.map { "\(scene) \(width)x\(height) scale \(scale.map { "\($0)" } ?? "auto") \(locale): \($0)" }
    }

    @Test("Text boxes never overlap or leave the screen, and price and change keep their minimum size, at any size, scale and locale",
          arguments: Scene.allCases, sizes)
    func headerAndSelector(scene: Scene, size: (Int, Int)) throws {
        let fonts = try FontSet.load()
        let renderer = TextRenderer()
        var found: [String] = []
        var screens = 0
        for scale in Self.scales {
            for locale in Self.locales {
                screens += 1
                found += Self.problems(scene: scene, width: size.0, height: size.1, scale: scale, locale: locale,
                                       fonts: fonts, renderer: renderer)
            }
        }
        #expect(screens == 6 * (2 + 14), "every scale and locale was laid out")
        // One issue per case would flood the log: the first few say enough.
        #expect(found.isEmpty, "\(found.count) problems, first: \(found.prefix(6).joined(separator: "\n"))")
    }

    /// Tiles as they really come: long names, big prices in several currencies, every market mark,
    /// a stale tile and one still waiting for its file.
    static func watchlist(count: Int, width: Int, height: Int, locale id: String, fonts: FontSet) -> WatchlistScene {
        let locale = NumberLocale(identifier: id)!
        let kinds: [(String, String, Double, Double)] = [
            ("DAX · Deutscher Aktienindex", "EUR", 27725.16, 23874.12),
            ("MC.PA · LVMH Moët Hennessy Louis Vuitton SE", "EUR", 712.40, 613.45),
            ("BTC-USD · Bitcoin", "USD", 91204.77, 98765.43),
            ("OCDO.L · Ocado Group", "GBp", 268.10, 238.40),
            ("7203.T · Toyota Motor", "JPY", 2518, 2480),
            ("005930.KS · Samsung Electronics", "KRW", 71200, 61300),
        ]
        let states: [MarketStatus.State?] = [.open, .closed, .lunchBreak, .afterHours, .preMarket, nil]
        let entries = (0..<count).map { i in
            let (name, code, first, last) = kinds[i % kinds.count]
            let bars = (0..<40).map { d in
                let v = first + (last - first) * Double(d) / 39 + (d % 3 == 0 ? first * 0.01 : 0)
                return PriceBar(time: Int64(1_760_000_000 + d * 86_400), open: v, high: v, low: v, close: d == 39 ? last : v)
            }
            let format = PriceFormat(currency: Currency(code: code)!, locale: locale).usingMinusSign(supportedBy: fonts.regular)
            let instrument = Instrument(name: name, market: MarketData(daily: PriceSeries(name: name, interval: .daily, bars: bars),
                                                                       intraday: nil, timeZone: .utc),
                                        priceFormat: format)
            return WatchlistEntry(instrument: instrument, isStale: i % 5 == 3,
                                  placeholder: i % 7 == 5 ? "waiting for data: 005930.KS-intraday.csv" : nil,
                                  market: states[i % states.count])
        }
        return WatchlistScene(entries: entries, width: width, height: height, fonts: fonts, range: .oneMonth)
    }

    @Test("Watchlist text never overlaps, never leaves its tile, 1, 4 and 12 tiles at any size and locale", arguments: sizes)
    func watchlistTiles(size: (Int, Int)) throws {
        let fonts = try FontSet.load()
        let renderer = TextRenderer()
        var found: [String] = []
        for count in [1, 4, 12] {
            for locale in Self.locales {
                let board = Self.watchlist(count: count, width: size.0, height: size.1, locale: locale, fonts: fonts)
                let boxes = board.textBoxes(text: renderer)
                let screen = IntRect(x0: 0, y0: 0, x1: size.0, y1: size.1)
                var problems = Self.collisions(boxes.map { ("\($0.tile.map { "tile \($0)" } ?? "") \($0.role) '\($0.text)'", $0.bounds) },
                                          frame: screen)
                for box in boxes {
                    if let t = box.tile, box.bounds.intersection(board.layout.tiles[t]) != box.bounds {
                        problems.append("tile \(t) \(box.role) '\(box.text)' \(box.bounds) leaves its tile \(board.layout.tiles[t])")
                    }
                }
                found += problems.map { "\(count) tiles \(size.0)x\(size.1) \(locale): \($0)" }
            }
        }
        #expect(found.isEmpty, "\(found.count) problems, first: \(found.prefix(6).joined(separator: "\n"))")
    }

    @Test("A 3.5-inch 480x320 panel at scale auto draws a 16 px price and 9 px text, and portrait screens get the landscape header",
          arguments: [(480, 320), (320, 480), (320, 240)])
    func smallPanelsStayLegible(size: (Int, Int)) throws {
        let fonts = try FontSet.load()
        let screen = TickerScreen(width: size.0, height: size.1, fonts: fonts)
        let labels = Self.labels(locale: "de-DE", fonts: fonts, palette: screen.palette, scene: .line)
        let caps = Dictionary(screen.textBoxes(for: labels).map { ($0.role, $0.capHeight) }, uniquingKeysWith: min)
        #expect(caps["price", default: 0] >= Self.minimumPriceCap)
        for role in ["name", "change", "range"] { #expect(caps[role, default: 0] >= Self.minimumTextCap, "\(role)") }
    }

    @Test("A portrait screen's header is as large as the same screen's in landscape", arguments: [(1080, 1920), (720, 1280), (480, 800)])
    func portraitHeader(size: (Int, Int)) {
        let portrait = TickerScreenLayout(width: size.0, height: size.1)
        let landscape = TickerScreenLayout(width: size.1, height: size.0)
        #expect(portrait.scale == landscape.scale)
        #expect(portrait.priceSize == landscape.priceSize && portrait.priceBaseline == landscape.priceBaseline)
        // And the plot keeps most of the tall screen.
        #expect(portrait.plot.height > Double(size.1) / 2)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// The E2E harness finds the plot, the price row and the selector's buttons (its touch taps) with
/// its own copy of the layout in Python: it must say what the Swift layout says.
@Suite("E2E layout mirror")
struct E2ELayoutMirrorTests {
    /// The E2E's panels (bochs' 1280x800 and it turned, vkms' 1024x768, 640x480, 1080p), the small
    /// and portrait panels where the minimum sizes and the height cap decide, and requested scales.
    static let cases: [(Int, Int, Double?)] = [
        (1280, 800, nil), (800, 1280, nil), (1024, 768, nil), (768, 1024, nil), (640, 480, nil), (1920, 1080, nil),
        (480, 320, nil), (320, 240, nil), (240, 320, nil), (720, 1280, nil), (1080, 1920, nil), (3840, 2160, nil),
        (800, 480, 2), (480, 320, 1.5), (1280, 800, 3), (320, 240, 3),
    ]

    @Test("daemon-check.py's layout(w, h) gives the Swift layout's numbers for the E2E's sizes and more")
    func pythonMatchesSwift() throws {
        let script = TestPaths.repositoryRoot + "/Tests/E2E/daemon-check.py"
        let calls = Self.cases.map { "\($0.0), \($0.1), \($0.2.map { "\($0)" } ?? "None")" }.joined(separator: "), (")
        let program = """
            import importlib.util as u
            s = u.spec_from_file_location('c', '\(script)'); c = u.module_from_spec(s); s.loader.exec_module(c)
            for w, h, scale in [(\(calls))]:
                L = c.layout(w, h, scale)
                print(repr(L['s']), repr(L['left']), repr(L['top']), repr(L['right']), repr(L['bottom']), repr(L['selector_y']),
                      repr(L['pill_raise']), repr(L['price_baseline']), repr(L['price_size']), *[repr(x) for x in L['centers']])
            """
        let path = TestPaths.temporary("layout-mirror.py")
        let file = try #require(fopen(path, "w"))
        fputs(program, file)
        fclose(file)
        defer { unlink(path) }
        guard let pipe = popen("python3 '\(path)' 2>&1", "r") else {
            Issue.record("cannot start python3")
            return
        }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil { output += String(cString: buffer) }
        #expect(pclose(pipe) == 0, "\(output)")
        let lines = output.split(separator: "\n")
        try #require(lines.count == Self.cases.count, "\(output)")
        for ((w, h, scale), line) in zip(Self.cases, lines) {
            let python = line.split(separator: " ").compactMap { Double($0) }
            let L = TickerScreenLayout(width: w, height: h, scale: scale)
            let swift = [L.scale, L.plot.left, L.plot.top, L.plot.right, L.plot.bottom, L.selectorBaseline, L.pillRaise,
                         L.priceBaseline, L.priceSize] + L.selectorCenters
            #expect(python.count == swift.count, "\(w)x\(h): \(line)")
            for (i, (p, q)) in zip(python, swift).enumerated() {
                #expect(abs(p - q) < 1e-9, "\(w)x\(h) scale \(scale ?? 0): value \(i) is \(p) in Python, \(q) in Swift")
            }
            print("layout \(w)x\(h) scale \(scale.map { "\($0)" } ?? "auto"): s \(L.scale) plot \(L.plot.left),\(L.plot.top)-\(L.plot.right),\(L.plot.bottom) "
                  + "selector \(L.selectorBaseline) pill raise \(L.pillRaise) price \(L.priceSize) px at \(L.priceBaseline) "
                  + "centres \(L.selectorCenters.map { ($0 * 100).rounded() / 100 })")
        }
    }
}

extension LayoutSweepTests {
    // Below 150x90 a tile's price at the smallest readable size no longer fits (the sweep finds it).
    @Test("A panel too small for twelve readable tiles shows the first ones that fit, and 800x480 and larger show all twelve")
    func watchlistCapacity() {
        let expected: [(Int, Int, Int)] = [(320, 240, 4), (240, 320, 3), (480, 320, 9), (320, 480, 8), (640, 480, 12), (800, 480, 12), (480, 800, 12)]
        for (w, h, n) in expected {
            #expect(WatchlistLayout.capacity(width: w, height: h) == n, "\(w)x\(h)")
        }
    }
}
