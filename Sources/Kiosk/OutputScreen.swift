import Chart
import Display
import KioskCore
import LinuxIO
import Raster
import Text

/// One screen of the daemon, the shell's side of it: the display, the renderer that paints the
/// core's plans for it, the tape beside the scene, and the backlight that carries its level. The
/// display turns or moves the picture as it copies it. The daemon has one per output; each output's
/// core decides, this carries the decision out.
final class OutputScreen {
    var display: (any Display)?
    /// Paints the core's scenes; the one canvas of the display, kept for the daemon's life.
    let renderer: SceneRenderer
    /// The ticker tape and the screen it shares with the scene (`[tape]`), made on the first tape frame.
    private var tapeComposer: TapeComposer?
    /// Where this screen's window sits on a tape spanning several outputs (nil: its own tape).
    var tapeSpan: (offset: Int, x0: Double)?
    /// When the preview was last written (monotonic ns).
    private var lastTapePreview: UInt64 = 0
    /// Which canvases hold the picture last handed to the display, and how the display placed it
    /// (turned, moved). Not the pixels themselves: a second owner of an array the next frame
    /// writes makes Swift copy the whole frame into a fresh mapping on that write (about 2,000
    /// page faults a 1080p frame).
    private var shown: (frame: CanvasFrame, placement: CopyPlacement)?
    /// The picture last handed to the display as the display placed it, made on request (a
    /// screenshot where the display cannot read back).
    var lastPresented: PixelBuffer? {
        guard let (frame, placement) = shown else { return nil }
        let picture = frame.picture
        guard !placement.isIdentity else { return picture.flattened() }
        let size = placement.placedSize(width: picture.width, height: picture.height)
        var placed = PixelBuffer(width: size.width, height: size.height)
        let pitch = placed.stride * 4
        placed.pixels.withUnsafeMutableBytes { _ = picture.copy(.full(picture.bounds), placement: placement, to: $0.baseAddress!, pitch: pitch) }
        return placed
    }
    /// What this screen's frames have cost so far, counted as they are presented (`bench --mode
    /// daemon` reads it between two moments of a workload).
    struct FrameTally {
        var frames = 0
        /// CPU time of the drawing alone (the scene and the tape, not the copies after it), and of
        /// the display's present (its copy towards scanout), while `measuresCPU`.
        var drawCPUNanos: UInt64 = 0
        var presentCPUNanos: UInt64 = 0
        /// Pixels of the picture that changed (drawn), and bytes the display copied towards scanout.
        var drawnPixels = 0
        var copiedBytes = 0
        var framePixels = 0
    }
    private(set) var tally = FrameTally()
    /// Whether `present` reads the thread's CPU clock around the drawing and the copy (for
    /// `bench --mode daemon`). Off in the daemon: each read is a system call (0.6 us here), two
    /// or three a frame for figures only a benchmark reads.
    var measuresCPU = false
    /// Turns the display offered but then refused (its test commit failed): copied from then on.
    private(set) var refusedTurns: Set<Int> = []
    /// The sysfs backlight that carries the level for the output in use (nil: software dimming),
    /// the output it was looked up for, and the level last written to it.
    private(set) var backlight: Backlight?
    private var backlightOutput: String?
    private var backlightLevel: Double?
    /// Names the screen in log lines when there are several ("" alone).
    let logPrefix: String
    /// `[display] safe-area`, percent of each side kept free: the core lays out for what is left
    /// (`info(of:)` says that size) and the display places the frame inside, the margins in the
    /// background colour (`CopyPlacement`'s margins, in the one copy towards scanout).
    var safeArea = 0.0

    /// The margins of `d`'s panel (its own orientation): a whole number of pixels on each side.
    static func margins(width: Int, height: Int, safeArea: Double) -> (x: Int, y: Int) {
        guard safeArea > 0, safeArea.isFinite else { return (0, 0) }
        let p = min(safeArea, 10) / 100
        return (Int((Double(width) * p).rounded()), Int((Double(height) * p).rounded()))
    }

    func margins(of d: any Display) -> (x: Int, y: Int) { Self.margins(width: d.width, height: d.height, safeArea: safeArea) }

    init(renderThreads: Int, logPrefix: String = "") {
        renderer = SceneRenderer(renderThreads: renderThreads)
        self.logPrefix = logPrefix
    }

    func info(of d: any Display) -> DisplayInfo {
        findBacklight(for: d)
        let m = margins(of: d)
        return DisplayInfo(width: max(1, d.width - 2 * m.x), height: max(1, d.height - 2 * m.y), refreshHz: d.refreshHz,
                           panelQuarterTurns: d.panelQuarterTurns,
                           outputConnected: d.canPresent, scanoutShiftLimit: d.scanoutShiftLimit,
                           scanoutQuarterTurns: d.scanoutQuarterTurns.subtracting(refusedTurns), yieldsToKMS: d.yieldsToKMS,
                           backlight: backlight?.name, screenHolder: d.screenHolder)
    }

    /// Looks up the backlight of the KMS output in use once per output, and says which means
    /// carries the level. Other displays (fbdev, headless) dim in software.
    private func findBacklight(for d: any Display) {
        guard let report = d.connectorReport, let connector = report.connector else { return }
        let output = report.cardName + "-" + connector
        guard output != backlightOutput else { return }
        backlightOutput = output
        backlightLevel = nil
        let (found, why) = Backlight.find(card: report.cardName, connector: connector)
        backlight = found
        if let found {
            Log.write(.notice, "display: \(logPrefix)brightness by \(why) (max \(found.maxBrightness))")
        } else {
            Log.write(.info, "display: \(logPrefix)brightness by software dimming (\(why))")
        }
    }

    /// Writes the level to the backlight when it changed; false when it cannot (the level is then
    /// drawn in software from this frame on, and the log says why once).
    func applyBacklight(_ level: Double) -> Bool {
        guard let b = backlight else { return false }
        if backlightLevel == level { return true }
        do throws(Errno) {
            try b.set(level: level)
            backlightLevel = level
            return true
        } catch {
            Log.write(.warning, "display: cannot write \(b.directory)/brightness (\(error)); dimming in software instead")
            backlight = nil
            return false
        }
    }

    /// Lets the display turn the picture by its plane when it can; true when it offered the turn
    /// and then refused it (the core must hear the display's new offer: a new model, full frames).
    func applyTurn(_ quarterTurns: Int) -> Bool {
        guard let d = display else { return false }
        let turns = ((quarterTurns % 4) + 4) % 4
        let wanted = d.scanoutQuarterTurns.subtracting(refusedTurns).contains(turns) ? turns : 0
        guard d.scanoutRotation != wanted, !d.rotateScanout(quarterTurns: wanted) else { return false }
        if wanted != 0 { refusedTurns.insert(wanted) }
        Log.warning("display: \(logPrefix)the plane refused rotation \(wanted * 90)°; turning the picture by copy")
        return true
    }

    /// Draws `plan` and presents it: what the core hears back (`.framePresented` or
    /// `.presentFailed`), and whether a settled frame is due as the preview.
    func present(_ plan: FramePlan, fonts: FontSet) -> (answer: KioskEvent, previewDue: Bool) {
        guard let d = display else { return (.presentFailed("no display"), false) }
        let t0 = MonotonicClock.now(), cpu0 = measuresCPU ? ThreadCPUTime.now() : 0
        do throws(DisplayError) {
            let frameBytes = d.width * d.height * 4
            if case .black = plan.scene {
                // The size the display takes: the mode's, transposed while it turns by a quarter.
                let sideways = d.scanoutRotation % 2 == 1
                let black = PixelBuffer(width: sideways ? d.height : d.width, height: sideways ? d.width : d.height, fill: 0xFF00_0000)
                let bytes = try d.present(black, damage: black.bounds)
                count(drawCPU: 0, presentCPU: measuresCPU ? ThreadCPUTime.now() &- cpu0 : 0, drawn: black.width * black.height,
                      copied: bytes, frame: black.width * black.height)
                return (.framePresented(FrameReport(copyNanos: MonotonicClock.now() - t0, copiedBytes: bytes, frameBytes: frameBytes)), false)
            }
            // Made only when it changes: a tape's frames all pass here, nearly all without one.
            let current = renderer.banner
            let sameBanner = plan.banner.map { text in
                current.map { $0.text == text && $0.aboveSelector == plan.bannerAboveSelector && $0.face === fonts.bold } ?? false
            } ?? (current == nil)
            if !sameBanner {
                renderer.banner = plan.banner.map { Banner(text: $0, face: fonts.bold, aboveSelector: plan.bannerAboveSelector) }
            }
            // The level: software dimming scales the colours as they are drawn (the core asks for
            // a whole redraw when the level changes).
            var redraw = plan.redraw
            if applyBacklight(plan.brightness) {
                renderer.brightness = 1
            } else if renderer.brightness != plan.brightness {
                // Dimmed in software after the backlight failed: the core asked for no repaint.
                renderer.brightness = plan.brightness
                redraw = true
            }
            // A burn-in step of a still picture paints nothing: the canvas holds the last frame.
            let canvas: Canvas
            switch plan.scene {
            case _ where !redraw: canvas = renderer.canvas
            // The tape alone: the chart is not shown, so it is not drawn.
            case .chart where plan.tape?.position == .full: canvas = renderer.canvas
            case .chart(let model): canvas = renderer.render(model, at: plan.time)
            case .overview(let board): canvas = renderer.render(board)
            case .black: canvas = renderer.canvas
            }
            let t1 = MonotonicClock.now()
            var frame = CanvasFrame(canvas)
            var damage = plan.fullCopy || redraw != plan.redraw ? [frame.bounds] : plan.redraw ? renderer.lastRedrawnRegions : []
            if let tape = plan.tape {
                // The scene's canvas and the band's, side by side: the scene's redrawn rectangles
                // where they were drawn, and the band.
                let sideways = ((plan.quarterTurns % 2) + 2) % 2 == 1
                let composer = tapeComposer ?? TapeComposer(fonts: fonts)
                tapeComposer = composer
                let full = damage.contains(frame.bounds)
                // The size the core lays out for (`info(of:)`'s), without building all of that every frame.
                let m = margins(of: d)
                let content = (width: max(1, d.width - 2 * m.x), height: max(1, d.height - 2 * m.y))
                let composed = composer.compose(tape, span: tapeSpan, scene: canvas, sceneDamage: redraw ? (full ? [frame.bounds] : damage) : [],
                                                width: sideways ? content.height : content.width,
                                                height: sideways ? content.width : content.height,
                                                time: plan.time, brightness: renderer.brightness)
                frame = composed.frame
                damage = plan.fullCopy ? [frame.bounds] : composed.damage
            }
            let cpu1 = measuresCPU ? ThreadCPUTime.now() : 0
            let drawn = DamageRegion(damage, bounds: frame.bounds).area
            let background = (renderer.canvas.dimming?.apply(plan.background) ?? plan.background).premultiplied
            // The margins a scanout shift uncovers show the background, shifted or not yet.
            var shift = ScanoutShift(dx: 0, dy: 0, fill: background)
            // The display turns the picture itself (a plane's rotation), or turns it as it copies.
            let turns = ((plan.quarterTurns % 4) + 4) % 4
            let turnedByDisplay = d.scanoutRotation == turns
            // The safe area's margins, in the picture's orientation (a turned picture's x is the panel's y).
            let m = margins(of: d)
            let (mx, my) = turns % 2 == 1 ? (m.y, m.x) : (m.x, m.y)
            var placement = CopyPlacement(quarterTurns: turnedByDisplay ? 0 : turns, fill: mx > 0 || my > 0 ? background : 0xFF00_0000,
                                          marginX: mx, marginY: my)
            // Whether the scanout moves or the pixels do is the plan's (the core knows the
            // display's limits); the shell only carries it out. Pixels move in the display's copy.
            if plan.offset != .zero {
                let o = plan.offset
                if plan.shiftByScanout {
                    shift = ScanoutShift(dx: o.dx, dy: o.dy, fill: background)
                } else {
                    placement = CopyPlacement(quarterTurns: placement.quarterTurns, dx: o.dx, dy: o.dy, fill: background,
                                              marginX: mx, marginY: my)
                }
            }
            let bytes = try d.present(frame.picture, damage: damage, shift: turnedByDisplay ? shift : .zero, placement: placement)
            shown = (frame, placement)
            count(drawCPU: cpu1 &- cpu0, presentCPU: measuresCPU ? ThreadCPUTime.now() &- cpu1 : 0, drawn: drawn, copied: bytes,
                  frame: frame.width * frame.height)
            let answer = KioskEvent.framePresented(FrameReport(renderNanos: t1 - t0, copyNanos: MonotonicClock.now() - t1,
                                                               copiedBytes: bytes, frameBytes: frameBytes))
            // Under a crawling tape every settled frame is new: the preview at most once a second.
            let previewDue = plan.settled && (plan.tape == nil || t0 &- lastTapePreview >= 1_000_000_000)
            if previewDue { lastTapePreview = t0 }
            return (answer, previewDue)
        } catch {
            return (.presentFailed("\(error)"), false)
        }
    }

    private func count(drawCPU: UInt64, presentCPU: UInt64, drawn: Int, copied: Int, frame: Int) {
        tally.frames += 1
        tally.drawCPUNanos &+= drawCPU
        tally.presentCPUNanos &+= presentCPU
        tally.drawnPixels += drawn
        tally.copiedBytes += copied
        tally.framePixels += frame
    }
}
