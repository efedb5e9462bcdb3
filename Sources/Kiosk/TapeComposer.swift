import Chart
import KioskCore
import Raster
import Text

/// The shell's half of the ticker tape: a screen-sized canvas holding the scene (the chart or the
/// overview, laid out by the core in what the band leaves) and the band. Each frame copies only the
/// scene's redrawn rectangles into place and lets the tape write its band, so an idle chart above a
/// crawling tape costs nothing and the frame's damage is the band.
package final class TapeComposer {
    private let fonts: FontSet
    private var tape: TapeRenderer?
    private var screen: Canvas?
    private var shown: (position: TapePosition, speed: Double, palette: ChartPalette, revision: Int)?

    package init(fonts: FontSet) { self.fonts = fonts }

    /// The screen for `frame` at `time`: `scene` (nil or ignored for the tape alone) whose
    /// `sceneDamage` changed since the last call. Returns the screen and what changed on it.
    /// `span`: where this screen's band sits on a tape spanning several outputs (every output's
    /// band must then be the same height, so the cells line up at the seams).
    package func compose(_ frame: FrameTape, span: (offset: Int, x0: Double)? = nil, scene: Canvas?, sceneDamage: [IntRect],
                         width: Int, height: Int, time: Double, brightness: Double) -> (canvas: Canvas, damage: [IntRect]) {
        var fresh = false
        if screen == nil || screen!.width != width || screen!.height != height {
            screen = Canvas(width: max(1, width), height: max(1, height))
            fresh = true
        }
        let screen = self.screen!
        if tape == nil || fresh || shown?.position != frame.position || shown?.speed != frame.speed || shown?.palette != frame.palette {
            tape = TapeRenderer(position: frame.position, width: screen.width, height: screen.height, fonts: fonts,
                                palette: frame.palette, speed: frame.speed)
            shown = nil
            fresh = true
        }
        let tape = self.tape!
        if let span, tape.spanOffset != span.offset || tape.motion.x0 != span.x0 {
            tape.spanOffset = span.offset
            tape.setMotion(speed: frame.speed, x0: span.x0)
            fresh = true
        }
        if shown?.revision != frame.revision { tape.setItems(frame.items, now: time) }
        shown = (frame.position, frame.speed, frame.palette, frame.revision)
        tape.brightness = brightness
        var damage: [IntRect] = []
        if frame.position != .full, let scene {
            let area = TapeLayout.contentArea(position: frame.position, width: screen.width, height: screen.height)
            let regions = fresh ? [scene.bounds] : sceneDamage
            let picture = scene.buffer
            for r in regions {
                let moved = screen.buffer.copy(r, from: picture, dx: area.x0, dy: area.y0)
                if !moved.isEmpty { damage.append(moved) }
            }
        }
        if fresh { tape.invalidate() }
        damage.append(tape.draw(at: time, on: screen))
        return (screen, fresh ? [screen.bounds] : damage)
    }
}
