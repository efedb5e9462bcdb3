import Feed
import Raster
import Text

/// Where the watchlist's tiles sit: a grid chosen for the screen's shape, pure so it can be
/// tested for every count and orientation without drawing.
public struct WatchlistLayout: Equatable, Sendable {
    /// The most instruments one screen shows; more would no longer read from across a room.
    public static let maximumCount = 12
    /// Tiles are wider than tall: their lines of text are horizontal.
    static let preferredAspect = 1.6
    /// Below this a tile's text would be smaller than `minimumTextSize` (pixels).
    public static let minimumTileWidth = 150
    public static let minimumTileHeight = 90
    public static let minimumTextSize = 12.0

    public let width: Int
    public let height: Int
    public let scale: Double
    public let columns: Int
    public let rows: Int
    /// The title line's baseline, above the tiles.
    public let titleBaseline: Double
    /// One rectangle per instrument, row by row, left to right.
    public let tiles: [IntRect]

    public init(count requested: Int, width: Int, height: Int) {
        self.width = width
        self.height = height
        let count = min(Self.maximumCount, max(1, requested))
        let s = max(0.25, min(Double(max(width, height)) / 1920, Double(min(width, height)) / 1080))
        scale = s
        let margin = (24 * s).rounded(), gap = (16 * s).rounded()
        titleBaseline = (margin + 34 * s).rounded()
        let top = titleBaseline + (20 * s).rounded()
        let areaW = Double(width) - 2 * margin, areaH = Double(height) - top - margin
        // The grid whose tiles hold the largest tile of the preferred shape; on a tie the one
        // with fewer empty cells.
        var best = (columns: 1, rows: count, score: -Double.infinity, empty: Int.max)
        for c in 1...count {
            let r = (count + c - 1) / c
            let w = (areaW - gap * Double(c - 1)) / Double(c), h = (areaH - gap * Double(r - 1)) / Double(r)
            let score = min(w / Self.preferredAspect, h)
            let empty = c * r - count
            if score > best.score + 1e-9 || (abs(score - best.score) <= 1e-9 && empty < best.empty) {
                best = (c, r, score, empty)
            }
        }
        columns = best.columns
        rows = best.rows
        let w = (areaW - gap * Double(columns - 1)) / Double(columns)
        let h = (areaH - gap * Double(rows - 1)) / Double(rows)
        tiles = (0..<count).map { i in
            let col = i % best.columns, row = i / best.columns
            let x0 = margin + Double(col) * (w + gap), y0 = top + Double(row) * (h + gap)
            // Whole pixels: neighbours then never share a column or row.
            return IntRect(x0: Int(x0.rounded()), y0: Int(y0.rounded()),
                           x1: Int((x0 + w).rounded(.down)), y1: Int((y0 + h).rounded(.down)))
        }
    }

    /// The most tiles (up to `maximumCount`) a screen of this size shows with every tile at least
    /// `minimumTileWidth` x `minimumTileHeight`: smaller, a price at the smallest readable size no
    /// longer fits its tile (twelve tiles on a 480x320 panel would be 110 px wide). Always one at least.
    public static func capacity(width: Int, height: Int) -> Int {
        var n = maximumCount
        while n > 1 {
            let tiles = WatchlistLayout(count: n, width: width, height: height).tiles
            if tiles.allSatisfy({ $0.width >= minimumTileWidth && $0.height >= minimumTileHeight }) { break }
            n -= 1
        }
        return n
    }

    /// The tile under a touch, if any (the gaps between tiles belong to none).
    public func tile(atX x: Double, y: Double) -> Int? {
        guard x.isFinite, y.isFinite else { return nil }
        return tiles.firstIndex { $0.contains(x: Int(x.rounded(.down)), y: Int(y.rounded(.down))) }
    }
}

/// One instrument on the watchlist and what the kiosk knows about its data.
public struct WatchlistEntry: Sendable {
    public var instrument: Instrument
    /// The data is older than it should be (the fetcher's status says so): the tile says so too.
    public var isStale: Bool
    /// Shown instead of a price while the instrument has no data yet, e.g. `waiting for AAPL.csv`.
    public var placeholder: String?
    /// Where the instrument's market is in its day; nil when not known (no mark is drawn).
    public var market: MarketStatus.State?
    /// An alert on this instrument fired within its banner time: the tile is outlined and says its name.
    public var alert: String?

    public init(instrument: Instrument, isStale: Bool = false, placeholder: String? = nil,
                market: MarketStatus.State? = nil, alert: String? = nil) {
        self.instrument = instrument
        self.isStale = isStale
        self.placeholder = placeholder
        self.market = market
        self.alert = alert
    }
}

/// The tile's market-status mark: a shape and a short word, so it reads without its colour.
public struct WatchlistMarketMark: Equatable, Sendable {
    public enum Shape: Equatable, Sendable {
        /// Open: a filled dot.
        case disc
        /// Pre-market, lunch, after hours: a ring (trading, but not the regular session).
        case ring
        /// Closed: a hollow square.
        case square
    }
    public var shape: Shape
    public var word: String

    public init(_ state: MarketStatus.State, phrases: Phrases = .english) {
        switch state {
        case .open: shape = .disc; word = phrases.markOpen
        case .preMarket: shape = .ring; word = phrases.markPreMarket
        case .lunchBreak: shape = .ring; word = phrases.markLunchBreak
        case .afterHours: shape = .ring; word = phrases.markAfterHours
        case .closed: shape = .square; word = phrases.markClosed
        }
    }
}

/// What one tile says, before drawing: the same words and numbers as the instrument's own header
/// for the range, so the overview and the chart never disagree.
public struct WatchlistTileContent: Equatable, Sendable {
    public var name: String
    public var price: String
    public var change: String
    public var changeColor: Color
    /// The small print in the tile's corner: `stale`, or the placeholder; empty otherwise.
    public var note: String
    public var isStale: Bool
    /// No data yet: `note` says what the tile waits for, on a line of its own.
    public var isWaiting: Bool
    public var points: [ChartPoint]
    /// The market-status mark; nil when the state is not known.
    public var mark: WatchlistMarketMark?
    /// The alert that fired (the tile is outlined and `note` says `⚠ NAME`); nil otherwise.
    public var alert: String?

    /// The change without its amount: `▼ −13,89 %` for `▼ −3.851,04  (−13,89 %)`.
    public var compactChange: String {
        guard let open = change.lastIndex(of: "("), let close = change.lastIndex(of: ")"), open < close else { return change }
        let arrow = change.hasPrefix(TrendArrow.up) ? TrendArrow.up + " " : change.hasPrefix(TrendArrow.down) ? TrendArrow.down + " " : ""
        return arrow + change[change.index(after: open)..<close]
    }

    public init(entry: WatchlistEntry, range: ChartRange, palette: ChartPalette) {
        let instrument = entry.instrument
        name = instrument.name
        isStale = entry.isStale
        mark = entry.market.map { WatchlistMarketMark($0, phrases: instrument.phrases) }
        isWaiting = entry.placeholder != nil
        alert = entry.alert
        if let placeholder = entry.placeholder {
            price = PriceFormat.placeholder
            change = ""
            changeColor = palette.secondaryText
            note = placeholder
            points = []
            return
        }
        let selection = instrument.market.points(for: range)
        let labels = instrument.labels(for: selection, palette: palette)
        price = labels.price
        change = labels.change
        changeColor = labels.changeColor
        points = selection.points
        note = entry.isStale ? instrument.phrases.stale : (points.isEmpty ? labels.note : "")
        // The alert's word goes where `stale` would (the dimmed price still says stale).
        if let alert = entry.alert { note = "\u{26A0} " + alert }
    }
}

/// The watchlist overview: one tile per instrument with name, price, change against the range's
/// baseline, a small line of the range and the market-status mark.
public final class WatchlistScene {
    public let layout: WatchlistLayout
    public var palette: ChartPalette
    public private(set) var range: ChartRange
    public private(set) var entries: [WatchlistEntry]
    private var contents: [WatchlistTileContent]
    private let fonts: FontSet

    public init(entries: [WatchlistEntry], width: Int, height: Int, fonts: FontSet, palette: ChartPalette = .standard,
                range: ChartRange = .oneMonth) {
        // The first ones that fit at a readable size; the rest stay on their own charts.
        let shown = Array(entries.prefix(WatchlistLayout.capacity(width: width, height: height)))
        self.entries = shown
        layout = WatchlistLayout(count: shown.count, width: width, height: height)
        self.palette = palette
        self.range = range
        self.fonts = fonts
        contents = shown.map { WatchlistTileContent(entry: $0, range: range, palette: palette) }
    }

    /// What each tile says (tests, `render --values`).
    public var tileContents: [WatchlistTileContent] { contents }

    public func select(_ newRange: ChartRange) {
        range = newRange
        contents = entries.map { WatchlistTileContent(entry: $0, range: newRange, palette: palette) }
    }

    /// New data or a new staleness for the instrument at `index`: only its tile's words change.
    /// Returns whether what the tile says changed (a redraw is then due).
    @discardableResult
    public func update(_ entry: WatchlistEntry, at index: Int) -> Bool {
        guard entries.indices.contains(index) else { return false }
        entries[index] = entry
        let fresh = WatchlistTileContent(entry: entry, range: range, palette: palette)
        guard fresh != contents[index] else { return false }
        contents[index] = fresh
        return true
    }

    /// A slightly lighter card on the background, so tiles read as separate without borders.
    var tileBackground: Color {
        let b = palette.background
        func lift(_ c: UInt8) -> UInt8 { UInt8(min(255, Int(c) + 12)) }
        return Color(red: lift(b.red), green: lift(b.green), blue: lift(b.blue))
    }

    /// Paints every tile on `canvas` (the scene's size), whole: the overview changes only when a
    /// tile's words do. `SceneRenderer` owns the canvas; the scene is only what it says.
    func draw(on canvas: Canvas, text renderer: TextRenderer) {
        canvas.clip = canvas.buffer.bounds
        canvas.clear(palette.background)
        let s = layout.scale
        let words = entries.first?.instrument.phrases ?? .english
        renderer.draw("\(words.watchlist) · \(range)", font: titleFont, color: palette.secondaryText, x: (24 * s).rounded(),
                      y: layout.titleBaseline, into: &canvas.buffer, clip: canvas.clip)
        for (i, rect) in layout.tiles.enumerated() {
            canvas.clip = rect.intersection(canvas.buffer.bounds)
            drawTile(contents[i], in: rect, on: canvas, text: renderer)
        }
        canvas.clip = canvas.buffer.bounds
    }

    /// One line of a tile's text and where it is drawn.
    struct PlacedText {
        var role: String
        var text: String
        var font: Font
        var color: Color
        var x: Double
        var y: Double
        var alignment: TextAlignment = .baselineLeft
    }

    /// What a tile draws and where: its lines of text, the market mark (font and baseline, right
    /// edge at the text's) and the small line's plot. `drawTile` paints it, the layout tests measure it.
    struct TilePlan {
        var texts: [PlacedText] = []
        var mark: (mark: WatchlistMarketMark, font: Font, right: Double, baseline: Double)?
        var plot: PlotRect
        var unit: Double
    }

    func plan(_ tile: WatchlistTileContent, in rect: IntRect) -> TilePlan {
        let w = Double(rect.width), h = Double(rect.height)
        // Text grows with the tile, bounded below (readable) and above (a single tile on a large
        // screen is not a poster).
        let unit = min(h / 10, w / 16, 32 * layout.scale)
        let pad = max(6, unit * 0.9)
        let minText = WatchlistLayout.minimumTextSize
        let x0 = Double(rect.x0) + pad, x1 = Double(rect.x1) - pad
        let textWidth = x1 - x0
        var texts: [PlacedText] = []
        var y = Double(rect.y0) + pad
        let nameFont = fitted(Font(face: fonts.regular, clampingPixelSize: max(minText, unit * 1.1)), tile.name, width: textWidth * 0.7)
        y += nameFont.ascent
        let noteOnTop = !tile.note.isEmpty && !tile.isWaiting
        texts.append(PlacedText(role: "name", text: tile.name.truncated(toWidth: textWidth * (noteOnTop ? 0.6 : 1), font: nameFont),
                                font: nameFont, color: palette.secondaryText, x: x0, y: y))
        if noteOnTop {
            let noteFont = Font(face: fonts.bold, clampingPixelSize: max(minText, unit * 0.95))
            let color = tile.isStale || tile.alert != nil ? Self.alertColor : palette.secondaryText
            texts.append(PlacedText(role: "note", text: tile.note.truncated(toWidth: textWidth * 0.4, font: noteFont), font: noteFont,
                                    color: color, x: x1, y: y, alignment: .baselineRight))
        }
        let priceFont = fitted(Font(face: fonts.bold, clampingPixelSize: max(minText, unit * 2.2), tabularDigits: true),
                               tile.price, width: textWidth)
        y += priceFont.ascent + unit * 0.5
        // A stale price is dimmed: still there to read, but not to trust at a glance.
        texts.append(PlacedText(role: "price", text: tile.price, font: priceFont,
                                color: palette.text.withOpacity(tile.isStale ? 0.55 : 1), x: x0, y: y))
        let markFont = Font(face: fonts.regular, clampingPixelSize: max(minText, unit * 0.95))
        var shownMark = tile.mark
        // The mark's shape and word, and a gap of a letter's width before it: in de-DE the change
        // "(−13,89 %)" is long, and it must not run into the mark.
        func markWidth() -> Double {
            shownMark.map { markFont.measure($0.word).width + markFont.pixelSize * ($0.word.isEmpty ? 1.4 : 2.0) } ?? 0
        }
        if !tile.change.isEmpty {
            let changeFont = Font(face: fonts.regular, clampingPixelSize: max(minText, unit * 1.1), tabularDigits: true)
            // On a narrow tile, what fits beside the mark at the smallest size: the change without its
            // amount (the percentage is what compares across tiles), then the mark without its word
            // (its shape still tells the state), then no mark.
            let smallest = changeFont.withPixelSize(minText)
            var change = tile.change
            if smallest.measure(change).width > textWidth - markWidth() { change = tile.compactChange }
            if smallest.measure(change).width > textWidth - markWidth(), shownMark != nil { shownMark?.word = "" }
            if smallest.measure(change).width > textWidth - markWidth() { shownMark = nil }
            let font = fitted(changeFont, change, width: textWidth - markWidth())
            y += font.ascent + unit * 0.5
            texts.append(PlacedText(role: "change", text: change, font: font,
                                    color: tile.changeColor.withOpacity(tile.isStale ? 0.55 : 1), x: x0, y: y))
        } else if tile.mark != nil {
            y += markFont.ascent + unit * 0.5
        }
        let mark = shownMark.map { (mark: $0, font: markFont, right: x1, baseline: y) }
        if tile.isWaiting {
            // What it waits for, whole when it fits at a readable size (a file name cut short
            // helps nobody), else cut with an ellipsis.
            let font = fitted(Font(face: fonts.regular, clampingPixelSize: max(minText, unit * 0.95)), tile.note, width: textWidth)
            y += font.ascent + unit * 0.8
            texts.append(PlacedText(role: "waiting", text: tile.note.truncated(toWidth: textWidth, font: font), font: font,
                                    color: palette.secondaryText, x: x0, y: y))
        }
        // The small line fills what is left below the text.
        let plot = PlotRect(left: x0, top: y + unit * 1.0, right: x1, bottom: Double(rect.y1) - pad)
        return TilePlan(texts: texts, mark: mark, plot: plot, unit: unit)
    }

    /// The watchlist's title font.
    private var titleFont: Font {
        Font(face: fonts.regular, clampingPixelSize: max(WatchlistLayout.minimumTextSize, 26 * layout.scale))
    }

    /// Every piece of text the overview paints (the title, each tile's lines, each market mark with
    /// its shape) with its ink bounds and the tile it belongs to (nil: the title), for the layout tests.
    public func textBoxes(text renderer: TextRenderer) -> [(tile: Int?, role: String, text: String, bounds: IntRect)] {
        var out: [(tile: Int?, role: String, text: String, bounds: IntRect)] = []
        let title = "Watchlist · \(range)"
        out.append((nil, "title", title, renderer.inkBounds(of: title, font: titleFont, x: (24 * layout.scale).rounded(),
                                                           y: layout.titleBaseline)))
        for (i, rect) in layout.tiles.enumerated() {
            let p = plan(contents[i], in: rect)
            for t in p.texts where !t.text.isEmpty {
                out.append((i, t.role, t.text, renderer.inkBounds(of: t.text, font: t.font, x: t.x, y: t.y, alignment: t.alignment)))
            }
            if let m = p.mark {
                let word = renderer.inkBounds(of: m.mark.word, font: m.font, x: m.right, y: m.baseline, alignment: .baselineRight)
                let shape = markShapeBounds(font: m.font, word: m.mark.word, right: m.right, baseline: m.baseline)
                out.append((i, "mark", m.mark.word, word.union(shape)))
            }
        }
        return out
    }

    /// Centre and radius of the mark's shape left of its word.
    private func markShape(font: Font, word: String, right: Double, baseline: Double) -> (cx: Double, cy: Double, r: Double) {
        let r = font.pixelSize * 0.32
        return (right - font.measure(word).width - font.pixelSize * 0.35 - r, baseline - font.pixelSize * 0.36, r)
    }

    private func markShapeBounds(font: Font, word: String, right: Double, baseline: Double) -> IntRect {
        let (cx, cy, r) = markShape(font: font, word: word, right: right, baseline: baseline)
        return IntRect(x0: Int((cx - r).rounded(.down)) - 1, y0: Int((cy - r).rounded(.down)) - 1,
                       x1: Int((cx + r).rounded(.up)) + 1, y1: Int((cy + r).rounded(.up)) + 1)
    }

    /// Amber: stale notes, a ring mark, a fired alert's outline.
    static let alertColor = Color(rgb: 0xE3B341)

    /// The width of a fired alert's outline in a tile whose text unit is `unit`.
    static func outlineWidth(unit: Double) -> Double { max(2, (unit * 0.25).rounded()) }

    private func drawTile(_ tile: WatchlistTileContent, in rect: IntRect, on canvas: Canvas, text renderer: TextRenderer) {
        let card = tileBackground
        canvas.clear(card)
        let p = plan(tile, in: rect)
        if tile.alert != nil {
            // An outline inside the tile, so it reads from across the room; the note names the alert.
            let w = Self.outlineWidth(unit: p.unit)
            var frame = Path()
            frame.addRect(x: Double(rect.x0) + w / 2, y: Double(rect.y0) + w / 2,
                          width: Double(rect.width) - w, height: Double(rect.height) - w)
            canvas.stroke(frame, style: StrokeStyle(width: w), paint: .solid(Self.alertColor))
        }
        for t in p.texts {
            renderer.draw(t.text, font: t.font, color: t.color, x: t.x, y: t.y, alignment: t.alignment,
                          into: &canvas.buffer, clip: canvas.clip)
        }
        if let m = p.mark { drawMark(m.mark, font: m.font, right: m.right, baseline: m.baseline, on: canvas, text: renderer) }
        let plot = p.plot, unit = p.unit
        guard tile.points.count >= 2, plot.height >= 8 else { return }
        var tilePalette = palette
        tilePalette.background = card
        let metrics = LineChartMetrics(scale: max(0.4, unit / 12))
        let scale = LineChartScale(fitting: tile.points, in: plot)
        let first = tile.points[0].value, last = tile.points[tile.points.count - 1].value
        let frame = LineChartFrame(vertices: decimated(scale.positions(of: tile.points, axis: .trading)),
                                   baselineY: scale.y(first), lineColor: last >= first ? palette.up : palette.down)
        let saved = canvas.clip
        canvas.clip = IntRect(x0: Int(plot.left) - 4, y0: Int(plot.top) - 4, x1: Int(plot.right.rounded(.up)) + 4,
                              y1: Int(plot.bottom.rounded(.up)) + 4).intersection(saved)
        LineChartPainter(palette: tilePalette, metrics: metrics, plot: plot).draw(frame, on: canvas)
        canvas.clip = saved
    }

    /// The market mark right-aligned on a baseline: the shape, then its word.
    private func drawMark(_ mark: WatchlistMarketMark, font: Font, right: Double, baseline: Double, on canvas: Canvas,
                          text renderer: TextRenderer) {
        renderer.draw(mark.word, font: font, color: palette.secondaryText, x: right, y: baseline,
                      alignment: .baselineRight, into: &canvas.buffer, clip: canvas.clip)
        let (cx, cy, r) = markShape(font: font, word: mark.word, right: right, baseline: baseline)
        let line = max(1.5, r * 0.38)
        // Open in the up colour; the other states in the quiet text colour: the shape carries it.
        switch mark.shape {
        case .disc:
            var dot = Path()
            dot.addCircle(center: Point(cx, cy), radius: r)
            canvas.fill(dot, paint: .solid(palette.up))
        case .ring:
            var ring = Path()
            ring.addCircle(center: Point(cx, cy), radius: r - line / 2)
            canvas.stroke(ring, style: StrokeStyle(width: line), paint: .solid(Color(rgb: 0xE3B341)))
        case .square:
            var square = Path()
            let h = r * 0.85 - line / 2
            square.addRect(x: cx - h, y: cy - h, width: 2 * h, height: 2 * h)
            canvas.stroke(square, style: StrokeStyle(width: line), paint: .solid(palette.secondaryText))
        }
    }

    /// `font` made smaller (never below the minimum) until `text` fits `width`.
    private func fitted(_ font: Font, _ text: String, width: Double) -> Font {
        let measured = font.measure(text).width
        guard measured > width, measured > 0 else { return font }
        return font.withPixelSize(max(WatchlistLayout.minimumTextSize, font.pixelSize * width / measured))
    }

}
