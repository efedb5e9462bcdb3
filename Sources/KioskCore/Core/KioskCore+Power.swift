// KioskCore: Screen power, the CEC rule, readiness, burn-in and rotation: the machines' answers carried out.

import Chart
import Control
import DisplayModel
import Feed
import InputModel
import Raster
import StatusModel
import Text

extension KioskCore {
    // MARK: Screen power

    /// The power decision, and with it a look at what changes with the clock: the market note, the
    /// header's clock and the tiles, whose next changes wake it as the decision's own does.
    func decidePower() {
        perform(power.decide(at: now, startedAt: readiness.startedAt, displayOpen: displayState != .none, means: brightnessMeans))
        refreshStatusNote()
        var sleep: Double?
        // The market status changes at the open, the lunch break and the close: wake up for it.
        if let change = header.marketNote?.nextChange { sleep = min(sleep ?? .infinity, max(1, Double(change) - now.wall + 1)) }
        if let change = header.clockNextChange { sleep = min(sleep ?? .infinity, max(1, Double(change) - now.wall)) }
        // The tiles' staleness and market marks move with the clock too; a finger's every move
        // (the idle countdown) need not recompute twelve instruments, once a minute will do.
        if watchlist != nil || tapeOn {
            if board.tilesDue(wall: now.wall) {
                refreshTiles()
            }
            if let change = board.nextChange { sleep = min(sleep ?? .infinity, max(1, Double(change) - now.wall + 1)) }
        }
        header.looked(wakeAt: sleep.map { now.mono + $0 })
    }

    /// How the level is carried out: `backlight NAME` or `software` (the log and the status file).
    public var brightnessMeans: String { displayInfo?.backlight.map { "backlight \($0)" } ?? "software" }

    /// The screen's level now in percent (0 while off).
    public var lightLevel: Int { power.percent(at: now.mono) }

    /// Carries out what the power machine answered.
    func perform(_ actions: [ScreenPowerMachine.Action]) {
        for action in actions {
            switch action {
            case .log(let priority, let text): log(priority, text)
            case .setPowered(let on): emit(.setPowered(on))
            case .lit: frames.screenLit()
            case .darkened: perform(readiness.reached("screen off (power)"))
            case .tellTV(let on, let scheduleBegan):
                // The TV hangs on the output the shell's CEC link follows: the first.
                guard current == Self.cecOutput else { break }
                if scheduleBegan { cec.scheduledOnBegan() }
                perform(cec.screen(on: on, at: now.mono))
            case .repaint: needs.insert(.picture)
            case .paletteChanged:
                rebuildModel()
                if watchlist != nil { rebuildWatchlist() }
                repaintWhole()
            case .forgetFlip: frames.flipForgotten()
            case .decide: decidePower()
            }
        }
    }

    /// Carries out what readiness answered.
    func perform(_ action: Readiness.Action?) {
        switch action {
        case .notifyReady(let status): emit(.ready(status: status))
        case .pingWatchdog:
            // WATCHDOG=1 while no output's flip is stuck.
            var alive = true
            onEachScreen {
                let answer = frames.watchdog(at: now.mono)
                if answer != .pingWatchdog { alive = false }
                if case .log(let priority, let text) = answer { log(priority, text) }
            }
            if alive { emit(.watchdogPing) }
        case nil: break
        }
    }

    /// The output whose power tells the TV over HDMI-CEC (the shell's link follows its connector).
    static let cecOutput = 0

    /// Carries out what the frames answered: WATCHDOG=1 unless a flip is stuck.
    func perform(_ action: FrameFlow.Action?) {
        switch action {
        case .log(let priority, let text): log(priority, text)
        case .pingWatchdog: emit(.watchdogPing)
        case nil: break
        }
    }

    /// Carries out what the CEC rule answered.
    func perform(_ outputs: [CECPower.Output]) {
        for output in outputs {
            switch output {
            case .send(let request): emit(.cec(request))
            case .log(let priority, let text): log(priority, text)
            }
        }
    }

    /// The status file's `cec` (see `CECPower.status`).
    public var cecStatus: String { cec.status }

    // MARK: Burn-in

    /// How the burn-in shift moves the picture: `fb-offset` (the display moves its scanout, no
    /// copy), `copy` (the shell moves the pixels), `off`.
    public var burnInMethod: String {
        frames.burnInMethod(shiftLimit: displayInfo?.scanoutShiftLimit ?? 0, rotatesByScanout: rotatesByScanout)
    }

    /// True when the picture needs no turn, or the display gives it (no rotated copy).
    public var rotatesByScanout: Bool {
        let turns = ((quarterTurns % 4) + 4) % 4
        return turns == 0 || displayInfo?.scanoutQuarterTurns.contains(turns) == true
    }

    /// How the picture is turned for the panel: `none`, `plane` (the display's scanout) or `copy`.
    public var rotationMethod: String {
        quarterTurns % 4 == 0 ? "none" : rotatesByScanout ? "plane" : "copy"
    }

    func armBurnIn() { frames.armBurnIn(at: now.mono, startedAt: readiness.startedAt) }
}
