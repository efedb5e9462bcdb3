import Chart
import Feed
import Raster
import Testing
import Text

/// The watchlist overview: the grid for every count and screen shape, and what each tile says.
@Suite("Watchlist")
struct WatchlistTests {
    /// A font set per use: a FontSet (its faces and glyph caches) must not be shared between
    /// threads, and Swift Testing runs tests in parallel.
    static var fonts: FontSet { try! FontSet.load() }

    static let screens = [(1920, 1080), (1080, 1920), (1280, 720), (800, 480), (480, 800), (1024, 600), (3840, 2160), (720, 1280)]

    @Test("tiles lie inside the screen, never overlap and stay readable, 1 to 12 instruments",
          arguments: screens)
    func layout(width: Int, height: Int) {
        let screen = IntRect(x0: 0, y0: 0, x1: width, y1: height)
        for n in 1...WatchlistLayout.maximumCount {
            let L = WatchlistLayout(count: n, width: width, height: height)
            #expect(L.tiles.count == n)
            #expect(L.columns * L.rows >= n && L.columns * (L.rows - 1) < n, "\(n): no empty row")
            for (i, t) in L.tiles.enumerated() {
                #expect(t.intersection(screen) == t, "\(width)x\(height) n \(n) tile \(i) \(t) inside")
                #expect(t.width >= WatchlistLayout.minimumTileWidth && t.height >= WatchlistLayout.minimumTileHeight,
                        "\(width)x\(height) n \(n) tile \(i) \(t) readable")
                #expect(Double(t.y0) > L.titleBaseline, "below the title")
                for u in L.tiles[(i + 1)...] { #expect(t.intersection(u).isEmpty, "\(t) and \(u) overlap") }
            }
        }
    }

    @Test("landscape grids are wider than tall, portrait ones taller than wide")
    func orientation() {
        let wide = WatchlistLayout(count: 12, width: 1920, height: 1080)
        #expect(wide.columns > wide.rows)
        let tall = WatchlistLayout(count: 12, width: 1080, height: 1920)
        #expect(tall.rows > tall.columns)
        let four = WatchlistLayout(count: 4, width: 1920, height: 1080)
        #expect(four.columns == 2 && four.rows == 2)
        #expect(WatchlistLayout(count: 1, width: 800, height: 480).tiles.count == 1)
        // Out-of-range counts are clamped, not trapped on.
        #expect(WatchlistLayout(count: 0, width: 800, height: 480).tiles.count == 1)
        #expect(WatchlistLayout(count: 40, width: 800, height: 480).tiles.count == WatchlistLayout.maximumCount)
    }

    @Test("a touch finds the tile under it, and none in the gaps")
    func hitTest() {
        let L = WatchlistLayout(count: 6, width: 1920, height: 1080)
        for (i, t) in L.tiles.enumerated() {
            #expect(L.tile(atX: Double(t.x0 + t.x1) / 2, y: Double(t.y0 + t.y1) / 2) == i)
        }
        let a = L.tiles[0], b = L.tiles[1]
        #expect(L.tile(atX: Double(a.x1 + b.x0) / 2, y: Double(a.y0 + 5)) == nil)
        #expect(L.tile(atX: .nan, y: 3) == nil)
    }

    @Test("a tile says what the instrument's own header says for the range; a stale one says so")
    func tileContent() {
        let sample = Instrument.sample()
        let header = sample.labels(for: sample.market.points(for: .sixMonths), palette: .standard)
        let fresh = WatchlistTileContent(entry: WatchlistEntry(instrument: sample), range: .sixMonths, palette: .standard)
        #expect(fresh.price == header.price && fresh.change == header.change && fresh.changeColor == header.changeColor)
        #expect(fresh.note.isEmpty && !fresh.isStale)
        #expect(fresh.points == sample.market.points(for: .sixMonths).points)
        let stale = WatchlistTileContent(entry: WatchlistEntry(instrument: sample, isStale: true), range: .sixMonths, palette: .standard)
        #expect(stale.note == "stale" && stale.price == header.price)
        let waiting = WatchlistTileContent(entry: WatchlistEntry(instrument: sample, placeholder: "waiting for X.csv"),
                                           range: .oneMonth, palette: .standard)
        #expect(waiting.price == PriceFormat.placeholder && waiting.note == "waiting for X.csv" && waiting.points.isEmpty)
    }

    @Test("the scene draws every tile and an update changes only that tile's words")
    func sceneUpdate() {
        let entries = (0..<4).map { _ in WatchlistEntry(instrument: .sample()) }
        let scene = WatchlistScene(entries: entries, width: 800, height: 480, fonts: Self.fonts)
        let before = SceneRenderer().render(scene).buffer
        scene.update(WatchlistEntry(instrument: .sample(), isStale: true), at: 2)
        #expect(scene.tileContents[2].isStale && !scene.tileContents[1].isStale)
        let after = SceneRenderer().render(scene).buffer
        var changed = 0, outside = 0
        for y in 0..<480 {
            for x in 0..<800 where before[x, y] != after[x, y] {
                changed += 1
                if !scene.layout.tiles[2].contains(x: x, y: y) { outside += 1 }
            }
        }
        #expect(changed > 0)
        #expect(outside == 0, "\(outside) changed pixels outside tile 2")
        scene.update(WatchlistEntry(instrument: .sample()), at: 99)  // out of range: ignored
        #expect(scene.tileContents.count == 4)
    }
}
