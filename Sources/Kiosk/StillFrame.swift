import Chart
import Display
import DisplayModel
import Feed
import KioskCore
import Raster
import StatusModel
import Text

/// `render --config`: the daemon's own core, handed the daemon's own reading of the config and the
/// data files, on a manual clock that starts at the moment asked for. It runs until the picture has
/// settled and keeps that frame (with a crawling tape, the settled picture's frame at the moment
/// asked for on the daemon's monotonic clock), so what it writes is what the daemon shows then — the
/// titles, currencies, zones, baselines and market marks of the config, not a file's stem and
/// defaults. Nothing here decides anything: the core does, exactly as in the daemon; and nothing
/// here draws: the daemon's own `OutputScreen` paints every plan onto a headless display (banner,
/// software dimming, tape band, shift and turn included), so the two cannot drift apart.
package final class StillFrame: KioskShell {
    package struct Request {
        package var configPath: String
        /// What to put on screen and hold; nil: what the output shows by itself (its section's scene,
        /// the round's first step).
        package var show: ShowRequest? = ShowRequest()
        /// The `[output]` section whose screen this is (its index among them): its scene, turn and
        /// tape, as the daemon drives that output. 0 without sections.
        package var output = 0
        /// Unix seconds (the wall clock the core starts with).
        package var now: Double
        /// The display's size, else `[display] mode`, else 1920x1080 (as the headless daemon).
        package var size: (width: Int, height: Int)?
        /// A finger at this x of the chart: the scrubbed point, as the daemon would show it.
        package var scrubX: Double?
        /// Software dimming, 0...1 (`render --brightness`): the frame as the daemon draws it at that level.
        package var brightness = 1.0
        /// A banner as `ctl message` puts one up (`render --message`).
        package var message: String?
        /// `[tape] position` for this picture instead of the config's (`--scene tape` on a config
        /// without a tape asks for the tape alone).
        package var tape: TapePosition?
        /// The moment of the frame on the daemon's monotonic clock (`render --at`, the moment a
        /// preview names). A crawling tape is a function of it; without a tape the settled picture
        /// is the same whenever it is shown, and this is ignored. Default 0 with a tape.
        package var at: Double?

        package init(configPath: String, now: Double) {
            self.configPath = configPath
            self.now = now
        }
    }

    /// The frame on the glass (turned for the panel, as the display shows it) and what the status
    /// file says of it.
    package struct Result {
        package var picture: PixelBuffer
        package var status: KioskStatus
        /// What the daemon would log: config and data problems, a range it cannot draw.
        package var messages: [String]
        /// The frame's tape as the core planned it (its items worded), nil without one.
        package var tape: FrameTape?
        /// The tape's band on the glass (inside the safe area's margins), nil without a tape.
        package var band: IntRect?
        /// The frame's moment on the core's monotonic clock.
        package var time: Double
    }

    private var runner: KioskRunner!
    private var time: KioskTime
    private let info: DisplayInfo
    private let margins: (x: Int, y: Int)
    private let screen: OutputScreen
    private let display: HeadlessDisplay
    private let fonts: FontSet
    private var picture: PixelBuffer?
    /// The plan of the frame last presented.
    private var shown: FramePlan?
    /// Whether a frame so far was in motion, and the first still frame after one (a draw-in's end).
    private var moved = false
    private var firstRest: Double?
    private var pendingFlip: (due: Double, sequence: UInt64)?
    private var sequence: UInt64 = 0
    private var messages: [String] = []
    /// The output drawn (the core plans every output's frames; the others have no display here).
    private let output: Int

    private init(setup: KioskSetup, output: Int, fonts: FontSet, info mode: DisplayInfo, now: KioskTime) {
        time = now
        self.output = output
        self.fonts = fonts
        screen = OutputScreen(renderThreads: Daemon.renderThreads(for: setup.config))
        screen.safeArea = setup.config.safeArea
        // The core lays out what the safe area leaves, as the daemon's does (`OutputScreen.info(of:)`).
        margins = OutputScreen.margins(width: mode.width, height: mode.height, safeArea: setup.config.safeArea)
        info = DisplayInfo(width: max(1, mode.width - 2 * margins.x), height: max(1, mode.height - 2 * margins.y),
                           refreshHz: mode.refreshHz)
        // Flips complete at once (no timerfd): the manual clock below paces them.
        display = HeadlessDisplay(width: mode.width, height: mode.height, refreshHz: mode.refreshHz)
        screen.display = display
        let core = KioskCore(setup: setup, fonts: fonts, watchdogInterval: nil, writesStatus: false)
        runner = KioskRunner(core: core, now: { [unowned self] in time })
        runner.shell = self
    }

    /// Loads the config and its data as the daemon does and runs the core until the picture has
    /// settled (with a tape: the settled picture's frame at `request.at`). Config errors are
    /// messages (the daemon starts with them too); nil only when the config cannot be read at all.
    package static func render(_ request: Request, fonts: FontSet) -> Result? {
        var (config, issues) = Config.load(path: request.configPath)
        if issues.contains(where: { $0.severity == .error && $0.line == 0 }) { return nil }
        if let tape = request.tape { config.tapePosition = tape }
        // The output's own config: its scene, turn and tape (what its core reads in the daemon).
        let shown = config.forOutput(request.output)
        let mode = request.size ?? config.mode.map { ($0.width, $0.height) } ?? (1920, 1080)
        let info = DisplayInfo(width: mode.0, height: mode.1, refreshHz: 60)
        let setup = Daemon.setup(for: config, file: request.configPath)
        let at = shown.tapePosition == .off ? nil : request.at ?? 0
        // The core starts `lead` seconds before `at`, so that its picture has settled by then (a
        // draw-in, a fade) and nothing else is due yet (a cycle's next step); the frame at `at`
        // is the one kept. A picture that takes longer is run again from earlier on, one that
        // settles early but meets a timer before `at` from just before `at`.
        var lead = 3.0, tight = false
        while true {
            let still = StillFrame(setup: setup, output: request.output, fonts: fonts, info: info,
                                   now: KioskTime(mono: at.map { $0 - lead } ?? 1000, wall: request.now))
            still.messages = issues.map { "config: \($0)" }
            if case .retry(let settledAfter) = still.run(config: config, request: request, at: at), lead < 60 {
                if let s = settledAfter, !tight, s + 4 / info.refreshHz < lead {
                    // At rest from `s` until something began to move before `at` (a cycle's step).
                    lead = s + 4 / info.refreshHz
                    tight = true
                } else {
                    lead *= 2
                }
                continue
            }
            guard var picture = still.picture, let plan = still.shown else { return nil }
            // Brightness 0 is the screen off (`ctl brightness 0`): what the glass shows is black.
            if request.brightness <= 0 { picture = PixelBuffer(width: picture.width, height: picture.height, fill: 0xFF00_0000) }
            let band = plan.tape.map { tape in
                let b = TapeLayout.band(position: tape.position, width: still.info.width, height: still.info.height)
                return IntRect(x0: b.x0 + still.margins.x, y0: b.y0 + still.margins.y, x1: b.x1 + still.margins.x,
                               y1: b.y1 + still.margins.y)
            }
            return Result(picture: picture, status: still.runner.core.status(), messages: still.messages, tape: plan.tape,
                          band: band, time: plan.time)
        }
    }

    private enum Outcome {
        case done
        /// The frame at `at` did not show the settled picture: start again earlier. `settledAfter`:
        /// when the picture first came to rest, seconds from the start (it moved again before `at`).
        case retry(settledAfter: Double?)
    }

    private func run(config: Config, request: Request, at: Double?) -> Outcome {
        let start = time.mono
        send(.start)
        if !config.instruments.isEmpty {
            do {
                let live = try LiveData(config: config, log: { [unowned self] in messages.append("data: \($0)") }) { _ in }
                live.onProblem = { [unowned self] path, message in
                    messages.append("data: " + KioskCore.locate(path: path, message: message, in: config,
                                                                file: request.configPath).description)
                }
                live.onStatus = { [unowned self] id, status in send(.fetchStatus(instrumentID: id, status)) }
                // Offset-less times are anchored first (as the core would): they are cut at `now` as instants.
                let zones = DataCheck.zones(for: config, file: request.configPath).zones
                for update in live.loadAll() {
                    let series = zones[update.instrumentID].map { update.series.anchored(in: $0) } ?? update.series
                    // What the files held at `now`: a moment in the past is shown as the daemon showed
                    // it then, without the prices that came after (they would also say the clock was not set).
                    send(.series(instrumentID: update.instrumentID, slot: update.slot, series: series.through(Int64(max(-9e18, min(9e18, request.now.rounded(.down)))))))
                }
                send(.dataProblems(live.problems))
            } catch {
                messages.append("data: cannot read the data files: \(error)")
            }
        }
        if let show = request.show { send(.show(show)) }
        // `render --brightness N` is the daemon at `ctl brightness N`: software dimming draws it.
        if request.brightness > 0 && request.brightness < 1 {
            send(.control(id: 0, .brightness(Int((request.brightness * 100).rounded()))))
        }
        if let text = request.message { send(.control(id: 0, .message(text: text, seconds: nil))) }
        if let x = request.scrubX { send(.gesture(.scrubBegan(x: x, y: Double(info.height) / 2), inputMicros: nil)) }
        // Frames until one shows nothing in motion; a minute of core time bounds a picture that
        // never settles (it cannot: every motion has an end).
        let period = 1 / info.refreshHz
        let end = max(start + 60, (at ?? start) + period)
        while time.mono < end {
            let core = runner.core
            let settled = picture != nil && core.settledFrame == core.stats.presentedFrames
            // Nothing moves and nothing is under way (no tape crawls, or the screen is off).
            if settled, pendingFlip == nil { return .done }
            if let at, let shown, shown.time >= at {
                return shown.time == at && settled ? .done : .retry(settledAfter: firstRest.map { $0 - start })
            }
            var flipAt = pendingFlip?.due
            // The frame for `at`: the last flip before it completes late, at `at`, and the core
            // plans the next frame for the moment it is asked (as after a missed vblank) instead
            // of the next vblank, which would not fall on `at`. `lateEnough` is the core's own test
            // (`frameTime`: past the vblank after next) in its arithmetic, and the flip after this
            // one would be due at `due + period`: exactly one flip qualifies.
            if let at, let due = flipAt {
                func lateEnough(_ due: Double) -> Bool { (due + period) + period < at }
                if lateEnough(due), !lateEnough(due + period) { flipAt = at }
            }
            let next = [flipAt, core.nextDeadline].compactMap { $0 }.min() ?? time.mono + period
            advance(to: max(time.mono, min(next, end)))
            if let flip = pendingFlip, let flipAt, flipAt <= time.mono {
                pendingFlip = nil
                send(.flipCompleted(vblank: flip.due, sequence: flip.sequence))
            } else {
                send(.timer)
            }
        }
        return at == nil ? .done : .retry(settledAfter: nil)
    }

    /// Moves the manual clock to `mono` exactly (a frame planned now carries that time), the wall
    /// clock along with it.
    private func advance(to mono: Double) {
        time = KioskTime(mono: mono, wall: time.wall + (mono - time.mono))
    }

    /// Every event is the drawn output's (those every output hears ignore it).
    private func send(_ event: KioskEvent) { runner.send(event, output: output) }


    // MARK: KioskShell

    package func present(_ plan: FramePlan, output: Int) {
        let (answer, _) = screen.present(plan, fonts: fonts)
        picture = display.screen
        shown = plan
        if !plan.settled { moved = true } else if moved, firstRest == nil { firstRest = plan.time }
        sequence += 1
        pendingFlip = (time.mono + 1 / info.refreshHz, sequence)
        send(answer)
    }

    package func openDisplay(output: Int) {
        if output == self.output { send(.displayOpened(info)) } else { runner.send(.displayUnavailable(message: nil), output: output) }
    }
    package func reopenDisplay(output: Int) { openDisplay(output: output) }
    package func log(_ priority: Log.Priority, _ text: String, output: Int?) {
        if priority.rawValue <= Log.Priority.warning.rawValue { messages.append(text) }
    }
    package func setPowered(_ on: Bool, output: Int) { if !on { send(.screenOffApplied(dpms: true)) } }
    package func ready(status: String?) {}
    package func watchdogPing() {}
    package func reloading() {}
    package func stopping(statistics: String) {}
    package func watchHotplug(_ on: Bool, output: Int) {}
    package func openInput() {}
    package func releaseDisplay(output: Int?) {}
    package func acquireDisplay(output: Int?) {}
    package func layoutChanged(output: Int, quarterTurns: Int, width: Int, height: Int) {}
    package func writeStatus(_ write: StatusWrite) {}
    package func exit(status: Int32) {}
    package func cec(_ request: CECRequest) {}
}
