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
/// settled and keeps that frame, so what it writes is what the daemon shows at that moment — the
/// titles, currencies, zones, baselines and market marks of the config, not a file's stem and
/// defaults. Nothing here decides anything: the core does, exactly as in the daemon; and nothing
/// here draws: the daemon's own `OutputScreen` paints every plan onto a headless display (banner,
/// software dimming, tape band, shift and turn included), so the two cannot drift apart.
package final class StillFrame: KioskShell {
    package struct Request {
        package var configPath: String
        package var show = ShowRequest()
        /// Unix seconds (the wall clock the core starts with).
        package var now: Double
        /// The display's size, else `[display] mode`, else 1920x1080 (as the headless daemon).
        package var size: (width: Int, height: Int)?
        /// A finger at this x of the chart: the scrubbed point, as the daemon would show it.
        package var scrubX: Double?
        /// Software dimming, 0...1 (`render --brightness`): the frame as the daemon draws it at that level.
        package var brightness = 1.0

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
        /// Every instrument as the tape tells it (the core's watchlist entries).
        package var tapeEntries: [WatchlistEntry] = []
    }

    private var runner: KioskRunner!
    private var time: KioskTime
    private let info: DisplayInfo
    private let screen: OutputScreen
    private let display: HeadlessDisplay
    private let fonts: FontSet
    private var picture: PixelBuffer?
    private var pendingFlip: (due: Double, sequence: UInt64)?
    private var sequence: UInt64 = 0
    private var messages: [String] = []

    private init(setup: KioskSetup, fonts: FontSet, info mode: DisplayInfo, now: Double) {
        time = KioskTime(mono: 1000, wall: now)
        self.fonts = fonts
        screen = OutputScreen(renderThreads: Daemon.renderThreads(for: setup.config))
        screen.safeArea = setup.config.safeArea
        // The core lays out what the safe area leaves, as the daemon's does (`OutputScreen.info(of:)`).
        let m = OutputScreen.margins(width: mode.width, height: mode.height, safeArea: setup.config.safeArea)
        info = DisplayInfo(width: max(1, mode.width - 2 * m.x), height: max(1, mode.height - 2 * m.y), refreshHz: mode.refreshHz)
        // Flips complete at once (no timerfd): the manual clock below paces them.
        display = HeadlessDisplay(width: mode.width, height: mode.height, refreshHz: mode.refreshHz)
        screen.display = display
        let core = KioskCore(setup: setup, fonts: fonts, watchdogInterval: nil, writesStatus: false)
        runner = KioskRunner(core: core, now: { [unowned self] in time })
        runner.shell = self
    }

    /// Loads the config and its data as the daemon does and runs the core until the picture has
    /// settled. Config errors are messages (the daemon starts with them too); nil only when the
    /// config cannot be read at all.
    package static func render(_ request: Request, fonts: FontSet) -> Result? {
        let (config, issues) = Config.load(path: request.configPath)
        if issues.contains(where: { $0.severity == .error && $0.line == 0 }) { return nil }
        let mode = request.size ?? config.mode.map { ($0.width, $0.height) } ?? (1920, 1080)
        let info = DisplayInfo(width: mode.0, height: mode.1, refreshHz: 60)
        let still = StillFrame(setup: Daemon.setup(for: config, file: request.configPath), fonts: fonts, info: info,
                               now: request.now)
        still.messages = issues.map { "config: \($0)" }
        still.run(config: config, request: request)
        guard var picture = still.picture else { return nil }
        // Brightness 0 is the screen off (`ctl brightness 0`): what the glass shows is black.
        if request.brightness <= 0 { picture = PixelBuffer(width: picture.width, height: picture.height, fill: 0xFF00_0000) }
        return Result(picture: picture, status: still.runner.core.status(), messages: still.messages,
                      tapeEntries: still.runner.core.tapeEntries())
    }

    private func run(config: Config, request: Request) {
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
        send(.show(request.show))
        // `render --brightness N` is the daemon at `ctl brightness N`: software dimming draws it.
        if request.brightness > 0 && request.brightness < 1 {
            send(.control(id: 0, .brightness(Int((request.brightness * 100).rounded()))))
        }
        if let x = request.scrubX { send(.gesture(.scrubBegan(x: x, y: Double(info.height) / 2), inputMicros: nil)) }
        // Frames until one shows nothing in motion; a minute of core time bounds a picture that
        // never settles (it cannot: every motion has an end).
        let end = time.mono + 60
        while time.mono < end {
            let core = runner.core
            if picture != nil, core.settledFrame == core.stats.presentedFrames, pendingFlip == nil { break }
            let next = [pendingFlip?.due, core.nextDeadline].compactMap { $0 }.min() ?? time.mono + 1 / info.refreshHz
            time = time.advanced(by: max(0, min(next, end) - time.mono))
            if let flip = pendingFlip, flip.due <= time.mono {
                pendingFlip = nil
                send(.flipCompleted(vblank: time.mono, sequence: flip.sequence))
            } else {
                send(.timer)
            }
        }
    }

    private func send(_ event: KioskEvent) { runner.send(event) }


    // MARK: KioskShell

    package func present(_ plan: FramePlan) {
        let (answer, _) = screen.present(plan, fonts: fonts)
        picture = display.screen
        sequence += 1
        pendingFlip = (time.mono + 1 / info.refreshHz, sequence)
        send(answer)
    }

    package func openDisplay() { send(.displayOpened(info)) }
    package func reopenDisplay() { openDisplay() }
    package func log(_ priority: Log.Priority, _ text: String) {
        if priority.rawValue <= Log.Priority.warning.rawValue { messages.append(text) }
    }
    package func setPowered(_ on: Bool) { if !on { send(.screenOffApplied(dpms: true)) } }
    package func ready(status: String?) {}
    package func watchdogPing() {}
    package func reloading() {}
    package func stopping(statistics: String) {}
    package func watchHotplug(_ on: Bool) {}
    package func openInput() {}
    package func releaseDisplay() {}
    package func acquireDisplay() {}
    package func layoutChanged(quarterTurns: Int, width: Int, height: Int) {}
    package func writeStatus(_ status: KioskStatus) {}
    package func exit(status: Int32) {}
    package func cec(_ request: CECRequest) {}
}
