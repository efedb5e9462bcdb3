// KioskCore: The display's lifecycle, the frame plan and the timers.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Display lifecycle

    func displayOpened(_ info: DisplayInfo) {
        perform(link.opened(info))
        frames.displayOpened()
        rebuildModel()
        rebuildWatchlist()
        if info.outputConnected {
            log(.notice, "display: \(info.width)x\(info.height)@\(format(info.refreshHz, 2)) Hz")
            if frames.burnIn.shift > 0 { log(.notice, "display: burn-in shift of \(frames.burnIn.shift) px by \(burnInMethod)") }
            if quarterTurns % 4 != 0 { log(.notice, "display: rotation \(quarterTurns % 4 * 90)° by \(rotationMethod)") }
        } else {
            log(.notice, "display: \(info.width)x\(info.height) opened, waiting for the output")
            perform(readiness.reached("waiting for an output"))
        }
        perform(power.displayOpened())
    }

    /// Why the display shows nothing of ours, for the status file (`display_detail`); nil while it does.
    var displayDetail: String? { link.detail }

    /// Carries out what the display's lifecycle answered.
    func perform(_ actions: [DisplayLink.Action]) {
        for action in actions {
            switch action {
            case .log(let priority, let text): log(priority, text)
            case .watchHotplug(let on): emit(.watchHotplug(on))
            case .openDisplay: emit(.openDisplay)
            case .reopenDisplay: emit(.reopenDisplay)
            case .relayout:
                rebuildModel()
                rebuildWatchlist()
            }
        }
    }

    func flipCompleted(vblank: Double, sequence: UInt64) {
        // The tape moves every frame: a missed vblank while it crawls is a visible stutter.
        frames.flipCompleted(vblank: vblank, sequence: sequence, animating: isAnimating(at: vblank) || tapeOn)
        if !readiness.isReady {
            perform(readiness.reached(screenOn ? "showing the chart" : "screen off (power)"))
            // Idle right after the first frame: lay out every range before the first morph.
            model?.prepareAllRanges()
        }
    }

    /// The animation time of the next frame: the vblank it will be shown at.
    func frameTime() -> Double { frames.frameTime(at: now.mono, refreshHz: displayInfo?.refreshHz) }

    /// Asks for the next frame when one is wanted and the display can take it.
    func scheduleFrame() {
        guard displayState == .presenting, frames.state == .idle, let model else { return }
        let background = model.screen.palette.background
        let t = frameTime()
        let brightness: Double, relit: Bool, fading: Bool
        switch power.frame(at: t) {
        case .dark: return
        case .black:
            present(FramePlan(scene: .black, background: background, time: now.mono, fullCopy: true, offset: .zero,
                              quarterTurns: quarterTurns, settled: true))
            needs.insert(.wholeCopy)
            return
        case .lit(let level, let changed, let moving):
            brightness = level
            relit = changed
            fading = moving
        }
        model.advance(to: t)
        guard let frame = frames.frame(at: t, sceneMoving: isAnimating(at: t) || relit, tapeMoving: tapeOn,
                                       startedAt: readiness.startedAt, shiftLimit: displayInfo?.scanoutShiftLimit ?? 0,
                                       rotatesByScanout: rotatesByScanout) else { return }
        let scene = showingWatchlist ? watchlist.map(FrameScene.overview) ?? .chart(model) : .chart(model)
        let tape = frameTape(at: t)
        let sceneSettled = !isAnimating(at: t) && !fading
        // A price lit on the tape is a motion that ends, as a morph is (the crawl never does): a
        // preview or a script waiting for the settled picture waits for it too.
        let lit = TapeFlash.isFlashing(changedAt: board.tapePriceChangedAt, now: t)
        var plan = FramePlan(scene: scene, background: background, time: t, fullCopy: frame.fullCopy, offset: frame.offset,
                             quarterTurns: quarterTurns, settled: sceneSettled && !lit,
                             banner: banner.text)
        plan.tape = tape
        plan.shiftByScanout = frame.shiftByScanout
        plan.redraw = frame.redraw
        plan.brightness = brightness
        plan.bannerAboveSelector = banner.aboveSelector
        // Software dimming changes every pixel; a backlight changes none of them.
        if relit && displayInfo?.backlight == nil { plan.fullCopy = true; plan.redraw = true }
        power.presented(level: brightness)
        // The overview is painted whole when it is painted (it changes only when a tile's data does).
        if showingWatchlist && plan.redraw { plan.fullCopy = true }
        // The scene beside a lit tape is still: it is not painted again for the tape's sake.
        present(plan, motion: plan.settled ? .still : sceneSettled ? .tapeLit : .moving)
    }

    /// Whether the ticker tape is on screen (it then moves every frame).
    var tapeOn: Bool { config.tapePosition != .off && screenOn }

    /// The size the chart or the overview is laid out at: what a tape band leaves of the screen.
    func sceneSize(_ size: (Int, Int)) -> (Int, Int) {
        let area = TapeLayout.contentArea(position: config.tapePosition, width: max(1, size.0), height: max(1, size.1))
        return (area.width, area.height)
    }

    /// The tape for the frame at `time`, its words recomputed when the data or the clock changed them.
    func frameTape(at time: Double) -> FrameTape? {
        guard config.tapePosition != .off else { return nil }
        let palette = activePalette
        let fresh = board.state == .stale
            ? tapeEntries().map { TapeItem(entry: $0, palette: palette, options: config.rangeOptions) } : nil
        let words = board.tapeWords(at: time, fresh: fresh)
        return FrameTape(position: config.tapePosition, speed: config.tapeSpeed, palette: palette, items: words.items,
                         revision: words.revision)
    }

    /// Whether the picture on screen moves at `time`: the overview never does.
    func isAnimating(at time: Double) -> Bool {
        !showingWatchlist && model?.isAnimating(at: time) == true
    }

    func present(_ plan: FramePlan, motion: FrameFlow.Motion? = nil) {
        frames.present(motion ?? (plan.settled ? .still : .moving), at: now.mono)
        emit(.present(plan))
    }

    // MARK: Timers

    /// `timer`: the event is the timer's own. The value line waits for it: events that come
    /// together (a start reads every data file in one go) are all handled before the timer's.
    /// The process's timers first (new data and alerts change what the outputs show), then each
    /// output's, then readiness and the watchdog, which look at every output's flips.
    func fireDueTimers(timer: Bool) {
        let t = now.mono
        if let due = cec.nextDeadline, due <= t { perform(cec.timer(at: t)) }
        if timer, valueLine.timer(at: t) { recomputePortfolio() }
        if let due = alertDue, due <= t { judgeAlerts() }
        onEachScreen {
            perform(link.timer(at: t))
            if let due = round.nextDeadline, due <= t { perform(round.timer(at: t, screen: roundScreen)) }
            if let due = powerDue, due <= t { decidePower() }
            if banner.timer(at: t) { repaintWhole() }
            perform(power.ambientTimer(at: t))
            if board.moversTimer(at: t) {
                if config.watchlistSort != .config, watchlist != nil, !showingSample,
                   moversOrdered(tileIndices.map(watchlistEntry), sort: config.watchlistSort, for: .tiles).map(\.index) != board.tileOrder {
                    rebuildWatchlist()
                }
            }
            frames.timer(at: t, startedAt: readiness.startedAt)
        }
        perform(readiness.timer(at: t))
    }

    /// How long a flip may stay in flight before the loop counts as stuck.
    static let flipTimeout = FrameFlow.flipTimeout
}
