// KioskCore: Touch and keys.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Input

    /// `gesture` in the scene's coordinates (a band on top moves the scene down by its height).
    func sceneGesture(_ gesture: Gesture) -> Gesture {
        guard config.tapePosition == .top, let info = displayInfo else { return gesture }
        let sideways = quarterTurns % 2 == 1
        let (w, h) = sideways ? (info.height, info.width) : (info.width, info.height)
        let dy = Double(TapeLayout.contentArea(position: .top, width: w, height: h).y0)
        switch gesture {
        case .scrubBegan(let x, let y): return .scrubBegan(x: x, y: y - dy)
        case .scrubMoved(let x, let y): return .scrubMoved(x: x, y: y - dy)
        case .tap(let x, let y): return .tap(x: x, y: y - dy)
        default: return gesture
        }
    }

    func handle(_ gesture: Gesture, inputMicros: UInt64?) {
        guard let model else { return }
        round.touched(at: now.mono)
        // The touch that wakes the screen does nothing else (WakingTouch).
        guard wakingTouch.admit(gesture, woke: noteActivity()) else { return }
        let t = frameTime()
        // A band on top moves the scene down: touches come in screen coordinates.
        let gesture = sceneGesture(gesture)
        if showingWatchlist, let watchlist {
            switch gesture {
            case .tap(let x, let y):
                // The chart of the tile's instrument, on the tile's range; the show goes on after
                // the touch pause (`cycle`).
                if let k = watchlist.layout.tile(atX: x, y: y) {
                    if pendingInputMicros == nil { pendingInputMicros = inputMicros }
                    open(instrument: board.tile(at: k), range: watchlist.range)
                }
            case .swipe(let direction): stepWatchlist(direction == .left ? 1 : -1)
            case .scrubBegan, .scrubMoved, .scrubEnded: break
            }
            return
        }
        let plot = model.screen.layout.plot
        switch gesture {
        case .scrubBegan(let x, let y), .scrubMoved(let x, let y):
            guard y <= plot.bottom + 8 * model.screen.layout.scale || model.scrubIndex != nil else { return }
            if model.scene != .line { model.select(model.range, at: t, animated: false) }
            if model.scrub(atX: x) {
                if pendingInputMicros == nil { pendingInputMicros = inputMicros }
                needs.insert(.picture)
            }
        case .scrubEnded:
            if model.scrubIndex != nil {
                model.endScrub()
                needs.insert(.picture)
            }
        case .tap(let x, let y):
            if let range = model.screen.layout.range(atX: x, y: y) {
                model.select(range, at: t)
                round.shown(range)
                if pendingInputMicros == nil { pendingInputMicros = inputMicros }
                needs.insert(.picture)
            }
        case .swipe(let direction):
            step(direction == .left ? 1 : -1, at: t)
        }
    }

    func handle(_ command: KeyCommand) {
        guard let model else { return }
        round.touched(at: now.mono)
        if noteActivity() { return }
        let t = frameTime()
        if showingWatchlist, let watchlist {
            // The keys choose the range of every tile.
            switch command {
            case .selectRange(let index):
                guard index >= 0, index < config.ranges.count else { return }
                watchlist.select(config.ranges[index])
                needs.insert(.picture)
            case .previousRange: stepWatchlist(-1)
            case .nextRange: stepWatchlist(1)
            case .togglePause: togglePause()
            }
            return
        }
        switch command {
        case .selectRange(let index):
            // The key names a configured range; one this instrument cannot draw does nothing.
            guard index >= 0, index < config.ranges.count, shownRanges.contains(config.ranges[index]) else { return }
            model.select(config.ranges[index], at: t)
            needs.insert(.picture)
        case .previousRange: step(-1, at: t)
        case .nextRange: step(1, at: t)
        case .togglePause: togglePause()
        }
    }

    func togglePause() {
        log(.notice, "cycling \(round.togglePause() ? "paused" : "resumed") from the keyboard")
    }

    /// Swipes and arrow keys step through the ranges the selector offers.
    func step(_ delta: Int, at time: Double) {
        guard let model else { return }
        let ranges = shownRanges.isEmpty ? config.ranges : shownRanges
        let i = ((ranges.firstIndex(of: model.range) ?? 0) + delta % ranges.count + ranges.count) % ranges.count
        model.select(ranges[i], at: time)
        needs.insert(.picture)
    }

    /// Someone is there: restart the idle countdown; returns true if this woke the screen.
    func noteActivity() -> Bool {
        let wasOff = !screenOn
        perform(power.activity(at: now.wall))
        return wasOff && screenOn
    }
}
