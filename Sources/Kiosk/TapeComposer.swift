import Chart
import Display
import KioskCore
import Raster
import Text

/// A frame as the canvases it is read from, each at its place in the frame: what the display is
/// given (read in place while it presents) and what a screenshot puts together on request.
struct CanvasFrame {
    let width: Int
    let height: Int
    let parts: [(canvas: Canvas, x: Int, y: Int)]

    init(_ canvas: Canvas) {
        width = canvas.width
        height = canvas.height
        parts = [(canvas, 0, 0)]
    }

    init(width: Int, height: Int, parts: [(canvas: Canvas, x: Int, y: Int)]) {
        self.width = width
        self.height = height
        self.parts = parts
    }

    var bounds: IntRect { IntRect(x0: 0, y0: 0, x1: width, y1: height) }

    /// The pixels for the display. Hold it only while presenting: it owns each canvas's pixels too.
    var picture: Picture {
        Picture(width: width, height: height, parts: parts.map { Picture.Part($0.canvas.buffer, x: $0.x, y: $0.y) })
    }
}

/// The shell's half of the ticker tape: the scene (the chart or the overview, laid out by the core
/// in what the band leaves) and the band, each in its own canvas, handed to the display side by
/// side. Each frame the tape writes its band, so an idle chart above a crawling tape costs
/// nothing and the frame's damage is the band; a scene's redrawn rectangles are read where they
/// were drawn, not copied into a screen-sized picture first. A tape across the whole screen has
/// the screen's canvas alone.
package final class TapeComposer {
    private let fonts: FontSet
    private var tape: TapeRenderer?
    /// The tape's canvas: the band's size beside a scene, the screen's for a tape alone.
    private var surface: Canvas?
    private var shown: (position: TapePosition, speed: Double, palette: ChartPalette, revision: Int, bandOnly: Bool)?

    package init(fonts: FontSet) { self.fonts = fonts }

    /// The frame for `frame` at `time` on a `width` x `height` screen: `scene` (nil or ignored for
    /// the tape alone) whose `sceneDamage` changed since the last call. Returns the frame's
    /// canvases and what changed on it (frame coordinates).
    /// `span`: where this screen's band sits on a tape spanning several outputs (every output's
    /// band must then be the same height, so the cells line up at the seams).
    func compose(_ frame: FrameTape, span: (offset: Int, x0: Double)? = nil, scene: Canvas?, sceneDamage: [IntRect],
                 width: Int, height: Int, time: Double, brightness: Double) -> (frame: CanvasFrame, damage: [IntRect]) {
        let width = max(1, width), height = max(1, height)
        let bandOnly = frame.position != .full && scene != nil
        var fresh = false
        if tape == nil || tape!.width != width || tape!.height != height || shown?.position != frame.position
            || shown?.speed != frame.speed || shown?.palette != frame.palette || shown?.bandOnly != bandOnly {
            tape = TapeRenderer(position: frame.position, width: width, height: height, fonts: fonts,
                                palette: frame.palette, speed: frame.speed, bandOnly: bandOnly)
            shown = nil
            fresh = true
        }
        let tape = self.tape!
        let size = tape.canvasSize
        if surface == nil || surface!.width != size.width || surface!.height != size.height {
            surface = Canvas(width: size.width, height: size.height)
            fresh = true
        }
        let surface = self.surface!
        if let span, tape.spanOffset != span.offset || tape.motion.x0 != span.x0 {
            tape.spanOffset = span.offset
            tape.setMotion(speed: frame.speed, x0: span.x0)
            fresh = true
        }
        if shown?.revision != frame.revision { tape.setItems(frame.items, now: time) }
        shown = (frame.position, frame.speed, frame.palette, frame.revision, bandOnly)
        tape.brightness = brightness
        if fresh { tape.invalidate() }
        let drawn = tape.draw(at: time, on: surface)
        guard bandOnly, let scene else {
            return (CanvasFrame(surface), fresh ? [surface.bounds] : [drawn])
        }
        let area = TapeLayout.contentArea(position: frame.position, width: width, height: height)
        let band = tape.screenBand
        // The band last: where a scene laid out for another size reaches into it, the band shows.
        let composed = CanvasFrame(width: width, height: height,
                                   parts: [(scene, area.x0, area.y0), (surface, band.x0, band.y0)])
        guard !fresh else { return (composed, [composed.bounds]) }
        var damage = sceneDamage.map { IntRect(x0: $0.x0 + area.x0, y0: $0.y0 + area.y0, x1: $0.x1 + area.x0, y1: $0.y1 + area.y0) }
            .map { $0.intersection(area) }.filter { !$0.isEmpty }
        damage.append(IntRect(x0: drawn.x0 + band.x0, y0: drawn.y0 + band.y0, x1: drawn.x1 + band.x0, y1: drawn.y1 + band.y0))
        return (composed, damage)
    }
}
