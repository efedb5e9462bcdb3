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
    /// The first output's screen (the only one without `[output]` sections).
    let screen: OutputScreen
    var display: (any Display)? {
        get { screen.display }
        set { screen.display = newValue }
    }
    var displayRegistration: EventLoop.Registration?
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
    /// The panel's turn as the core last said (`.layoutChanged`): touch maps through it.
    var quarterTurns = 0
    /// The chart's size as the core last laid it out: gestures are recognised in its frame.
    var chartSize: (width: Int, height: Int)?
    var exitStatus: Int32 = 0
    /// The touch output last announced in the log.
    var touchOutputLogged: String?
    /// The alert states last written to `alertStateFile`.
    var savedAlerts: [String: AlertState] = [:]
    /// The outputs after the first (`[output]` sections), each with its own core; started once the
    /// first output's KMS card is open, on its descriptor.
    var extras: [ExtraOutput] = []
    /// Which connector drives which section, from the survey when the card was opened.
    var assignment: OutputAssignment?
    /// The newest series and fetch status of each instrument: what an output started later (its
    /// card opened after a hotplug) is told at once.
    var lastSeries: [String: KioskEvent] = [:]
    var lastFetchStatus: [String: KioskEvent] = [:]
    /// The complete set of data problems as last given (each `.dataProblems` replaces it).
    var lastDataProblems: KioskEvent?
    /// The first output's core's status as last written (the extras' cores rewrite the file with it).
    var lastStatusWrite: StatusWrite?
    /// systemd heard READY=1 (the core said so once): a long load no longer extends the start timeout.
    var toldReady = false

    package init(config: Config, options: Options, fonts: FontSet, openDisplay: DisplayOpener? = nil,
                 openExtraDisplay: ExtraDisplayOpener? = nil) throws(Errno) {
        self.config = Daemon.effective(config, options)
        self.options = options
        self.fonts = fonts
        loop = try EventLoop()
        screen = OutputScreen(renderThreads: Daemon.renderThreads(for: self.config))
        screen.safeArea = self.config.safeArea
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
    /// `output`: which `[output]` section's core it is for (its scene in the single-screen keys).
    package static func setup(for config: Config, file: String, output: Int = 0) -> KioskSetup {
        let (zones, problems) = DataCheck.zones(for: config, file: file)
        return KioskSetup(config: config.forOutput(output), zones: zones, localZone: ScreenPower.systemTimeZone(),
                          problems: output == 0 ? problems : [], configFile: file)
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
            for extra in extras { extra.runner.send(.ambientLight(lux: nil)) }
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
        for extra in extras { extra.runner.send(.ambientLight(lux: lux)) }
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
        stopExtras()
        display?.shutdown()
        virtualTerminal?.restore()
        input = nil
        Log.notice("run: exiting; \(statistics)\(resourceLine)")
        return exitStatus
    }

    // MARK: Events in, effects out

    func send(_ event: KioskEvent) {
        guard !extras.isEmpty || event.keptForLaterOutputs != nil else {
            if runner.send(event) { armTimer() }
            return
        }
        if let key = event.keptForLaterOutputs {
            switch event {
            case .series: lastSeries[key] = event
            case .dataProblems: lastDataProblems = event
            default: lastFetchStatus[key] = event
            }
        }
        let fanned = event.reachesEveryOutput
        // The extras let go of the shared descriptor's master before the first output's VT is
        // released, or their retry would take the screen back from the other VT.
        if fanned, case .vtRelease = event { for extra in extras { extra.runner.send(event) } }
        let emptied = runner.send(event)
        if fanned, !event.isVTRelease { for extra in extras { extra.runner.send(event) } }
        if emptied {
            collectRoutedFlips()
            armTimer()
        }
    }

    /// An event for one output's core (its display's flips and changes, its frames' reports).
    func send(_ event: KioskEvent, to extra: ExtraOutput) {
        if extra.runner.send(event) {
            collectRoutedFlips()
            armTimer()
        }
    }

    var collectingFlips = false

    /// An output that waited for its own flip (before DPMS, a turn, a modeset, at exit) read the
    /// shared descriptor and may have taken another output's completion with it: nothing wakes
    /// the loop for that one, so after every batch of events the outputs are asked.
    func collectRoutedFlips() {
        guard !extras.isEmpty, !collectingFlips else { return }
        let displays: [(any Display)?] = [display] + extras.map(\.display)
        guard displays.contains(where: { $0?.hasRoutedFlips ?? false }) else { return }
        collectingFlips = true
        defer { collectingFlips = false }
        handleAllDisplayEvents()
    }

    func armTimer() {
        guard let timer else { return }
        let deadlines = [core.nextDeadline] + extras.map { $0.runner.core.nextDeadline }
        guard let deadline = deadlines.compactMap({ $0 }).min() else { try? loop.disarm(timer); return }
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

    package func ready(status: String?) {
        toldReady = true
        tellSystemd(.ready(status: status))
    }
    package func watchdogPing() { tellSystemd(.watchdogPing) }
    package func reloading() { tellSystemd(.reloading) }

    package func stopping(statistics: String) {
        self.statistics = statistics
        // The console after us should not inherit a dimmed panel.
        if screen.backlight != nil { _ = screen.applyBacklight(1) }
        tellSystemd(.stopping(statistics: statistics))
    }

    func tellSystemd(_ effect: KioskEffect) {
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
}
