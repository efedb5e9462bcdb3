import Feed
import Raster
import Text

/// Paints the ticker tape: each item once into an image of its own (redrawn only when its words
/// or its flash change), then every frame the visible images shifted into the band by the crawl's
/// exact fractional position — one linear blend of neighbouring columns per pixel. That is cheaper
/// than laying glyphs out each frame and truly sub-pixel (glyph origins only come in quarter
/// pixels), so the crawl moves the same distance every frame at any speed. Only the band's rows
/// are written: the band is the frame's damage.
public final class TapeRenderer {
    public let position: TapePosition
    public let width: Int
    public let height: Int
    /// The band's rectangle on the canvas it is drawn on: where it sits on the screen, or at the
    /// canvas's corner for a band drawn in a canvas of its own (`bandOnly`).
    public let band: IntRect
    /// Where the band sits on the screen.
    public let screenBand: IntRect
    public private(set) var items: [TapeItem] = []
    public private(set) var motion: TapeMotion
    /// Where this screen sits in a tape spanning several (`TapeSpan.offsets`); 0 alone.
    public var spanOffset = 0
    public var palette: ChartPalette {
        didSet { if palette != oldValue { images.removeAll(); invalidate() } }
    }
    /// Software dimming, as the chart's (`SceneRenderer.brightness`).
    public var brightness: Double = 1 {
        didSet { if brightness != oldValue { images.removeAll(); invalidate() } }
    }
    private let fonts: FontSet
    private let text = TextRenderer()
    private let nameFont: Font, priceFont: Font, changeFont: Font, noteFont: Font
    /// When each item's price last changed (core time): its flash.
    private var changedAt: [Double?] = []
    /// Each item's image, for the item and flash step it shows.
    private var images: [Int: (item: TapeItem, step: Int, canvas: Canvas)] = [:]
    /// Whether the screen around a full-screen band has been painted.
    private var screenPainted = false
    /// Whether the band's rows above and below the type hold its background.
    private var bandPainted = false
    /// The band's rows any item can ink (type, flash, line); the others never change.
    public let inkRows: Range<Int>
    /// Flash steps per flash: the image is redrawn at most this often while it fades.
    static let flashSteps = 20
    /// Item images beyond this many bytes are dropped once off screen (a 4K LED-board tape's items
    /// are megabytes each; a band's are a few hundred kilobytes, and all of them stay).
    public static let imageBudget = 24 << 20

    /// The bytes the item images hold now.
    public var cachedImageBytes: Int { images.values.reduce(0) { $0 + $1.canvas.width * $1.canvas.height * 4 } }

    /// A tape at `position` on a `width` x `height` screen (`full`: the band across the middle, large).
    /// `bandOnly` (a band at the top or the bottom): drawn on a canvas the band's size, which the
    /// display reads beside the scene's; else on one the screen's size.
    public init(position: TapePosition, width: Int, height: Int, fonts: FontSet, palette: ChartPalette = .standard,
                speed: Double = 120, bandOnly: Bool = false) {
        self.position = position == .off ? .full : position
        self.width = max(1, width)
        self.height = max(1, height)
        self.fonts = fonts
        self.palette = palette
        screenBand = TapeLayout.band(position: self.position, width: self.width, height: self.height)
        band = bandOnly && self.position != .full
            ? IntRect(x0: 0, y0: 0, x1: screenBand.width, y1: screenBand.height) : screenBand
        let size = TapeLayout.textSize(position: self.position, width: self.width, height: self.height)
        nameFont = Font(face: fonts.bold, clampingPixelSize: size)
        priceFont = Font(face: fonts.regular, clampingPixelSize: size, tabularDigits: true)
        changeFont = Font(face: fonts.regular, clampingPixelSize: size, tabularDigits: true)
        // The stale mark is smaller than the item's words, but no smaller than any text on screen.
        noteFont = Font(face: fonts.regular, clampingPixelSize: max(TickerScreenLayout.minimumTextSize, size * 0.7))
        motion = TapeMotion(widths: [], gap: 0, speed: speed, x0: Double(self.width))
        let baseline = Self.baseline(bandHeight: band.height, font: nameFont)
        let top = Int((Double(baseline) - max(nameFont.ascent, size * 0.72 + size * 0.25)).rounded(.down)) - 2
        let bottom = Int((Double(baseline) + max(abs(nameFont.descent), size * 0.25)).rounded(.up)) + 2
        inkRows = max(0, top)..<max(max(0, top), min(band.height, bottom))
    }

    /// The type's baseline in the band: capitals centred.
    static func baseline(bandHeight: Int, font: Font) -> Int {
        Int(((Double(bandHeight) + font.pixelSize * 0.72) / 2).rounded())
    }

    /// The next `draw` paints the whole band (and a full-screen tape's screen): after the canvas
    /// was painted by someone else.
    public func invalidate() {
        screenPainted = false
        bandPainted = false
    }

    /// New items (the whole tape, in order). An item whose price changed flashes from `now`;
    /// the crawl keeps its place (the motion's start and speed are kept, only the cells change).
    public func setItems(_ new: [TapeItem], now: Double) {
        var flashes: [Double?] = []
        for (i, item) in new.enumerated() {
            if i < items.count, items[i].name == item.name {
                flashes.append(items[i].price != item.price ? now : changedAt[i])
            } else {
                flashes.append(nil)
            }
        }
        items = new
        changedAt = flashes
        let widths = new.map { plan($0).width }
        motion = TapeMotion(widths: widths, gap: gap, speed: motion.speed, x0: motion.x0)
        images = images.filter { $0.key < new.count && new[$0.key] == $0.value.item }
    }

    /// The crawl's speed (px/s) and start; positions follow from them and the time alone.
    public func setMotion(speed: Double, x0: Double? = nil) {
        motion = TapeMotion(widths: items.map { plan($0).width }, gap: gap, speed: speed, x0: x0 ?? motion.x0)
    }

    /// Whether any flash is still fading at `time`.
    public func isFlashing(at time: Double) -> Bool {
        changedAt.contains { TapeFlash.isFlashing(changedAt: $0, now: time) }
    }

    /// The space after each item: an em and a half, with a dot in its middle.
    private var gap: Double { (nameFont.pixelSize * 1.6).rounded() }

    /// The canvas the tape draws on: the screen's size, or the band's.
    public var canvasSize: (width: Int, height: Int) {
        band == screenBand ? (width, height) : (band.width, band.height)
    }

    /// Paints the band for `time` on `canvas` (`canvasSize`) and returns the rectangle written:
    /// the band's rows of type (the rows above and below never change), the whole band the first
    /// time, or the whole screen the first time a full-screen tape is drawn.
    @discardableResult
    public func draw(at time: Double, on canvas: Canvas) -> IntRect {
        var damage = IntRect(x0: band.x0, y0: band.y0 + inkRows.lowerBound, x1: band.x1, y1: band.y0 + inkRows.upperBound)
        if canvas.width != canvasSize.width || canvas.height != canvasSize.height { invalidate() }
        // The band's clears at the level its images are drawn at: the canvas is the screen's,
        // whose level the tape does not otherwise see.
        canvas.dimming = brightness < 1 ? Dimming(level: brightness) : nil
        if !bandPainted {
            canvas.clear(bandBackground, rect: band)
            bandPainted = true
            damage = band
        }
        if position == .full && !screenPainted {
            let saved = canvas.clip
            canvas.clip = canvas.bounds
            canvas.clear(palette.background)
            canvas.clip = saved
            screenPainted = true
            damage = canvas.bounds
        }
        let target = band.intersection(canvas.bounds)
        guard !target.isEmpty else { return IntRect(x0: 0, y0: 0, x1: 0, y1: 0) }
        guard !items.isEmpty else {
            canvas.clear(bandBackground, rect: damage.intersection(target))
            return damage
        }
        blit(at: time, into: canvas)
        return damage
    }

    /// The same band drawn the other way, for `bench --mode tape --tape-draw direct`: every visible
    /// item's glyphs and line laid out on the screen each frame at its fractional x (glyph origins
    /// in quarter pixels). Kept to measure against `draw`, which the daemon uses.
    @discardableResult
    public func drawDirect(at time: Double, on canvas: Canvas) -> IntRect {
        if position == .full && !screenPainted {
            canvas.clear(palette.background)
            screenPainted = true
        }
        let target = band.intersection(canvas.bounds)
        guard !target.isEmpty else { return IntRect(x0: 0, y0: 0, x1: 0, y1: 0) }
        let saved = canvas.clip
        canvas.clip = target
        canvas.clear(bandBackground)
        for placed in motion.placements(at: time, width: band.width, offset: spanOffset) {
            let level = TapeFlash.level(changedAt: changedAt[placed.index], now: time)
            paint(items[placed.index], flash: level, on: canvas, ox: Double(band.x0) + placed.x, oy: Double(band.y0))
        }
        canvas.clip = saved
        return band
    }

    /// The band's background: on the chart a little lighter, so the band reads as its own strip.
    var bandBackground: Color {
        guard position != .full else { return palette.background }
        let b = palette.background
        func lift(_ c: UInt8) -> UInt8 { UInt8(min(255, Int(c) + 10)) }
        return Color(red: lift(b.red), green: lift(b.green), blue: lift(b.blue))
    }

    /// The visible cells' images, shifted into the band by the fractional crawl position.
    private func blit(at time: Double, into canvas: Canvas) {
        let s = motion.scroll(at: time) + Double(spanOffset)
        var whole = Int(s.rounded(.down))
        var frac = UInt32(((s - Double(whole)) * 255).rounded())
        if frac == 255 { whole += 1; frac = 0 }
        let period = motion.period
        whole = ((whole % period) + period) % period
        // Runs of band columns that come from one cell: (item, first column in it, band x, count).
        var runs: [(item: Int, col: Int, x: Int, count: Int)] = []
        var item = motion.starts.lastIndex { $0 <= whole } ?? 0
        var col = whole - motion.starts[item]
        var x = 0
        let bandWidth = band.width
        while x < bandWidth {
            let count = min(motion.cells[item] - col, bandWidth - x)
            runs.append((item, col, x, count))
            x += count
            col += count
            if col >= motion.cells[item] { item = (item + 1) % motion.cells.count; col = 0 }
        }
        let rows = inkRows, bx = band.x0, by = band.y0
        let t = frac
        var steps = Set(runs.map(\.item))
        steps.insert((runs[runs.count - 1].item + 1) % motion.cells.count)
        for i in steps { _ = image(i, at: time) }
        if cachedImageBytes > Self.imageBudget {
            for key in images.keys where !steps.contains(key) { images[key] = nil }
        }
        let stride = canvas.buffer.stride
        canvas.buffer.pixels.withUnsafeMutableBufferPointer { dst in
            for (k, run) in runs.enumerated() {
                let a = images[run.item]!.canvas.buffer
                // The column right of the run's last one: the next run's first (or, at the band's
                // right edge, the next cell's first column).
                let nextItem = k + 1 < runs.count ? runs[k + 1].item
                    : (run.col + run.count < motion.cells[run.item] ? run.item : (run.item + 1) % motion.cells.count)
                let nextCol = k + 1 < runs.count ? runs[k + 1].col
                    : (run.col + run.count < motion.cells[run.item] ? run.col + run.count : 0)
                let b = nextItem == run.item ? a : (images[nextItem]?.canvas.buffer ?? image(nextItem, at: time).buffer)
                a.pixels.withUnsafeBufferPointer { ap in
                    b.pixels.withUnsafeBufferPointer { bp in
                        for y in rows {
                            let row = (by + y) * stride + bx + run.x
                            let src = y * a.stride + run.col
                            let last = run.count - 1
                            if t == 0 {
                                (dst.baseAddress! + row).update(from: ap.baseAddress! + src, count: run.count)
                            } else {
                                // Each column with its right neighbour (equal ones come out unchanged).
                                lerpPixels(into: dst.baseAddress! + row, ap.baseAddress! + src, ap.baseAddress! + src + 1,
                                           count: last, t: t)
                                dst[row + last] = lerpPixel(ap[src + last], bp[y * b.stride + nextCol], t)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Item `i`'s image at the flash step of `time`, drawn when the item or the step changed.
    @discardableResult
    private func image(_ i: Int, at time: Double) -> Canvas {
        let level = TapeFlash.level(changedAt: changedAt[i], now: time)
        let step = Int((level * Double(Self.flashSteps)).rounded(.up))
        if let cached = images[i], cached.item == items[i], cached.step == step { return cached.canvas }
        let canvas = Canvas(width: motion.cells[i], height: band.height)
        canvas.dimming = brightness < 1 ? Dimming(level: brightness) : nil
        canvas.clear(bandBackground)
        paint(items[i], flash: Double(step) / Double(Self.flashSteps), on: canvas)
        images[i] = (items[i], step, canvas)
        return canvas
    }

    /// What an item draws and where, from its cell's left edge: the pieces' x and its ink width.
    struct Plan {
        var name: Double, price: Double, change: Double, spark: Double?, note: Double?
        var width: Double
    }

    func plan(_ item: TapeItem) -> Plan {
        let space = nameFont.pixelSize * 0.45
        var x = 0.0
        let name = x
        x += nameFont.measure(item.name).width + space
        let price = x
        x += priceFont.measure(item.price).width + space
        let change = x
        x += changeFont.measure(item.change).width
        var spark: Double?
        if item.sparkline.count >= 2 {
            x += space
            spark = x
            x += sparkWidth
        }
        var note: Double?
        if let n = item.note, !n.isEmpty {
            x += space
            note = x
            x += noteFont.measure(n).width
        }
        return Plan(name: name, price: price, change: change, spark: spark, note: note, width: x)
    }

    private var sparkWidth: Double { (nameFont.pixelSize * 2.2).rounded() }

    /// Draws `item` with its cell's left edge at `ox` and the band's top at `oy` (its own image: 0, 0).
    private func paint(_ item: TapeItem, flash: Double, on canvas: Canvas, ox: Double = 0, oy: Double = 0) {
        var p = plan(item)
        p.name += ox; p.price += ox; p.change += ox
        p.spark = p.spark.map { $0 + ox }
        p.note = p.note.map { $0 + ox }
        let size = nameFont.pixelSize
        let cap = size * 0.72
        let baseline = Double(Self.baseline(bandHeight: band.height, font: nameFont)) + oy
        let dim = item.isDimmed ? 0.55 : 1.0
        let trend: Color = item.direction == .up ? palette.up : item.direction == .down ? palette.down : palette.secondaryText
        if flash > 0 {
            // The changed price and its change lit in the trend's colour, fading.
            let x0 = p.price - size * 0.2, x1 = p.change + changeFont.measure(item.change).width + size * 0.2
            canvas.fillRect(x: x0, y: baseline - cap - size * 0.25, width: x1 - x0, height: cap + size * 0.5,
                            paint: .solid(trend.withOpacity(0.4 * flash)))
        }
        text.draw(item.name, font: nameFont, color: palette.text.withOpacity(dim), x: p.name, y: baseline,
                  into: &canvas.buffer, clip: canvas.clip)
        text.draw(item.price, font: priceFont, color: palette.text.withOpacity(dim), x: p.price, y: baseline,
                  into: &canvas.buffer, clip: canvas.clip)
        text.draw(item.change, font: changeFont, color: trend.withOpacity(dim), x: p.change, y: baseline,
                  into: &canvas.buffer, clip: canvas.clip)
        if let sx = p.spark, let lo = item.sparkline.min(), let hi = item.sparkline.max(), lo.isFinite, hi.isFinite {
            let n = item.sparkline.count
            let top = baseline - cap, span = hi > lo ? hi - lo : 1
            var line = Path()
            for (k, v) in item.sparkline.enumerated() {
                let pt = Point(sx + sparkWidth * Double(k) / Double(n - 1), top + cap * (1 - (v - lo) / span))
                if k == 0 { line.move(to: pt) } else { line.line(to: pt) }
            }
            canvas.stroke(line, style: StrokeStyle(width: max(1.5, size / 14)), paint: .solid(trend.withOpacity(dim)))
        }
        if let nx = p.note, let note = item.note {
            text.draw(note, font: noteFont, color: palette.secondaryText, x: nx, y: baseline, into: &canvas.buffer, clip: canvas.clip)
        }
        // A small dot in the gap after the item separates it from the next.
        var dot = Path()
        dot.addCircle(center: Point(ox + p.width + gap / 2, baseline - cap / 2), radius: max(1.5, size * 0.08))
        canvas.fill(dot, paint: .solid(palette.secondaryText.withOpacity(0.6)))
    }
}

/// Where the band goes and how large its type is: pure, so the layout tests need no pixels.
public enum TapeLayout {
    /// The screen's scale against 1920x1080, as the other screens use it.
    static func scale(width: Int, height: Int) -> Double {
        max(0.25, min(Double(max(width, height)) / 1920, Double(min(width, height)) / 1080))
    }

    /// The band's height: a line of type with room above and below.
    public static func bandHeight(position: TapePosition, width: Int, height: Int) -> Int {
        switch position {
        case .off: return 0
        case .full: return Int((textSize(position: position, width: width, height: height) * 1.9).rounded())
        // Where the type is held at its least size (480x320: 13 px, not 8), the band keeps its
        // proportion to it (28 px); elsewhere it follows the scale as before.
        case .bottom, .top:
            let s = scale(width: width, height: height)
            let held = (30 * s).rounded() < TickerScreenLayout.minimumTextSize
            return Int((held ? TickerScreenLayout.minimumTextSize * 64 / 30 : 64 * s).rounded())
        }
    }

    /// The type's pixel size: LED-board large alone, a readable line under a chart; never under
    /// the screen's least text size (13 px, a 9.5 px cap height: at 480x320 the scale alone gave 8).
    public static func textSize(position: TapePosition, width: Int, height: Int) -> Double {
        switch position {
        case .full: return max(TickerScreenLayout.minimumTextSize, (min(Double(height) * 0.14, Double(width) * 0.1)).rounded())
        default: return max(TickerScreenLayout.minimumTextSize, (30 * scale(width: width, height: height)).rounded())
        }
    }

    /// The band's rectangle (empty when off).
    public static func band(position: TapePosition, width: Int, height: Int) -> IntRect {
        let h = min(height, bandHeight(position: position, width: width, height: height))
        switch position {
        case .off: return IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
        case .full:
            let y0 = (height - h) / 2
            return IntRect(x0: 0, y0: y0, x1: width, y1: y0 + h)
        case .bottom: return IntRect(x0: 0, y0: height - h, x1: width, y1: height)
        case .top: return IntRect(x0: 0, y0: 0, x1: width, y1: h)
        }
    }

    /// What is left for the chart or the watchlist beside a band (the whole screen for off and full).
    public static func contentArea(position: TapePosition, width: Int, height: Int) -> IntRect {
        let h = bandHeight(position: position, width: width, height: height)
        switch position {
        case .off, .full: return IntRect(x0: 0, y0: 0, x1: width, y1: height)
        case .bottom: return IntRect(x0: 0, y0: 0, x1: width, y1: max(1, height - h))
        case .top: return IntRect(x0: 0, y0: min(h, height - 1), x1: width, y1: height)
        }
    }
}

extension TapeItem {
    /// The tape's words for an instrument: its day's change (1D, else the shortest range with data),
    /// as its chart header says it; dimmed with the phrase for stale data or a closed market.
    public init(instrument: Instrument, isStale: Bool, market: MarketStatus.State?, palette: ChartPalette,
                options: RangeOptions = RangeOptions(), sparkline: Bool = true) {
        let selection = Self.daySelection(of: instrument, options: options)
        let labels = instrument.labels(for: selection, palette: palette)
        let first = selection.baselineValue ?? selection.points.first?.value ?? 0
        let last = selection.points.last?.value ?? first
        let direction: Direction = last > first ? .up : last < first ? .down : .flat
        var note: String?
        if isStale {
            note = instrument.phrases.stale
        } else if market == .closed {
            note = instrument.phrases.closed.lowercased()
        }
        // A day's line only: a day of daily bars (two points) says nothing a change does not.
        let intraday = selection.range == .oneDay && !selection.usesDailyFallback && selection.points.count >= 8
        let points = sparkline && intraday ? selection.points.map(\.value) : []
        self.init(name: instrument.name, price: labels.price, change: labels.change, direction: direction, note: note,
                  sparkline: points)
    }
}

extension TapeItem {
    /// The day the tape tells: 1D, else the shortest range with data (5D, 1M).
    static func daySelection(of instrument: Instrument, options: RangeOptions) -> RangeSelection {
        var selection = instrument.market.points(for: .oneDay, options: options)
        // A day with one price so far and the close before it is a day change (`dayQuote`), not a reason to look further.
        for r in [ChartRange.fiveDays, .oneMonth] where selection.points.count < 2 && selection.baseline == nil {
            selection = instrument.market.points(for: r, options: options)
        }
        return selection
    }

    /// The day's move in percent, as the tape and the chart's header say it (the last price against
    /// the baseline of `daySelection`); nil while the entry waits for data or has no move.
    public static func dayMovePercent(of entry: WatchlistEntry, options: RangeOptions = RangeOptions()) -> Double? {
        guard entry.placeholder == nil else { return nil }
        let selection = daySelection(of: entry.instrument, options: options)
        guard let last = selection.points.last?.value, let first = selection.baselineValue, first != 0,
              selection.points.count >= 2 || selection.baseline != nil else { return nil }
        let percent = (last - first) / abs(first) * 100
        return percent.isFinite ? percent : nil
    }

    /// The tape's words for a watchlist entry: an instrument still waiting for its data says so.
    public init(entry: WatchlistEntry, palette: ChartPalette, options: RangeOptions = RangeOptions()) {
        if let waiting = entry.placeholder {
            self.init(name: entry.instrument.name, price: PriceFormat.placeholder, change: "", direction: .flat, note: waiting)
            return
        }
        self.init(instrument: entry.instrument, isStale: entry.isStale, market: entry.market, palette: palette, options: options)
    }
}
