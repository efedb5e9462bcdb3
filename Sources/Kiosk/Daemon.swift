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
import StatusModel
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
    /// Opens the display of the `[output]` section with this index (tests; the daemon opens the
    /// section's connector on the first output's KMS card).
    package typealias ExtraDisplayOpener = (Int) throws(DisplayError) -> any Display

    package struct Options {
        package var configPath: String?
        package var displayChoice = DisplayBackends.Choice.auto
        package var readyFile: String?
        package var statusFile: String?
        /// `--metrics`: the status for Prometheus (`Metrics`), written with the status file.
        package var metricsFile: String?
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

    var config: Config
    let options: Options
    let loop: EventLoop
    let fonts: FontSet
    /// The core and the queue its events wait in (shared with the tests' driver).
    let runner: KioskRunner
    var core: KioskCore { runner.core }
    let displayOpener: DisplayOpener?
    let extraDisplayOpener: ExtraDisplayOpener?
    /// Where the outputs after the first come from: the first display's card, the tests' opener.
    var card: (any DisplayCard)?
    let clock: ScaledClock
    var timer: EventLoop.Registration?
    /// One per output the core drives (`[output]` sections, else one).
    var outputs: [ShellOutput]
    /// The first output's screen: its display gives the card the others are opened on; the
    /// preview file, `ctl screenshot` and the TV's CEC link are its.
    var screen: OutputScreen { outputs[0].screen }
    var display: (any Display)? {
        get { screen.display }
        set { screen.display = newValue }
    }
    var hotplugMonitor: UEventMonitor?
    var hotplugRegistration: EventLoop.Registration?
    var input: InputDevices?
    /// The touchscreens attached now (their ids): the banner leaves the range selector free while any is.
    var touchScreens: Set<Int> = []
    var inputRegistration: EventLoop.Registration?
    var gestures = GestureRecognizer(width: 0, height: 0)
    var liveData: LiveData?
    var liveRegistration: EventLoop.Registration?
    var signals: SignalFD?
    var clockSteps: ClockStepWatch?
    var control: ControlServer?
    /// The HDMI-CEC adapter (`[power] cec`), nil when off.
    var cecLink: CECLink?
    /// `[power] light-sensor`: the sensor and its poll, and the lux last told to the cores.
    var lightSensor: LightSensor?
    var lightPoll: EventLoop.Registration?
    var luxSent: Double??
    /// The frame statistics' summary as the core last gave it (on stopping).
    var statistics = ""

    var virtualTerminal: VirtualTerminal?
    var exitStatus: Int32 = 0
    /// The touch output last announced in the log.
    var touchOutputLogged: String?
    /// The alert states last written to `alertStateFile`.
    var savedAlerts: [String: AlertState] = [:]
    /// Which connector drives which section, from the survey when the card was opened.
    var assignment: OutputAssignment?
    /// systemd heard READY=1 (the core said so once): a long load no longer extends the start timeout.
    var toldReady = false

    package init(config: Config, options: Options, fonts: FontSet, openDisplay: DisplayOpener? = nil,
                 openExtraDisplay: ExtraDisplayOpener? = nil) throws(Errno) {
        self.config = Daemon.effective(config, options)
        self.options = options
        self.fonts = fonts
        loop = try EventLoop()
        let first = OutputScreen(renderThreads: Daemon.renderThreads(for: self.config))
        first.safeArea = self.config.safeArea
        outputs = [ShellOutput(screen: first)]
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
        extraDisplayOpener = openExtraDisplay
        runner.shell = self
        resizeOutputs()
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
        return KioskSetup(config: config, zones: zones, localZone: ScreenPower.systemTimeZone(), problems: problems, configFile: file)
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
        startLightSensor()
        startLiveData()
    }

    /// How often the light sensor is read: a room's light changes over seconds, and the level at
    /// most every 30 s (`AmbientLight`); a read of a sysfs file costs a few microseconds.
    static let lightPollSeconds = 2

    func startLightSensor() {
        if let lightPoll { loop.remove(lightPoll) }
        lightPoll = nil
        lightSensor = nil
        luxSent = nil
        let path: String?
        switch config.lightSensor {
        case .off:
            send(.ambientLight(lux: nil))
            return
        case .auto: path = nil
        case .path(let p): path = p
        }
        let (sensor, why) = LightSensor.find(path: path)
        guard let sensor else {
            Log.warning("power: light-sensor = \(path ?? "auto"): \(why); the schedule's level alone")
            return
        }
        Log.notice("power: light sensor \(why)")
        lightSensor = sensor
        readLightSensor()
        lightPoll = try? loop.addTimer(after: .seconds(Self.lightPollSeconds), repeating: .seconds(Self.lightPollSeconds)) { [unowned self] in
            readLightSensor()
        }
    }

    /// Tells every output's core the reading when it moved (more than 2 %, or half a lux) or the
    /// sensor came or went: the core decides the level.
    func readLightSensor() {
        guard let sensor = lightSensor else { return }
        let lux = sensor.lux()
        if let sent = luxSent {
            switch (sent, lux) {
            case (nil, nil): return
            case let (a?, b?) where abs(a - b) <= max(0.5, 0.02 * a): return
            default: break
            }
        }
        luxSent = .some(lux)
        send(.ambientLight(lux: lux))
    }

    /// The control socket: the one systemd passed (socket activation), else `--control PATH`.
    func startControl() {
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

    func startCEC() {
        cecLink?.stop()
        cecLink = nil
        guard config.cec != .off else { return }
        let link = CECLink(loop: loop, setting: config.cec, send: { [unowned self] in send($0) },
                           log: { Log.write($0, $1) }, output: { [unowned self] in display?.drmConnector })
        cecLink = link
        link.start()
    }

    /// One turn of the loop: waits (at most `timeout`) for a descriptor or the core's timer.
    @discardableResult
    func step(timeout: Duration? = nil) throws(Errno) -> Int { try loop.runOnce(timeout: timeout) }

    /// The exit status the core asked for, once the loop has stopped (nil while it runs).
    var exitRequested: Int32? { loopStopped ? exitStatus : nil }
    var loopStopped = false

    func finish() -> Int32 {
        control?.shutdown()
        control = nil
        for i in outputs.indices.reversed() { closeDisplay(output: i) }
        virtualTerminal?.restore()
        input = nil
        Log.notice("run: exiting; \(statistics)\(resourceLine)")
        return exitStatus
    }

    // MARK: Events in, effects out

    /// Hands the core an event; `output` is the output a screen's own event comes from.
    func send(_ event: KioskEvent, output: Int = 0) {
        if runner.send(event, output: output) {
            collectRoutedFlips()
            armTimer()
        }
    }

    var collectingFlips = false

    /// An output that waited for its own flip (before DPMS, a turn, a modeset, at exit) read the
    /// shared descriptor and may have taken another output's completion with it: nothing wakes
    /// the loop for that one, so after every batch of events the outputs are asked.
    func collectRoutedFlips() {
        guard outputs.count > 1, !collectingFlips else { return }
        guard outputs.contains(where: { $0.display?.hasRoutedFlips ?? false }) else { return }
        collectingFlips = true
        defer { collectingFlips = false }
        handleAllDisplayEvents()
    }

    func armTimer() {
        guard let timer else { return }
        guard let deadline = core.nextDeadline else { try? loop.disarm(timer); return }
        let delay = max(0.000_1, clock.realSeconds(until: deadline))
        try? loop.rearm(timer, after: .nanoseconds(Int64(min(delay, 86_400) * 1e9)))
    }

    // MARK: KioskShell: the core's effects, carried out

    package func setPowered(_ on: Bool, output i: Int) {
        guard let display = outputs[i].display else { return }
        let applied = display.setPowered(on)
        if !on { send(.screenOffApplied(dpms: applied), output: i) }
    }

    package func cec(_ request: CECRequest) { cecLink?.perform(request) }

    package func ready(status: String?) {
        toldReady = true
        tellSystemd(.ready(status: status))
    }
    package func watchdogPing() { tellSystemd(.watchdogPing) }
    package func reloading() { tellSystemd(.reloading) }

    package func stopping(statistics: String) {
        self.statistics = statistics
        // The console after us should not inherit a dimmed panel.
        for output in outputs where output.screen.backlight != nil { _ = output.screen.applyBacklight(1) }
        tellSystemd(.stopping(statistics: statistics))
    }

    func tellSystemd(_ effect: KioskEffect) {
        if let message = effect.systemdMessage { notify(message) }
    }

    /// The first output's lines read as a single screen's; the others' name their section.
    package func log(_ priority: Log.Priority, _ text: String, output: Int?) {
        let sections = config.effectiveOutputs
        guard let i = output, i > 0, sections.indices.contains(i) else { return Log.write(priority, text) }
        Log.write(priority, "[output \(sections[i].name)] " + text)
    }

    package func reopenDisplay(output i: Int) {
        guard outputs.indices.contains(i) else { return }
        closeDisplay(output: i)
        openDisplay(output: i)
    }

    /// Each output lets its display go, then (nil) the VT is let go: an output still holding the
    /// shared master would take the screen back from the other VT.
    package func releaseDisplay(output: Int?) {
        guard let i = output else { return virtualTerminal?.allowRelease() ?? () }
        if outputs.indices.contains(i) { outputs[i].display?.suspend() }
    }

    package func acquireDisplay(output: Int?) {
        guard let i = output else { return virtualTerminal?.acknowledgeAcquire() ?? () }
        if outputs.indices.contains(i) { outputs[i].display?.resume() }
    }

    package func layoutChanged(output i: Int, quarterTurns turns: Int, width: Int, height: Int) {
        guard outputs.indices.contains(i) else { return }
        outputs[i].quarterTurns = turns
        outputs[i].chartSize = (width, height)
        applyLayout(output: i)
    }

    package func exit(status: Int32) {
        exitStatus = status
        loopStopped = true
        loop.stop()
    }
}
