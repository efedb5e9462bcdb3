import Chart
import Control
import Display
import DisplayModel
import Feed
import Input
import InputModel
import KioskCore
import LinuxIO
import Raster
import Text

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's I/O shell around `KioskCore`: one thread, one epoll loop over the display, input,
/// data files, signals and one timer. Each wakeup becomes a `KioskEvent` stamped with the time;
/// the effects that come back are carried out here and nowhere else. Nothing here decides what to
/// show or when — that is the core's — so an idle daemon sleeps in `epoll_wait` with zero wakeups
/// until the core's next deadline.
package final class Daemon: KioskShell {
    /// Opens the display (tests hand in their own; the daemon opens what the options name).
    package typealias DisplayOpener = () throws(DisplayError) -> any Display

    package struct Options {
        package var configPath: String?
        package var displayChoice = DisplayBackends.Choice.auto
        package var readyFile: String?
        package var statusFile: String?
        /// Where the alerts' states are kept across restarts (`$STATE_DIRECTORY/alerts.state` under systemd).
        package var alertStateFile: String?
        package var previewFile: String?
        /// Headless only: the daemon's clock runs this many times faster than real time.
        package var timeScale: Double = 1
        /// Headless only (`--size`): the simulated display's size, over `[display] mode`.
        package var modeOverride: ModeRequest?
        /// `--control PATH`: the control socket (else the one systemd passes, if any).
        package var controlPath: String?
        /// `--control-group NAME`: the group whose members may use the socket (else the daemon's own).
        package var controlGroup: String?
        /// `--config-dir DIR`: the drop-ins (nil: `conf.d` beside the config).
        package var configDirectory: String?

        package init() {}
    }

    private var config: Config
    private let options: Options
    private let loop: EventLoop
    private let fonts: FontSet
    /// The core and the queue its events wait in (shared with the tests' driver).
    let runner: KioskRunner
    var core: KioskCore { runner.core }
    private let displayOpener: DisplayOpener?
    private let clock: ScaledClock
    private var timer: EventLoop.Registration?
    private var display: (any Display)?
    private var displayRegistration: EventLoop.Registration?
    private var hotplugMonitor: UEventMonitor?
    private var hotplugRegistration: EventLoop.Registration?
    private var input: InputDevices?
    private var inputRegistration: EventLoop.Registration?
    private var gestures = GestureRecognizer(width: 0, height: 0)
    private var liveData: LiveData?
    private var liveRegistration: EventLoop.Registration?
    private var signals: SignalFD?
    private var clockSteps: ClockStepWatch?
    private var control: ControlServer?
    /// The picture last handed to the display: a screenshot where the display cannot read back.
    private var lastPresented: PixelBuffer?
    /// The HDMI-CEC adapter (`[power] cec`), nil when off.
    private var cecLink: CECLink?
    /// Paints the core's scenes; the one canvas of the display, kept for the daemon's life.
    private let renderer: SceneRenderer
    /// The ticker tape and the screen it shares with the scene (`[tape]`), made on the first tape frame.
    private var tapeComposer: TapeComposer?
    /// When the preview was last written (monotonic ns).
    private var lastTapePreview: UInt64 = 0
    /// The frame statistics' summary as the core last gave it (on stopping).
    private var statistics = ""

    private var virtualTerminal: VirtualTerminal?
    /// The picture moved by the burn-in offset, and turned for a panel mounted on its side.
    private var shifted: PixelBuffer?
    /// The panel's turn as the core last said (`.layoutChanged`): touch maps through it.
    private var quarterTurns = 0
    /// The chart's size as the core last laid it out: gestures are recognised in its frame.
    private var chartSize: (width: Int, height: Int)?
    private var rotated: PixelBuffer?
    /// Turns the display offered but then refused (its test commit failed): copied from then on.
    private var refusedTurns: Set<Int> = []
    private var exitStatus: Int32 = 0
    /// The sysfs backlight that carries the level for the output in use (nil: software dimming),
    /// the output it was looked up for, and the level last written to it.
    private var backlight: Backlight?
    private var backlightOutput: String?
    private var backlightLevel: Double?
    /// The alert states last written to `alertStateFile`.
    private var savedAlerts: [String: AlertState] = [:]

    package init(config: Config, options: Options, fonts: FontSet, openDisplay: DisplayOpener? = nil) throws(Errno) {
        self.config = Daemon.effective(config, options)
        self.options = options
        self.fonts = fonts
        loop = try EventLoop()
        renderer = SceneRenderer(renderThreads: Daemon.renderThreads(for: self.config))
        clock = ScaledClock(scale: options.timeScale)
        let watchdog = SystemdNotify.watchdogPingInterval.map { Double($0.wholeNanoseconds) / 1e9 * options.timeScale }
        var setup = Daemon.setup(for: self.config, file: options.configPath ?? "")
        // What the alerts remembered when the daemon last ran: a restart does not fire them again.
        if let path = options.alertStateFile, let bytes = try? RegularFile.read(path, limit: 1 << 16) {
            setup.alertStates = AlertState.decode(String(decoding: bytes, as: UTF8.self))
            savedAlerts = setup.alertStates
        }
        let core = KioskCore(setup: setup, fonts: fonts, watchdogInterval: watchdog, writesStatus: options.statusFile != nil,
                             statusInterval: options.timeScale)
        runner = KioskRunner(core: core, now: { [clock] in clock.now() })
        displayOpener = openDisplay
        runner.shell = self
    }

    /// A simulated display has no input devices of its own: the seat belongs to whatever else runs.
    package static func effective(_ config: Config, _ options: Options) -> Config {
        var c = config
        if !options.displayChoice.isPhysical {
            c.inputEnabled = false
            // Nor does it own a TV: a headless test must not switch the machine's TV off.
            c.cec = .off
        }
        return c
    }

    /// `[display] render-threads`, "auto" being the processors online (at most four).
    package static func renderThreads(for config: Config) -> Int {
        config.renderThreads ?? Canvas.automaticThreadCount
    }

    /// What the config names on disk, read now: exchange and local time zones.
    package static func setup(for config: Config, file: String) -> KioskSetup {
        let (zones, problems) = DataCheck.zones(for: config, file: file)
        return KioskSetup(config: config, zones: zones, localZone: ScreenPower.systemTimeZone(), problems: problems,
                          configFile: file)
    }

    package func run() -> Int32 {
        do {
            try installSignals()
            try start()
        } catch {
            Log.error("run: cannot set up the event loop: \(error)")
            return 1
        }
        do { try loop.run() } catch {
            Log.error("run: event loop failed: \(error)")
            exitStatus = 1
        }
        return finish()
    }

    /// Everything but the signals and the loop itself: the core starts, the data files are read.
    func start() throws(Errno) {
        timer = try loop.addTimer(after: .seconds(3600)) { [unowned self] in send(.timer) }
        // A clock step re-decides at once what the wall clock decides (else up to an hour later).
        // Under `--time-scale` the daemon's wall clock is its own, and a step of the real one is
        // no news to it.
        if options.timeScale == 1, let watch = try? ClockStepWatch() {
            clockSteps = watch
            try loop.watch(watch.descriptor.rawValue) { [unowned self] _ in
                if (try? watch.clockWasSet()) == true { send(.clockStepped) }
            }
        }
        startControl()
        send(.start)
        startCEC()
        startLiveData()
    }

    /// The control socket: the one systemd passed (socket activation), else `--control PATH`.
    private func startControl() {
        let listener: UnixListener
        do throws(Errno) {
            if let fd = UnixListener.fromSystemd() {
                listener = try UnixListener(adopting: fd, path: options.controlPath ?? "(socket from systemd)")
            } else if let path = options.controlPath {
                var group: gid_t?
                if let name = options.controlGroup {
                    group = UnixListener.groupID(named: name)
                    if group == nil { Log.error("control: no group \(name); only root and this user may use \(path)") }
                }
                listener = try UnixListener(path: path, mode: 0o660, group: group)
            } else {
                return
            }
            // Who may talk: root, this user, and the group the socket's path belongs to.
            let group = listener.pathGroup.flatMap { $0 == getegid() && getegid() == 0 ? nil : $0 }
            control = try ControlServer(listener: listener, loop: loop, policy: ControlPeerPolicy(ownUID: geteuid(), group: group),
                                        now: { Double(MonotonicClock.now()) / 1e9 }) { [unowned self] id, command in
                send(.control(id: id, command))
            }
            Log.notice("control: listening on \(listener.path)")
        } catch {
            Log.error("control: cannot listen on \(options.controlPath ?? "the socket from systemd"): \(error); running without a control socket")
        }
    }

    private func startCEC() {
        cecLink?.stop()
        cecLink = nil
        guard config.cec != .off else { return }
        let link = CECLink(loop: loop, setting: config.cec, send: { [unowned self] in send($0) },
                           log: { Log.write($0, $1) })
        cecLink = link
        link.start()
    }

    /// One turn of the loop: waits (at most `timeout`) for a descriptor or the core's timer.
    @discardableResult
    func step(timeout: Duration? = nil) throws(Errno) -> Int { try loop.runOnce(timeout: timeout) }

    /// The exit status the core asked for, once the loop has stopped (nil while it runs).
    var exitRequested: Int32? { loopStopped ? exitStatus : nil }
    private var loopStopped = false

    private func finish() -> Int32 {
        control?.shutdown()
        control = nil
        display?.shutdown()
        virtualTerminal?.restore()
        input = nil
        Log.notice("run: exiting; \(statistics)\(resourceLine)")
        return exitStatus
    }

    // MARK: Events in, effects out

    func send(_ event: KioskEvent) {
        if runner.send(event) { armTimer() }
    }

    private func armTimer() {
        guard let timer else { return }
        guard let deadline = core.nextDeadline else { try? loop.disarm(timer); return }
        let delay = max(0.000_1, clock.realSeconds(until: deadline))
        try? loop.rearm(timer, after: .nanoseconds(Int64(min(delay, 86_400) * 1e9)))
    }

    // MARK: KioskShell: the core's effects, carried out

    package func setPowered(_ on: Bool) {
        guard let display else { return }
        let applied = display.setPowered(on)
        if !on { send(.screenOffApplied(dpms: applied)) }
    }

    package func cec(_ request: CECRequest) { cecLink?.perform(request) }

    package func ready(status: String?) { tellSystemd(.ready(status: status)) }
    package func watchdogPing() { tellSystemd(.watchdogPing) }
    package func reloading() { tellSystemd(.reloading) }

    package func stopping(statistics: String) {
        self.statistics = statistics
        // The console after us should not inherit a dimmed panel.
        if backlight != nil { _ = applyBacklight(1) }
        tellSystemd(.stopping(statistics: statistics))
    }

    private func tellSystemd(_ effect: KioskEffect) {
        if let message = effect.systemdMessage { notify(message) }
    }

    package func log(_ priority: Log.Priority, _ text: String) { Log.write(priority, text) }

    package func reopenDisplay() {
        closeDisplay()
        openDisplay()
    }

    package func releaseDisplay() {
        display?.suspend()
        virtualTerminal?.allowRelease()
    }

    package func acquireDisplay() {
        virtualTerminal?.acknowledgeAcquire()
        display?.resume()
    }

    package func layoutChanged(quarterTurns turns: Int, width: Int, height: Int) {
        quarterTurns = turns
        chartSize = (width, height)
        applyLayout()
    }

    package func exit(status: Int32) {
        exitStatus = status
        loopStopped = true
        loop.stop()
    }

    // MARK: Display

    package func openDisplay() {
        guard display == nil else { return }
        do {
            let d: any Display
            if let displayOpener { d = try displayOpener() } else {
                d = try DisplayBackends.open(options.displayChoice, device: config.displayDevice, connector: config.connector,
                                             mode: options.modeOverride ?? config.mode, shiftMargin: config.burnInShift,
                                             log: { Log.notice("display: \($0)") })
            }
            display = d
            if d.needsVirtualTerminal, virtualTerminal == nil {
                virtualTerminal = VirtualTerminal(log: { Log.info($0) })
            }
            if let fd = d.pollDescriptor {
                displayRegistration = try? loop.watch(fd) { [unowned self] _ in handleDisplayEvents() }
            }
            send(.displayOpened(info(of: d)))
        } catch {
            // With no device at all the command line has said so already.
            let quiet = error.kind == .noDisplay && DisplayBackends.devicePaths().isEmpty
            send(.displayUnavailable(message: quiet ? nil : "\(error)"))
        }
    }

    private func closeDisplay() {
        if let displayRegistration { loop.remove(displayRegistration); self.displayRegistration = nil }
        display?.shutdown()
        display = nil
        shifted = nil
        rotated = nil
    }

    private func info(of d: any Display) -> DisplayInfo {
        findBacklight(for: d)
        return DisplayInfo(width: d.width, height: d.height, refreshHz: d.refreshHz, panelQuarterTurns: d.panelQuarterTurns,
                           outputConnected: d.canPresent, scanoutShiftLimit: d.scanoutShiftLimit,
                           scanoutQuarterTurns: d.scanoutQuarterTurns.subtracting(refusedTurns), yieldsToKMS: d.yieldsToKMS,
                           backlight: backlight?.name)
    }

    /// Looks up the backlight of the KMS output in use once per output, and says which means
    /// carries the level. Other displays (fbdev, headless) dim in software.
    private func findBacklight(for d: any Display) {
        guard let kms = d as? KMSDisplay, !kms.connectorName.isEmpty else { return }
        let card = String(kms.devicePath.split(separator: "/").last ?? "card0")
        let output = card + "-" + kms.connectorName
        guard output != backlightOutput else { return }
        backlightOutput = output
        backlightLevel = nil
        let (found, why) = Backlight.find(card: card, connector: kms.connectorName)
        backlight = found
        if let found {
            Log.write(.notice, "display: brightness by \(why) (max \(found.maxBrightness))")
        } else {
            Log.write(.info, "display: brightness by software dimming (\(why))")
        }
    }

    /// Writes the level to the backlight when it changed; false when it cannot (the level is then
    /// drawn in software from this frame on, and the log says why once).
    private func applyBacklight(_ level: Double) -> Bool {
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

    func handleDisplayEvents() {
        guard let d = display else { return }
        for event in d.handleReadable() {
            switch event {
            case .flipCompleted(let nanos, let sequence):
                send(.flipCompleted(vblank: clock.coreSeconds(monotonicNanos: nanos), sequence: sequence))
            case .connectorLost: send(.display(.connectorLost, info(of: d)))
            case .connectorReturned: send(.display(.connectorReturned, info(of: d)))
            case .masterLost: send(.display(.masterLost, info(of: d)))
            case .masterRegained: send(.display(.masterRegained, info(of: d)))
            }
        }
    }

    /// No display device at all, or a framebuffer that yields to KMS: a udev monitor wakes us when
    /// a card or framebuffer appears or changes.
    package func watchHotplug(_ on: Bool) {
        if !on {
            if let hotplugRegistration { loop.remove(hotplugRegistration) }
            hotplugRegistration = nil
            hotplugMonitor = nil
            return
        }
        guard hotplugMonitor == nil else { return }
        do {
            let monitor = try UEventMonitor(subsystems: ["drm", "graphics"])
            hotplugMonitor = monitor
            hotplugRegistration = try loop.watch(monitor.descriptor.rawValue) { [unowned self] _ in
                let events = (try? monitor.readEvents()) ?? []
                guard events.contains(where: { $0.action == "add" || $0.action == "change" }) else { return }
                // On a framebuffer that yields to KMS, only a connected KMS output is news.
                if let d = display, d.yieldsToKMS {
                    if case .use(_, let reason) = DisplayBackends.autoChoice(connector: config.connector) {
                        send(.kmsOutputAppeared(reason: reason))
                    }
                } else {
                    send(.hotplug)
                }
            }
        } catch {
            Log.error("display: cannot watch for hotplug: \(error)")
        }
    }

    package func present(_ plan: FramePlan) {
        guard let d = display else {
            send(.presentFailed("no display"))
            return
        }
        let t0 = MonotonicClock.now()
        do throws(DisplayError) {
            let frameBytes = d.width * d.height * 4
            if case .black = plan.scene {
                // The size the display takes: the mode's, transposed while it turns by a quarter.
                let sideways = d.scanoutRotation % 2 == 1
                let black = PixelBuffer(width: sideways ? d.height : d.width, height: sideways ? d.width : d.height, fill: 0xFF00_0000)
                let bytes = try d.present(black, damage: black.bounds)
                send(.framePresented(FrameReport(copyNanos: MonotonicClock.now() - t0, copiedBytes: bytes, frameBytes: frameBytes)))
                return
            }
            renderer.banner = plan.banner.map { Banner(text: $0, face: fonts.bold) }
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
            var picture = canvas.buffer
            var damage = plan.fullCopy || redraw != plan.redraw ? [picture.bounds] : plan.redraw ? renderer.lastRedrawnRegions : []
            if let tape = plan.tape {
                // The scene's redrawn rectangles moved into place beside the band, and the band.
                let sideways = ((plan.quarterTurns % 2) + 2) % 2 == 1
                let composer = tapeComposer ?? TapeComposer(fonts: fonts)
                tapeComposer = composer
                let full = damage.contains(picture.bounds)
                let screen = composer.compose(tape, scene: canvas, sceneDamage: redraw ? (full ? [picture.bounds] : damage) : [],
                                              width: sideways ? d.height : d.width, height: sideways ? d.width : d.height,
                                              time: plan.time, brightness: renderer.brightness)
                picture = screen.canvas.buffer
                damage = plan.fullCopy ? [picture.bounds] : screen.damage
            }
            let background = (renderer.canvas.dimming?.apply(plan.background) ?? plan.background).premultiplied
            // The margins a scanout shift uncovers show the background, shifted or not yet.
            var shift = ScanoutShift(dx: 0, dy: 0, fill: background)
            // The display turns the picture itself (a plane's rotation): present it unturned.
            let turns = ((plan.quarterTurns % 4) + 4) % 4
            let turnedByDisplay = d.scanoutRotation == turns
            // Whether the scanout moves or the pixels do, and when all of them, is the plan's
            // (the core knows the display's limits); the shell only carries it out.
            if plan.offset != .zero {
                let o = plan.offset
                if plan.shiftByScanout {
                    shift = ScanoutShift(dx: o.dx, dy: o.dy, fill: background)
                } else {
                    // The pixels move: all of them at a new offset, else only the damage, moved
                    // (all of them too when the moved copy went with a layout change).
                    let whole = plan.fullCopy || shifted == nil
                    var moved = shifted ?? PixelBuffer(width: picture.width, height: picture.height)
                    shifted = nil  // uniquely referenced while written
                    if whole {
                        moved.copy(from: picture, offsetX: o.dx, offsetY: o.dy, fill: background)
                        damage = [moved.bounds]
                    } else {
                        damage = damage.map { Daemon.copy($0, from: picture, into: &moved, dx: o.dx, dy: o.dy) }
                    }
                    picture = moved
                    shifted = moved
                }
            }
            let bytes: Int
            if !turnedByDisplay {
                // The turned copy holds the last picture turned: only the damage is turned again
                // (a scrub on a panel mounted on its side copies a few percent, not the frame).
                let fresh = rotated.map { $0.width != d.width || $0.height != d.height } ?? true
                var turned = fresh ? PixelBuffer(width: d.width, height: d.height) : rotated!
                rotated = nil  // uniquely referenced while written
                let turnedDamage: [IntRect]
                if fresh || damage.contains(picture.bounds) {
                    picture.rotate(quarterTurns: plan.quarterTurns, into: &turned)
                    turnedDamage = [turned.bounds]
                } else {
                    turnedDamage = damage.map { picture.rotate(quarterTurns: plan.quarterTurns, rect: $0, into: &turned) }
                        .filter { !$0.isEmpty }
                }
                bytes = try d.present(turned, damage: turnedDamage, shift: .zero)
                rotated = turned
                lastPresented = turned
            } else {
                bytes = try d.present(picture, damage: damage, shift: shift)
                lastPresented = picture
            }
            send(.framePresented(FrameReport(renderNanos: t1 - t0, copyNanos: MonotonicClock.now() - t1, copiedBytes: bytes,
                                             frameBytes: frameBytes)))
            // Under a crawling tape every settled frame is new: the preview at most once a second.
            if plan.settled, let preview = options.previewFile,
               plan.tape == nil || t0 &- lastTapePreview >= 1_000_000_000 {
                lastTapePreview = t0
                writePreview(d, to: preview)
            }
        } catch {
            send(.presentFailed("\(error)"))
        }
    }

    /// Copies `rect` of `source` into `target` moved by (`dx`, `dy`); returns where it landed.
    /// (The strips a shift uncovers keep the fill they got when the offset was set.)
    static func copy(_ rect: IntRect, from source: PixelBuffer, into target: inout PixelBuffer, dx: Int, dy: Int) -> IntRect {
        let landed = IntRect(x0: rect.x0 + dx, y0: rect.y0 + dy, x1: rect.x1 + dx, y1: rect.y1 + dy)
            .intersection(target.bounds).intersection(IntRect(x0: dx, y0: dy, x1: source.width + dx, y1: source.height + dy))
        guard !landed.isEmpty else { return landed }
        let ss = source.stride, ts = target.stride
        source.pixels.withUnsafeBufferPointer { src in
            target.pixels.withUnsafeMutableBufferPointer { dst in
                for y in landed.y0..<landed.y1 {
                    let from = src.baseAddress! + (y - dy) * ss + (landed.x0 - dx)
                    (dst.baseAddress! + y * ts + landed.x0).update(from: from, count: landed.width)
                }
            }
        }
        return landed
    }

    /// The preview file is replaced whole (PNG.write renames a finished file over it): a reader
    /// never sees half a PNG.
    private func writePreview(_ display: any Display, to path: String) {
        do { try display.capture(to: path) } catch {
            Log.limited(.warning, key: "preview", "run: --preview \(path): \(error)")
        }
    }

    private func applyLayout() {
        guard let chartSize, let d = display else { return }
        input?.mapping = TouchMapping(panelWidth: d.width, panelHeight: d.height, quarterTurns: quarterTurns)
        let turns = ((quarterTurns % 4) + 4) % 4
        let wanted = d.scanoutQuarterTurns.subtracting(refusedTurns).contains(turns) ? turns : 0
        if d.scanoutRotation != wanted, !d.rotateScanout(quarterTurns: wanted) {
            // Offered but refused: say so, and let the core plan copies (a new model, full frames).
            if wanted != 0 { refusedTurns.insert(wanted) }
            Log.warning("display: the plane refused rotation \(wanted * 90)°; turning the picture by copy")
            send(.displayOpened(info(of: d)))
        }
        gestures.resize(width: Double(chartSize.width), height: Double(chartSize.height))
        shifted = nil
        rotated = nil
    }

    // MARK: Input

    package func openInput() {
        if let inputRegistration { loop.remove(inputRegistration); self.inputRegistration = nil }
        input = nil
        guard config.inputEnabled, options.displayChoice.isPhysical else { return }
        let calibration = config.calibration.flatMap { CalibrationMatrix($0.map(Float.init)) }
        do {
            let devices = try InputDevices(seat: config.seat, mapping: TouchMapping(panelWidth: 0, panelHeight: 0),
                                           calibration: calibration, log: { Log.notice($0) })
            input = devices
            inputRegistration = try loop.watch(devices.pollDescriptor) { [unowned self] _ in handleInput() }
            applyLayout()
            // Devices present at start queue their events without making the descriptor readable.
            handleInput()
        } catch {
            Log.warning("input: \(error); running without touch")
        }
    }

    private func handleInput() {
        guard let input else { return }
        for event in input.dispatch() {
            if case .key(_, let pressed, let command, _) = event {
                // A key without a command (a PIR sensor through gpio-keys, a doorbell) says that
                // someone is there; releases say nothing.
                if pressed { send(command.map { .key($0) } ?? .presence) }
                continue
            }
            // Collected first: the recognizer must not be in use while the core's effects run.
            var recognized: [Gesture] = []
            gestures.process(event) { recognized.append($0) }
            for gesture in recognized { send(.gesture(gesture, inputMicros: event.time)) }
        }
    }

    // MARK: Data

    private func startLiveData() {
        let previous = liveData
        if let liveRegistration { loop.remove(liveRegistration); self.liveRegistration = nil }
        liveData = nil
        guard !config.instruments.isEmpty else { return }
        do {
            let live = try LiveData(config: config, log: { Log.warning("data: \($0)") }) { [unowned self] update in
                send(.series(instrumentID: update.instrumentID, slot: update.slot, series: update.series))
            }
            live.onProblem = { [unowned self] path, message in
                Log.warning("data: " + KioskCore.locate(path: path, message: message, in: config,
                                                        file: options.configPath ?? "").description)
            }
            if let previous { live.inherit(from: previous) }
            live.onStatus = { [unowned self] id, status in send(.fetchStatus(instrumentID: id, status)) }
            liveRegistration = try loop.watch(live.pollDescriptor) { [unowned self, unowned live] _ in
                live.handleReadable()
                send(.dataProblems(live.problems))
                // The series just replaced is free now: give its pages back, so months of updates
                // do not leave RSS wherever the heap's high-water mark happened to be.
                ProcessResources.releaseFreeMemory()
            }
            liveData = live
            // Every file is read now, at start and on every reload, even when nothing was changed.
            // The loop does nothing else meanwhile: systemd hears that the daemon is alive.
            var keepAlive = LoadKeepAlive(startedAt: Double(MonotonicClock.now()) / 1e9, ready: core.isReady)
            let loaded = live.loadAll { done, total in
                if let message = keepAlive.progress(at: Double(MonotonicClock.now()) / 1e9, done: done, of: total) { notify(message) }
            }
            for update in loaded {
                send(.series(instrumentID: update.instrumentID, slot: update.slot, series: update.series))
            }
            send(.dataProblems(live.problems))
        } catch {
            Log.warning("data: cannot watch the data files (\(error)); changes need a restart or SIGHUP")
        }
    }

    // MARK: Signals, reload

    private func installSignals() throws(Errno) {
        // SIGUSR2 is the VT switch request (VirtualTerminal); blocking it costs nothing without a VT.
        let s = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2])
        signals = s
        try loop.watch(s.descriptor.rawValue) { [unowned self] _ in
            while let info = try? s.next() {
                switch info.signal {
                case SIGTERM, SIGINT: send(.terminate)
                case SIGHUP: reload()
                case SIGUSR1: send(.statisticsRequested(resourceLine))
                case SIGUSR2:
                    guard let vt = virtualTerminal else { break }
                    send(vt.request() == .release ? .vtRelease : .vtAcquire)
                default: break
                }
            }
        }
    }

    @discardableResult
    func reload() -> ControlReply {
        guard let configPath = options.configPath else {
            Log.notice("reload: no --config file; re-reading the data files")
            startLiveData()
            return .ok("no config file; the data files are read again")
        }
        send(.reloadRequested)
        let outcome = ConfigReload.reload(current: config, path: configPath, dropInDirectory: options.configDirectory)
        for issue in outcome.issues where issue.severity == .warning { Log.warning("config: \(issue)") }
        guard outcome.applied else {
            let problems = outcome.issues.filter { $0.severity == .error }
                .map { KioskProblem(file: $0.file, line: $0.line, key: $0.key, message: $0.message) }
            send(.reloadRejected(summary: outcome.summary, problems: problems))
            return .error(.refused(outcome.summary + (problems.first.map { ": \($0)" } ?? "")))
        }
        Log.notice(outcome.summary)
        let oldCEC = config.cec
        config = Daemon.effective(outcome.config, options)
        renderer.renderThreads = Daemon.renderThreads(for: config)
        send(.configure(Daemon.setup(for: config, file: configPath)))
        if config.cec != oldCEC { startCEC() }
        startLiveData()
        return .ok(outcome.summary)
    }

    // MARK: Control socket answers

    package func controlReply(id: UInt64, _ reply: ControlReply) { control?.answer(id, reply) }

    package func controlStatus(id: UInt64, _ status: KioskStatus) {
        control?.answer(id, .ok(completed(status).compactJSON))
    }

    package func reloadConfig(id: UInt64) { control?.answer(id, reload()) }

    /// The picture on the glass as PNG, written to the descriptor the request passed (never blocking
    /// the loop: `ControlServer.write`).
    package func screenshot(id: UInt64) {
        guard let control else { return }
        guard let fd = control.takePassedDescriptor(for: id) else {
            control.answer(id, .error(.usage("screenshot needs a descriptor passed with the request (SCM_RIGHTS); tickerboard ctl screenshot > FILE.png does it")))
            return
        }
        defer { try? fd.close() }
        guard let picture = display?.capturedPicture() ?? lastPresented else {
            control.answer(id, .error(.refused("no picture yet")))
            return
        }
        let png: [UInt8]
        do { png = try PNG.encode(picture) } catch {
            control.answer(id, .error(.refused("cannot encode: \(error.reason)")))
            return
        }
        control.write(png, to: fd, for: id, done: "screenshot \(picture.width)x\(picture.height) \(png.count) bytes")
    }

    // MARK: systemd, status

    private func notify(_ message: String) {
        _ = try? SystemdNotify.send(message)
        if message.hasPrefix("READY=1"), let readyFile = options.readyFile {
            let status = message.split(separator: "\n").first { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst(7)) } ?? "ready"
            try? AtomicFile.write(Array((status + "\n").utf8), to: readyFile)
        }
    }

    /// The core's status with what only the shell can measure.
    private func completed(_ coreStatus: KioskStatus) -> KioskStatus {
        var status = coreStatus
        status.presentMethod = display?.presentMethod
        status.pacing = display?.pacingMethod
        status.rssKB = ProcessResources.residentKB()
        status.openFDs = ProcessResources.openDescriptors()
        return status
    }

    package func writeStatus(_ coreStatus: KioskStatus) {
        guard let path = options.statusFile else { return }
        let status = completed(coreStatus)
        do { try AtomicFile.write(Array(status.json.utf8), to: path) } catch {
            Log.limited(.warning, key: "status", "run: status file \(path): \(error)")
        }
        // Alongside the status (at most once a second): the alerts' states, when they changed.
        let alerts = runner.core.alertStates
        if let statePath = options.alertStateFile, alerts != savedAlerts {
            do {
                try AtomicFile.write(Array(AlertState.encode(alerts).utf8), to: statePath, permissions: 0o600)
                savedAlerts = alerts
            } catch {
                Log.limited(.warning, key: "alerts", "run: alert state \(statePath): \(error)")
            }
        }
    }

    /// CPU time, peak memory and wakeups, appended to the statistics line.
    private var resourceLine: String {
        let cpu = ProcessCPUTime.now()
        return ", cpu \((cpu.user + cpu.system) / 1_000_000) ms, max rss \(ProcessResources.peakKB()) kB, "
            + "wakeups \(loop.wakeupCount)"
    }
}

/// What systemd hears while the data files are read in one go (start-up, a reload), when the loop
/// handles nothing else: a hundred files at the row limit take a minute, past the unit's start
/// timeout and its 30 s watchdog. Every `every` seconds of it: the watchdog's ping, the progress
/// as the status and, before READY, more time to start.
struct LoadKeepAlive {
    private var lastSent: Double
    let ready: Bool
    static let every = 5.0

    init(startedAt: Double, ready: Bool) {
        lastSent = startedAt
        self.ready = ready
    }

    /// The sd_notify text to send after file `done` of `total` at `t` (seconds), if any.
    mutating func progress(at t: Double, done: Int, of total: Int) -> String? {
        guard t - lastSent >= Self.every else { return nil }
        lastSent = t
        var lines = ["WATCHDOG=1", "STATUS=reading data files (\(done) of \(total))"]
        // Each extension is counted from now: 30 s more than the next report needs.
        if !ready { lines.append("EXTEND_TIMEOUT_USEC=30000000") }
        return lines.joined(separator: "\n")
    }
}

/// The daemon's clock: real time, or (headless, `--time-scale N`) time running N times faster from
/// the moment the daemon started, so a test can watch a day of cycling in minutes. Monotonic
/// seconds for animations and timers, wall seconds for the schedule.
struct ScaledClock {
    let scale: Double
    private let startNanos = MonotonicClock.now()
    private let startWall = WallClock.now()

    init(scale: Double) { self.scale = scale > 0 && scale.isFinite ? scale : 1 }

    func coreSeconds(monotonicNanos nanos: UInt64) -> Double {
        // At real speed core time *is* monotonic time, so libinput's and the vblank's stamps agree.
        if scale == 1 { return Double(nanos) / 1e9 }
        let elapsed = Double(Int64(bitPattern: nanos &- startNanos)) / 1e9
        return Double(startNanos) / 1e9 + elapsed * scale
    }

    func now() -> KioskTime {
        let mono = MonotonicClock.now()
        if scale == 1 { return KioskTime(mono: Double(mono) / 1e9, wall: WallClock.now()) }
        let elapsed = Double(mono &- startNanos) / 1e9 * scale
        return KioskTime(mono: Double(startNanos) / 1e9 + elapsed, wall: startWall + elapsed)
    }

    /// Real seconds from now until the core time `deadline`.
    func realSeconds(until deadline: Double) -> Double {
        (deadline - now().mono) / scale
    }
}

extension KioskEffect {
    /// The sd_notify text of the effects systemd hears about (nil for the others).
    var systemdMessage: String? {
        switch self {
        case .ready(let status?): "READY=1\nSTATUS=\(status)"
        case .ready(nil): "READY=1"
        case .watchdogPing: "WATCHDOG=1"
        case .reloading: "RELOADING=1"
        case .stopping: "STOPPING=1"
        default: nil
        }
    }
}
