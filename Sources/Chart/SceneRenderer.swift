import Feed
import Raster
import Text

/// Paints scenes on the one canvas a display owns. The scenes (`ScreenModel`, `WatchlistScene`) are
/// state only; the renderer holds the pixels, the glyph cache, the drawing threads and what it
/// painted last, so it can redraw only what changed (a scrub repaints a few percent of the screen).
/// Whoever owns the display owns its renderer for the display's life; the kiosk core never sees one.
public final class SceneRenderer {
    public private(set) var canvas: Canvas
    /// Threads that draw (`[display] render-threads`); kept across a change of size.
    public var renderThreads: Int {
        didSet { canvas.renderThreads = renderThreads }
    }
    private let text = TextRenderer()
    /// What changed in the last `render`: a display copies only these rows.
    public private(set) var lastDamage = IntRect(x0: 0, y0: 0, x1: 0, y1: 0)
    /// The rectangles actually redrawn in the last `render` (their union is `lastDamage`).
    public private(set) var lastRedrawnRegions: [IntRect] = []

    /// The scene whose pixels the canvas holds: another one (a new model, the overview) is painted whole.
    private var lastScene: AnyObject?
    /// The line frame the canvas holds, how it was painted and the words in its empty plot (nil:
    /// none, or paint the next whole).
    private var previousKey: (chart: LineChartFrame, painter: LineChartPainter, placeholder: String?)?
    /// Each label part as the last line frame painted it, one look per cross-fade layer.
    private var paintedLooks: [TickerScreen.LabelPart: [TickerScreen.LabelLook]] = [:]

    /// The banner's words as last fitted to its band.
    private var bannerFit: Banner.Fit?
    /// A message over whatever is painted (nil for none); a change repaints the whole picture.
    public var banner: Banner? {
        didSet { if banner != oldValue { previousKey = nil } }
    }

    /// Software dimming, 0...1: every colour is scaled in linear light as it is drawn. A change
    /// paints the next frame whole.
    public var brightness: Double = 1 {
        didSet {
            guard brightness != oldValue else { return }
            let d = Dimming(level: brightness)
            canvas.dimming = d
            previousKey = nil
        }
    }

    public init(renderThreads: Int = 1) {
        self.renderThreads = max(1, renderThreads)
        canvas = Canvas(width: 1, height: 1)
        canvas.renderThreads = self.renderThreads
    }

    /// The next `render` paints the whole canvas, as if no frame had been drawn before.
    public func invalidate() { previousKey = nil }

    /// A canvas of the scene's size (a new one when the size changed: a turned panel, a new mode).
    private func fit(width: Int, height: Int) {
        guard canvas.width != width || canvas.height != height else { return }
        canvas = Canvas(width: width, height: height)
        canvas.renderThreads = renderThreads
        canvas.dimming = Dimming(level: brightness)
        previousKey = nil
    }

    private func begin(_ scene: AnyObject, width: Int, height: Int) {
        fit(width: max(1, width), height: max(1, height))
        if lastScene !== scene { previousKey = nil }
        lastScene = scene
        canvas.clip = canvas.buffer.bounds
        lastDamage = canvas.buffer.bounds
        lastRedrawnRegions = [lastDamage]
    }

    /// Paints the watchlist overview, whole.
    @discardableResult
    public func render(_ board: WatchlistScene) -> Canvas {
        begin(board, width: board.layout.width, height: board.layout.height)
        previousKey = nil
        board.draw(on: canvas, text: text)
        banner?.draw(on: canvas, regions: lastRedrawnRegions, palette: board.palette, text: text, fit: &bannerFit)
        return canvas
    }

    /// Paints `model`'s frame for `time` and returns the canvas.
    @discardableResult
    public func render(_ model: ScreenModel, at time: Double) -> Canvas {
        let screen = model.screen
        begin(model, width: screen.layout.width, height: screen.layout.height)
        let frame = model.frame(at: time)
        if frame.scene != .line { previousKey = nil }
        var labels = frame.labels
        switch frame.scene {
        case .line:
            let looks = labelLooks(labels, fadingFrom: frame.fadingFrom, fade: frame.fade, screen: screen)
            let painter = screen.painter
            let same = previousKey.map { $0.painter == painter && $0.placeholder == model.placeholder } ?? false
            let regions = partialRegions(from: same ? previousKey?.chart : nil, to: frame.chart, painter: painter, looks: looks)
            previousKey = (frame.chart, painter, model.placeholder)
            paintedLooks = looks
            // At once or in bands, as all of the damage asks (not its first, small rectangle): a
            // morph's band around the line is drawn in cache-sized bands, and the grid drawn at
            // once never grows to the plot's size.
            canvas.holdDrawingChoice(for: regions.reduce(IntRect(x0: 0, y0: 0, x1: 0, y1: 0)) { $0.union($1) })
            let inks = looks.mapValues { $0.reduce(IntRect(x0: 0, y0: 0, x1: 0, y1: 0)) { $0.isEmpty ? $1.bounds : $1.bounds.isEmpty ? $0 : $0.union($1.bounds) } }
            screen.draw(chart: frame.chart, labels: labels, fadingFrom: frame.fadingFrom, fade: frame.fade, on: canvas,
                        regions: regions, inks: inks)
            canvas.releaseDrawingChoice()
            lastDamage = regions.reduce(IntRect(x0: 0, y0: 0, x1: 0, y1: 0)) { $0.union($1) }
            lastRedrawnRegions = regions
            canvas.clip = canvas.buffer.bounds
            if let placeholder = model.placeholder, regions.contains(where: { $0 == canvas.buffer.bounds }) {
                // In the middle of the empty plot, where the line will be.
                let plot = screen.layout.plot
                text.draw(placeholder, font: model.barFont, color: screen.palette.secondaryText,
                          x: (plot.left + plot.right) / 2, y: (plot.top + plot.bottom) / 2,
                          alignment: .baselineCenter, into: &canvas.buffer, clip: canvas.clip)
            }
        case .bars:
            let bars = model.barScene()
            labels.change = model.instrument.phrases.monthlyChange
            labels.changeColor = screen.palette.secondaryText
            // Twelve months are the 1Y button's, whatever range the line showed before.
            if screen.layout.ranges.contains(.oneYear) { labels.selectedRange = .oneYear }
            screen.draw(chart: LineChartFrame(vertices: [], baselineY: -100, lineColor: frame.chart.lineColor),
                        labels: labels, on: canvas)
            // From above the top value line's label down to the pill of the range selector.
            let L = screen.layout, plot = L.plot
            let plotArea = IntRect(x0: Int(plot.left) - 2, y0: Int(plot.top - model.barFont.pixelSize * 1.2) - 2,
                                   x1: Int(plot.right.rounded(.up)) + 2,
                                   y1: Int((L.selectorBaseline - L.pillRaise - L.pillHeight / 2).rounded(.down)))
            canvas.clip = plotArea.intersection(canvas.buffer.bounds)
            bars.draw(on: canvas, at: frame.sceneTime, text: text, font: model.barFont)
            canvas.clip = canvas.buffer.bounds
        case .drawIn:
            screen.draw(chart: frame.chart, labels: labels, on: canvas)
            let plotArea = IntRect(x0: 0, y0: Int(screen.layout.plot.top) - Int(12 * screen.layout.scale),
                                   x1: canvas.width, y1: Int(screen.layout.plot.bottom.rounded(.up)) + 1)
            canvas.clip = plotArea.intersection(canvas.buffer.bounds)
            DrawInScene(vertices: frame.chart.vertices, timing: model.drawInTiming)
                .draw(frame.chart, painter: screen.painter, on: canvas, at: frame.sceneTime)
            canvas.clip = canvas.buffer.bounds
        }
        // (The selector's touch band begins at the plot's foot: `TickerLayout.range(atX:y:)`.)
        banner?.draw(on: canvas, regions: lastRedrawnRegions, palette: screen.palette, text: text, fit: &bannerFit,
                     selectorTop: screen.layout.plot.bottom)
        return canvas
    }

    /// The rectangles to redraw between two frames of the line chart: the label parts whose look
    /// changed (their old and new ink) and what the chart's painter says moved — while a finger
    /// scrubs a settled chart a few percent of the screen, during a morph a band around the old
    /// and new line; everything when no frame was painted before or the chart cannot tell.
    private func partialRegions(from old: LineChartFrame?, to new: LineChartFrame, painter: LineChartPainter,
                                looks: [TickerScreen.LabelPart: [TickerScreen.LabelLook]]) -> [IntRect] {
        let all = canvas.buffer.bounds
        guard let old, let chart = painter.damage(from: old, to: new, bounds: all) else { return [all] }
        var regions: [IntRect] = []
        for part in TickerScreen.LabelPart.allCases {
            let before = paintedLooks[part] ?? [], after = looks[part] ?? []
            guard before != after else { continue }
            regions.append((before + after).reduce(IntRect(x0: 0, y0: 0, x1: 0, y1: 0)) { $0.union($1.bounds) }.intersection(all))
        }
        return (regions + chart).filter { !$0.isEmpty }
    }

    /// The looks of every label part a frame with `labels` (cross-fading from `previous` by `fade`)
    /// paints; the same decision `TickerScreen.draw` makes about the fade.
    private func labelLooks(_ labels: TickerLabels, fadingFrom previous: TickerLabels?, fade: Double,
                            screen: TickerScreen) -> [TickerScreen.LabelPart: [TickerScreen.LabelLook]] {
        let f = min(1, max(0, fade.isFinite ? fade : 1))
        var layers: [(TickerLabels, Double)] = [(labels, 1)]
        if let previous, f < 1 { layers = [(previous, 1 - f), (labels, f)] }
        var looks: [TickerScreen.LabelPart: [TickerScreen.LabelLook]] = [:]
        for part in TickerScreen.LabelPart.allCases {
            switch part {
            case .name, .selection, .stats, .clock: looks[part] = [screen.look(of: part, in: labels)]
            case .price, .change, .note: looks[part] = layers.map { screen.look(of: part, in: $0.0, opacity: $0.1) }
            }
        }
        return looks
    }
}
