// The screen's power and light: whether it is lit, how it is dark when it is not, its level and its
// palette, from the weekly schedule (the `ScreenPower` rule), touches and presence keys, the room's
// light (`AmbientLight`) and the control socket's `screen` and `brightness`. Pure: the core hands it
// the time and what happened and carries out the actions that come back. `.decide` among them asks
// the core to call `decide`, because a decision is also when the core looks at what changes with the
// clock (the market note, the header's clock, the tiles): that part stays the core's.

import Control

/// The screen's power and light; see the file's header comment.
struct ScreenPowerMachine {
    /// The palette a lit screen shows: the night variant while below full level with `night-palette`.
    enum Palette: Equatable {
        case day
        case night
    }

    /// How a screen that is off is dark: not yet (no display to switch), by DPMS (asked of the
    /// display), or by a black frame (the display has no DPMS: wanted, then shown).
    enum Darkness: Equatable {
        case notYet
        case dpms
        case blackFrameWanted
        case blackFrame
    }

    /// A dark screen shows no palette: the day's is the one it comes back in.
    enum State: Equatable {
        case on(Palette)
        case off(Darkness)
    }

    /// `ctl screen` and `ctl brightness`: the schedule decides, or the operator does since `since`
    /// (wall seconds: a touch before the request does not wake the screen past it).
    enum Control: Equatable {
        case auto
        /// Lit at `level` percent (nil: full).
        case on(level: Int?, since: Double)
        case off(since: Double)
    }

    /// Whether the weekly schedule said on at the last decision: its off -> on edge ends a TV's
    /// "switched off by hand" (CEC).
    enum Scheduled: Equatable {
        case on
        case off
    }

    enum Action: Equatable {
        case log(Log.Priority, String)
        /// Switch the display's power (DPMS).
        case setPowered(Bool)
        /// The screen came on: every pixel is drawn again, and the flip sequence starts afresh.
        case lit
        /// The screen went dark: READY=1 may say so.
        case darkened
        /// Tell the TV on HDMI-CEC; `scheduleBegan`: an on-period of the schedule began first.
        case tellTV(screenOn: Bool, scheduleBegan: Bool)
        /// The level moves: the picture is drawn again at each step of the fade.
        case repaint
        /// The palette changed: the scenes are built again in `palette`.
        case paletteChanged
        /// The display powered down with a flip in flight: that flip's completion never comes.
        case forgetFlip
        /// Something the decision reads changed: the core decides again (`decide`).
        case decide
    }

    /// What the next frame shows of the screen's light.
    enum FrameLight: Equatable {
        /// Dark by DPMS, not yet, or with its black frame on the glass: no frame.
        case dark
        /// Dark without DPMS: one black frame, copied whole.
        case black
        /// Lit at `level` (0...1); `changed`: not the level of the last frame presented (software
        /// dimming repaints every pixel); `fading`: the level still moves, so the frame is no rest.
        case lit(level: Double, changed: Bool, fading: Bool)
    }

    /// The schedule, the idle timeout and the wake time: replaced on every configuration.
    private var rule: ScreenPower
    /// The palette a dimmed screen shows (`night-palette`).
    private var dimmedPalette: Palette
    private(set) var state = State.on(.day)
    private(set) var reason = ScreenPower.Reason.schedule
    /// The level while lit, fading between decisions.
    private var light = LightFade(level: 1)
    /// The room's light (`[power] light-sensor`): a level under the schedule's.
    private var ambient = AmbientLight()
    /// The level of the last frame presented.
    private var presentedLevel = 1.0
    /// The last touch or presence key (wall seconds); nil before the first.
    private var lastActivity: Double?
    private(set) var control = Control.auto
    private var scheduled: Scheduled?
    /// When the decision changes by itself (core seconds), nil before the first decision.
    private(set) var decisionDue: Double?

    init(rule: ScreenPower, nightPalette: Bool) {
        self.rule = rule
        dimmedPalette = nightPalette ? .night : .day
    }

    var isOn: Bool { if case .on = state { true } else { false } }

    var palette: Palette { if case .on(let palette) = state { palette } else { .day } }

    /// The control socket's mode, as the status file names it.
    var controlMode: ControlCommand.ScreenMode {
        switch control {
        case .auto: .auto
        case .on: .on
        case .off: .off
        }
    }

    /// `ctl brightness N`: the level held while the control is on (nil: full).
    var controlLevel: Int? { if case .on(let level, _) = control { level } else { nil } }

    /// The light sensor's last reading (nil: none, or it cannot be read).
    var lux: Double? { ambient.lux }

    /// When a change of the room's level waits to take effect (`ambientTimer`).
    var ambientDue: Double? { ambient.nextDeadline }

    /// The level at `t` in percent, 0 while dark.
    func percent(at t: Double) -> Int { isOn ? Int((light.level(at: t) * 100).rounded()) : 0 }

    /// A new configuration: what is known of the screen, the room and the operator stays.
    mutating func configure(rule: ScreenPower, nightPalette: Bool) {
        self.rule = rule
        dimmedPalette = nightPalette ? .night : .day
    }

    /// Another CEC adapter (or none): what is known of the TV starts again, the schedule's edge too.
    mutating func forgetSchedule() { scheduled = nil }

    /// Decides the screen's state at `time`. `startedAt`: the daemon's start (core seconds), which
    /// stands in for a touch in the idle timeout; `displayOpen`: a display is there to power down;
    /// `means`: how the level is carried out, for the log.
    mutating func decide(at time: KioskTime, startedAt: Double?, displayOpen: Bool, means: String) -> [Action] {
        var actions: [Action] = []
        // Before the first touch the start-up time stands in for it, so the idle timeout runs from
        // start-up; it is no touch, though: outside the schedule the screen stays off from start.
        var decision = rule.decide(at: time.wall, lastActivity: lastActivity ?? -1e12)
        if lastActivity == nil, rule.blankAfterIdleSeconds > 0 {
            let fromStart = rule.decide(at: time.wall, lastActivity: time.wall - (time.mono - (startedAt ?? time.mono)))
            if fromStart.reason != .touched { decision = fromStart }
        }
        // Under `ctl screen`/`brightness` a touch since the request lights the screen fully for
        // the wake time, then the request holds again.
        switch control {
        case .auto: break
        case .on(_, let since), .off(let since):
            if let touched = lastActivity, touched > since, time.wall - touched < rule.wakeSeconds {
                decision = ScreenPower.Decision(isOn: true, reason: .touched, nextChange: touched + rule.wakeSeconds)
            } else {
                decision = ScreenPower.Decision(level: controlMode == .on ? controlLevel ?? 100 : 0, reason: .schedule,
                                                nextChange: nil)
            }
        }
        reason = decision.reason
        let wasOn = isOn
        let wasNight = palette == .night
        if decision.isOn != wasOn {
            if decision.isOn {
                actions.append(.log(.notice, "power: screen on"))
                if state == .off(.dpms) { actions.append(.setPowered(true)) }
                state = .on(.day)
                actions.append(.lit)
            } else {
                // DPMS when the driver has it (the shell answers `.screenOffApplied(dpms: false)`
                // when not); no rendering at all until on.
                if displayOpen {
                    actions.append(.setPowered(false))
                    state = .off(.dpms)
                } else {
                    state = .off(.notYet)
                }
                actions.append(.darkened)
            }
        }
        let scheduledNow = rule.isScheduledOn(at: ScreenPower.seconds(time.wall))
        actions.append(.tellTV(screenOn: decision.isOn, scheduleBegan: scheduledNow && scheduled == .off))
        scheduled = scheduledNow ? .on : .off
        if decision.isOn {
            // The room's light lowers the level (the schedule's is the ceiling); a level asked for
            // on the control socket is the operator's.
            let room = control == .auto ? ambient.level ?? 1 : 1
            let target = min(Double(decision.level) / 100, room)
            if !wasOn {
                // From DPMS off the screen comes on at its level: a fade up from black would be a
                // second of a dark screen after a touch.
                light.jump(to: target)
            } else if target != light.to {
                let from = Int((light.to * 100).rounded()), to = Int((target * 100).rounded())
                actions.append(.log(.info, "power: level \(from) % -> \(to) % (\(means)\(room < 1 ? ", the room's light" : ""))"))
                light.fade(to: target, at: time.mono)
                actions.append(.repaint)
            }
        }
        let night = dimmedPalette == .night && decision.isOn && decision.level < 100
        if night != wasNight {
            if decision.isOn { state = .on(night ? .night : .day) }
            actions.append(.log(.info, "power: \(night ? "night" : "day") palette"))
            actions.append(.paletteChanged)
        }
        // The wall clock can be stepped: the longest sleep is capped, and the decision made again.
        let sleep = min(decision.nextChange.map { max(1, $0 - time.wall) } ?? ScreenPower.maximumSleep, ScreenPower.maximumSleep)
        decisionDue = time.mono + sleep
        return actions
    }

    /// A touch, a key or a presence key at `wall`: the idle countdown restarts. A dark screen wakes,
    /// and a dimmed one comes to full level.
    mutating func activity(at wall: Double) -> [Action] {
        lastActivity = wall
        return !isOn || rule.blankAfterIdleSeconds > 0 || light.to < 1 ? [.decide] : []
    }

    /// `ctl screen MODE` at `wall`: `auto` gives the screen back to the schedule and the room.
    mutating func screen(_ mode: ControlCommand.ScreenMode, at wall: Double) -> [Action] {
        switch mode {
        case .auto: control = .auto
        case .on: control = .on(level: nil, since: wall)
        case .off: control = .off(since: wall)
        }
        return [.log(.notice, "control: screen \(mode.rawValue)"), .decide]
    }

    /// `ctl brightness N` at `wall`: a light's brightness (Home Assistant's too), on at that level
    /// until `screen auto`; 0 is off. A touch still lights the screen fully for the wake time.
    mutating func brightness(_ percent: Int, at wall: Double) -> [Action] {
        control = percent > 0 ? .on(level: percent < 100 ? percent : nil, since: wall) : .off(since: wall)
        return [.log(.notice, "control: brightness \(percent) %"), .decide]
    }

    /// The light sensor read `lux` at `t` (nil: it cannot be read).
    mutating func ambientReading(_ reading: Double?, at t: Double) -> [Action] {
        // The sensor's reader passes finite readings only; a reading that is not one is no reading
        // (the log line below would trap on it).
        let lux = reading.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let before = ambient.lux
        var actions: [Action] = ambient.reading(lux: lux, at: t) ? [.decide] : []
        if (before == nil) != (lux == nil) {
            actions.append(.log(lux == nil ? .warning : .info, lux == nil ? "power: the light sensor cannot be read; the schedule's level alone"
                : "power: the light sensor reads \(Int(lux!.rounded())) lx"))
        }
        return actions
    }

    /// The clock reached `t`: a change of the room's level that waited may take effect now.
    mutating func ambientTimer(at t: Double) -> [Action] {
        guard let due = ambient.nextDeadline, due <= t, ambient.timer(at: t) else { return [] }
        return [.decide]
    }

    /// The display says how it went dark: by DPMS, or it has none and a black frame must do.
    mutating func offApplied(dpms: Bool) -> [Action] {
        guard !isOn else { return [] }
        let log = Action.log(.notice, "power: screen off (\(dpms ? "DPMS" : "black frame")): \(reason == .idle ? "idle" : "schedule")")
        guard dpms else {
            state = .off(.blackFrameWanted)
            return [log]
        }
        // A display that powers down lets a flip in flight land and forgets it (KMS waits for it,
        // then resets): its completion never comes, and a frame still counted as in flight would
        // hold back every frame after the wake (seen in the E2E when the schedule turned the
        // screen off during the draw-in).
        return [log, .forgetFlip]
    }

    /// A display opened while the screen is meant to be dark: it is powered down at once.
    mutating func displayOpened() -> [Action] {
        guard case .off(let darkness) = state, darkness != .dpms else { return [] }
        state = .off(.dpms)
        return [.setPowered(false)]
    }

    /// What the next frame, at `t`, shows of the light; a black frame asked for is counted as shown.
    mutating func frame(at t: Double) -> FrameLight {
        switch state {
        case .off(.blackFrameWanted):
            state = .off(.blackFrame)
            return .black
        case .off:
            return .dark
        case .on:
            let level = light.level(at: t)
            return .lit(level: level, changed: level != presentedLevel, fading: light.isFading(at: t))
        }
    }

    /// A lit frame went out at `level`.
    mutating func presented(level: Double) { presentedLevel = level }
}
