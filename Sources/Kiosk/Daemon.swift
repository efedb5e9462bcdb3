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

    private var config: Config
    private let options: Options
    private let loop: EventLoop
    private let fonts: FontSet
    /// The core and the queue its events wait in (shared with the tests' driver).
    let runner: KioskRunner
    var core: KioskCore { runner.core }
    private let displayOpener: DisplayOpener?
    private let extraDisplayOpener: ExtraDisplayOpener?
    /// Headless, every further `[output]` section gets a screen of its own, the first one's size
    /// and refresh: several outputs run (and are tested) without a card.
    private let simulatesExtraOutputs: Bool
    private let clock: ScaledClock
    private var timer: EventLoop.Registration?
    /// The first output's screen (the only one without `[output]` sections).
    let screen: OutputScreen
    private var display: (any Display)? {
        get { screen.display }
        set { screen.display = newValue }
    }
    private var displayRegistration: EventLoop.Registration?
    private var hotplugMonitor: UEventMonitor?
    private var hotplugRegistration: EventLoop.Registration?
    private var input: InputDevices?
    /// The touchscreens attached now (their ids): the banner leaves the range selector free while any is.
    private var touchScreens: Set<Int> = []
    private var inputRegistration: EventLoop.Registration?
    private var gestures = GestureRecognizer(width: 0, height: 0)
    private var liveData: LiveData?
    private var liveRegistration: EventLoop.Registration?
    private var signals: SignalFD?
    private var clockSteps: ClockStepWatch?
    private var control: ControlServer?
    /// The HDMI-CEC adapter (`[power] cec`), nil when off.
    private var cecLink: CECLink?
    /// `[power] light-sensor`: the sensor and its poll, and the lux last told to the cores.
    private var lightSensor: LightSensor?
    private var lightPoll: EventLoop.Registration?
    private var luxSent: Double??
    /// The frame statistics' summary as the core last gave it (on stopping).
    private var statistics = ""

    private var virtualTerminal: VirtualTerminal?
    /// The panel's turn as the core last said (`.layoutChanged`): touch maps through it.
    private var quarterTurns = 0
    /// The chart's size as the core last laid it out: gestures are recognised in its frame.
    private var chartSize: (width: Int, height: Int)?
    private var exitStatus: Int32 = 0
    /// The touch output last announced in the log.
    private var touchOutputLogged: String?
    /// The alert states last written to `alertStateFile`.
    private var savedAlerts: [String: AlertState] = [:]
    /// The outputs after the first (`[output]` sections), each with its own core; started once the
    /// first output's KMS card is open, on its descriptor.
    private var extras: [ExtraOutput] = []
    /// Which connector drives which section, from the survey when the card was opened.
    private var assignment: OutputAssignment?
    /// The connectors of other cards in the survey: their card and their own name there.
    private var connectorCards: [String: (path: String, name: String)] = [:]
    /// The newest series and fetch status of each instrument: what an output started later (its
    /// card opened after a hotplug) is told at once.
    private var lastSeries: [String: KioskEvent] = [:]
    private var lastFetchStatus: [String: KioskEvent] = [:]
    /// The complete set of data problems as last given (each `.dataProblems` replaces it).
    private var lastDataProblems: KioskEvent?
    /// The first output's core's status as last written (the extras' cores rewrite the file with it).
    private var lastCoreStatus: KioskStatus?

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
        simulatesExtraOutputs = openExtraDisplay == nil && options.displayChoice == .headless
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

    private func startLightSensor() {
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
    private func readLightSensor() {
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
                           log: { Log.write($0, $1) }, output: { [unowned self] in display?.drmConnector })
        cecLink = link
        link.start()
    }

    /// One turn of the loop: waits (at most `timeout`) for a descriptor or the core's timer.
    @discardableResult
    func step(timeout: Duration? = nil) throws(Errno) -> Int { try loop.runOnce(timeout: timeout) }

    /// The exit status the core asked for, once the loop has stopped (nil while it runs).
    var exitRequested: Int32? { loopStopped ? exitStatus : nil }
    private var loopStopped = false

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
        guard !extras.isEmpty || Daemon.remembered(event) != nil else {
            if runner.send(event) { armTimer() }
            return
        }
        if let key = Daemon.remembered(event) {
            switch event {
            case .series: lastSeries[key] = event
            case .dataProblems: lastDataProblems = event
            default: lastFetchStatus[key] = event
            }
        }
        let fanned = Daemon.fansOut(event)
        // The extras let go of the shared descriptor's master before the first output's VT is
        // released, or their retry would take the screen back from the other VT.
        if fanned, case .vtRelease = event { for extra in extras { extra.runner.send(event) } }
        let emptied = runner.send(event)
        if fanned, !Daemon.isVTRelease(event) { for extra in extras { extra.runner.send(event) } }
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

    private var collectingFlips = false

    /// An output that waited for its own flip (before DPMS, a turn, a modeset, at exit) read the
    /// shared descriptor and may have taken another output's completion with it: nothing wakes
    /// the loop for that one, so after every batch of events the outputs are asked.
    private func collectRoutedFlips() {
        guard !extras.isEmpty, !collectingFlips else { return }
        let displays: [(any Display)?] = [display] + extras.map(\.display)
        guard displays.contains(where: { ($0 as? KMSDisplay)?.hasRoutedFlips ?? false }) else { return }
        collectingFlips = true
        defer { collectingFlips = false }
        handleAllDisplayEvents()
    }

    /// Events every output's core hears: time, data, people, the screen's power by hand, SIGUSR1
    /// (each output logs its `stats:` line, the others prefixed `[output NAME]`). The control
    /// socket's requests other than power and messages drive the first output's chart.
    static func fansOut(_ event: KioskEvent) -> Bool {
        switch event {
        case .start, .timer, .series, .fetchStatus, .dataProblems, .clockStepped, .presence, .key, .vtRelease, .vtAcquire,
             .reloadRequested, .reloadRejected, .terminate, .statisticsRequested:
            return true
        case .control(_, let command):
            switch command {
            case .screen, .brightness, .message, .clearMessage: return true
            default: return false
            }
        default:
            return false
        }
    }

    static func isVTRelease(_ event: KioskEvent) -> Bool {
        if case .vtRelease = event { return true }
        return false
    }

    /// The key an event is kept under for outputs started later (nil: not kept).
    static func remembered(_ event: KioskEvent) -> String? {
        switch event {
        case .series(let id, let slot, _): return "\(id)\u{1F}\(slot)"
        case .fetchStatus(let id, _): return id
        case .dataProblems: return ""
        default: return nil
        }
    }

    private func armTimer() {
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

    package func ready(status: String?) { tellSystemd(.ready(status: status)) }
    package func watchdogPing() { tellSystemd(.watchdogPing) }
    package func reloading() { tellSystemd(.reloading) }

    package func stopping(statistics: String) {
        self.statistics = statistics
        // The console after us should not inherit a dimmed panel.
        if screen.backlight != nil { _ = screen.applyBacklight(1) }
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
                d = try DisplayBackends.open(options.displayChoice, device: config.displayDevice, connector: firstConnector,
                                             mode: options.modeOverride ?? config.mode, maxSize: config.maxModeSize,
                                             shiftMargin: config.burnInShift,
                                             log: { Log.notice("display: \($0)") })
            }
            display = d
            if d.needsVirtualTerminal, virtualTerminal == nil {
                virtualTerminal = VirtualTerminal(log: { Log.info($0) })
            }
            if let fd = d.pollDescriptor {
                displayRegistration = try? loop.watch(fd) { [unowned self] _ in handleAllDisplayEvents() }
            }
            send(.displayOpened(info(of: d)))
            startExtras()
        } catch {
            // With no device at all the command line has said so already.
            let quiet = error.kind == .noDisplay && DisplayBackends.devicePaths().isEmpty
            send(.displayUnavailable(message: quiet ? nil : "\(error)"))
        }
    }

    /// The connector the first output asks for: `[display] connector`, or with `[output]`
    /// sections the first one's when it names one.
    private var firstConnector: String? {
        guard let first = config.effectiveOutputs.first, !config.outputs.isEmpty else { return config.connector }
        if case .connector(let name) = first.name { return name }
        return nil
    }

    private func closeDisplay() {
        stopExtras()
        if let displayRegistration { loop.remove(displayRegistration); self.displayRegistration = nil }
        display?.shutdown()
        display = nil
    }

    private func info(of d: any Display) -> DisplayInfo { screen.info(of: d) }

    func handleDisplayEvents() {
        guard let d = display else { return }
        for event in d.handleReadable() { send(Daemon.kioskEvent(event, info: info(of: d), clock: clock)) }
    }

    /// Every output's events: outputs on one card share its descriptor, and whichever reads it
    /// routes each flip's completion to its own output, which must then hear of it too.
    func handleAllDisplayEvents() {
        handleDisplayEvents()
        for extra in extras { extra.handleDisplayEvents() }
    }

    static func kioskEvent(_ event: DisplayEvent, info: @autoclosure () -> DisplayInfo, clock: ScaledClock) -> KioskEvent {
        switch event {
        case .flipCompleted(let nanos, let sequence):
            return .flipCompleted(vblank: clock.coreSeconds(monotonicNanos: nanos), sequence: sequence)
        case .connectorLost: return .display(.connectorLost, info())
        case .connectorReturned: return .display(.connectorReturned, info())
        case .masterLost: return .display(.masterLost, info())
        case .masterRegained: return .display(.masterRegained, info())
        case .masterFree: return .display(.masterFree, info())
        }
    }

    // MARK: Outputs after the first

    var clockForOutputs: ScaledClock { clock }
    /// The section index touches go to (tests).
    var touchOutputIndex: Int { touchExtra?.index ?? 0 }
    /// The cores of the outputs after the first (tests).
    var extraCores: [KioskCore] { extras.map(\.runner.core) }
    var fontSet: FontSet { fonts }
    func removeFromLoop(_ registration: EventLoop.Registration) { loop.remove(registration) }

    /// With two or more `[output]` sections and a KMS card open for the first: surveys the card,
    /// assigns its connectors, and starts a core for each further output, told the data so far.
    private func startExtras() {
        let sections = config.effectiveOutputs
        guard extras.isEmpty, sections.count > 1, let d = display else { return }
        var survey: [OutputAssignment.Connector]
        if let kms = d as? KMSDisplay {
            survey = kms.surveyConnectors().map {
                OutputAssignment.Connector(name: $0.name, connected: $0.connected, modes: $0.modes, panelRotation: $0.panelQuarterTurns * 90)
            }
            connectorCards = [:]
            // Other cards, each its own master (a DSI panel's card beside the HDMI card), after the
            // first output's; a connector whose name the survey has already is called cardN-NAME.
            if config.displayDevice == nil {
                for (path, connectors) in KMSDisplay.surveyOtherCards(than: kms.devicePath) {
                    let cardName = String(path.split(separator: "/").last ?? "")
                    for c in connectors {
                        let taken = survey.contains { $0.name.lowercased() == c.name.lowercased() }
                        let name = taken ? "\(cardName)-\(c.name)" : c.name
                        connectorCards[name] = (path, c.name)
                        survey.append(OutputAssignment.Connector(name: name, connected: c.connected, modes: c.modes,
                                                                 panelRotation: c.panelQuarterTurns * 90))
                    }
                }
            }
        } else if extraDisplayOpener != nil || simulatesExtraOutputs {
            // Simulated displays (headless, the tests'): a connector per section, called what the
            // section calls it, each the first display's size.
            survey = sections.indices.map { i in
                let name: String
                if case .connector(let n) = sections[i].name { name = n } else { name = "VIRTUAL-\(i + 1)" }
                return OutputAssignment.Connector(name: name, connected: true, modes: [ModeRequest(width: d.width, height: d.height)])
            }
        } else {
            Log.warning("display: [output] sections need a KMS card; \(d.presentMethod) shows the first section's scene only")
            return
        }
        var plan = OutputAssignment(outputs: sections)
        _ = plan.update(survey)
        assignment = plan
        for line in plan.summary { Log.notice("display: output \(line)") }
        let (span, x0) = plan.spanOffsets(showsTape: config.showsTape)
        if config.tapeSpan, let offset = span[0] { screen.tapeSpan = (offset, x0) }
        for i in sections.indices.dropFirst() {
            let core = KioskCore(setup: Daemon.setup(for: config, file: options.configPath ?? "", output: i), fonts: fonts,
                                 watchdogInterval: nil, writesStatus: options.statusFile != nil, statusInterval: options.timeScale)
            let extra = ExtraOutput(index: i, section: sections[i], core: core, daemon: self, now: { [clock] in clock.now() },
                                    renderThreads: Daemon.renderThreads(for: config))
            if config.tapeSpan, let offset = span[i] { extra.screen.tapeSpan = (offset, x0) }
            extra.screen.safeArea = config.safeArea
            extras.append(extra)
            extra.runner.send(.start)
            for event in lastSeries.values { extra.runner.send(event) }
            for event in lastFetchStatus.values { extra.runner.send(event) }
            if let lastDataProblems { extra.runner.send(lastDataProblems) }
            if let lux = luxSent { extra.runner.send(.ambientLight(lux: lux)) }
        }
        armTimer()
    }

    private func stopExtras() {
        for extra in extras {
            extra.runner.send(.terminate)
            extra.close()
        }
        extras = []
    }

    /// Opens the extra output's connector on the first output's card and descriptor.
    func openExtraDisplay(_ extra: ExtraOutput) {
        guard extra.display == nil else { return }
        let name = "[output \(extra.section.name)]"
        let kms = display as? KMSDisplay
        guard kms != nil || extraDisplayOpener != nil || simulatesExtraOutputs else {
            extra.send(.displayUnavailable(message: nil))
            return
        }
        let connector = assignment?.states[extra.index].connector
        do {
            let d: any Display
            if let extraDisplayOpener { d = try extraDisplayOpener(extra.index) } else if simulatesExtraOutputs, let first = display {
                d = HeadlessDisplay(width: first.width, height: first.height, refreshHz: first.refreshHz, simulatedVsync: true)
            } else if let other = connector.flatMap({ connectorCards[$0] }) {
                // Another card: its own descriptor and master.
                d = try KMSDisplay(options: .init(devicePath: other.path, connectorName: other.name, waitForOutput: true,
                                                  shiftMargin: config.burnInShift, maxSize: config.maxModeSize),
                                   log: { Log.notice("display: \(name) \($0)") })
            } else {
                d = try KMSDisplay(options: .init(devicePath: kms!.devicePath, connectorName: connector, waitForOutput: true,
                                                  shiftMargin: config.burnInShift, maxSize: config.maxModeSize),
                                   sharing: kms, log: { Log.notice("display: \(name) \($0)") })
            }
            extra.screen.display = d
            if let fd = d.pollDescriptor {
                extra.registration = try? loop.watch(fd) { [unowned self] _ in handleAllDisplayEvents() }
            }
            if let k = d as? KMSDisplay, k.connectorName.isEmpty { Log.notice("display: \(name) waits for a free connector to be plugged in") }
            extra.send(.displayOpened(extra.screen.info(of: d)))
        } catch {
            extra.send(.displayUnavailable(message: "\(name) \(error)"))
        }
    }

    /// Rewrites the status file with every output's state (an extra output's core saw a change).
    func rewriteStatus() {
        guard var status = lastCoreStatus else { return }
        // The write's own time: an idle first output's status may be a minute old.
        status.time = clock.now().wall
        writeStatus(status)
    }

    /// One line of the status file's `outputs` per section (empty without sections).
    private var outputStatus: [KioskStatus.Output] {
        let sections = config.effectiveOutputs
        guard !config.outputs.isEmpty else { return [] }
        return sections.indices.map { i in
            let extra = extras.first { $0.index == i }
            let d: (any Display)? = i == 0 ? display : extra?.display
            let kms = d as? KMSDisplay
            // What the output's core says of its display where the display cannot say more.
            let coreState = i == 0 ? core.status().display : extra?.runner.core.status().display
            // A connector of another card by the name the survey gave it (cardN-NAME on a clash).
            let own = kms.flatMap { $0.connectorName.isEmpty ? nil : $0.connectorName }
            let connector = own.map { own in
                connectorCards.first { $0.value.path == kms?.devicePath && $0.value.name == own }?.key ?? own
            }
            guard let kms else {
                // A simulated screen (headless): its core counts its flips; its connector is the survey's.
                let stats = i == 0 ? core.stats : extra?.runner.core.stats
                return KioskStatus.Output(name: sections[i].name.description, connector: d == nil ? nil : assignment?.states[i].connector,
                                          mode: d.map { "\($0.width)x\($0.height)@\(Int($0.refreshHz.rounded()))" }, scene: sections[i].scene.rawValue,
                                          state: coreState == "presenting" ? "running" : coreState ?? "waiting: no display open",
                                          flips: stats?.completedFlips ?? 0, missedVblanks: stats?.missedVblanks ?? 0)
            }
            return KioskStatus.Output(name: sections[i].name.description, connector: connector,
                                      mode: connector == nil ? nil : kms.modeDescription, scene: sections[i].scene.rawValue,
                                      state: kms.outputState ?? coreState ?? "waiting: no display open",
                                      flips: kms.flipsCompleted, missedVblanks: kms.missedVblanks)
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
        let (answer, previewDue) = screen.present(plan, fonts: fonts)
        send(answer)
        if previewDue, let preview = options.previewFile, let d = display { writePreview(d, to: preview, time: plan.time) }
    }

    /// The preview file is replaced whole (PNG.write renames a finished file over it): a reader
    /// never sees half a PNG. It names the moment of its frame on the daemon's clock (a tEXt
    /// chunk, `previewTimeKey`): a crawling tape is drawn for that moment, and `render --config
    /// --at` draws the same frame from it.
    private func writePreview(_ display: any Display, to path: String, time: Double) {
        do throws(DisplayError) {
            guard let picture = display.capturedPicture() else { return try display.capture(to: path) }
            do { try PNG.write(picture, to: path, text: [(Self.previewTimeKey, "\(time)")]) } catch {
                throw DisplayError(.failed, device: "display", operation: "capture", detail: "\(error)")
            }
        } catch {
            Log.limited(.warning, key: "preview", "run: --preview \(path): \(error)")
        }
    }

    /// The preview's tEXt keyword for its frame's moment (monotonic seconds, as `render --at` takes them).
    package static let previewTimeKey = "tickerboard-time"

    private func applyLayout() {
        guard chartSize != nil, let d = display else { return }
        // Offered but refused: the core plans copies (a new model, full frames).
        if screen.applyTurn(quarterTurns) { send(.displayOpened(info(of: d))) }
        applyTouchLayout()
    }

    /// Maps touches onto the output the touchscreen is on, in its layout, and recognises gestures
    /// in its chart's frame.
    private func applyTouchLayout() {
        let extra = touchExtra
        let d = extra?.display ?? (extra == nil ? display : nil)
        let turns = extra?.quarterTurns ?? quarterTurns
        guard let size = extra == nil ? chartSize : extra?.chartSize, let d else { return }
        let margins = (extra?.screen ?? screen).margins(of: d)
        input?.mapping = TouchMapping(panelWidth: d.width, panelHeight: d.height, quarterTurns: turns, marginX: margins.x, marginY: margins.y)
        gestures.resize(width: Double(size.width), height: Double(size.height))
        let name = extra.map { "[output \($0.section.name)]" } ?? (extras.isEmpty ? nil : "the first output")
        if let name, name != touchOutputLogged {
            touchOutputLogged = name
            Log.notice("input: touch works \(name)")
        }
    }

    /// The output after the first that the touchscreen is on (nil: the first): `[input] output`,
    /// else a touch device's udev WL_OUTPUT, by section name or by the connector driving it.
    private var touchExtra: ExtraOutput? {
        guard !extras.isEmpty else { return nil }
        let tagged = input?.devices.first { $0.capabilities.contains(.touch) && $0.outputName != nil }?.outputName
        guard let wanted = config.inputOutput ?? tagged.flatMap(OutputConfig.Name.init) else { return nil }
        return extras.first { extra in
            if extra.section.name.same(as: wanted) { return true }
            guard let kms = extra.display as? KMSDisplay, !kms.connectorName.isEmpty else { return false }
            return wanted.same(as: .connector(kms.connectorName))
        }
    }

    func extraLayoutChanged(_ extra: ExtraOutput) {
        if extra === touchExtra { applyTouchLayout() }
    }

    // MARK: Input

    package func openInput() {
        if let inputRegistration { loop.remove(inputRegistration); self.inputRegistration = nil }
        input = nil
        if !touchScreens.isEmpty { touchScreens = []; send(.touchScreen(present: false)) }
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

    /// The core hears whether any touchscreen is attached, when that changes.
    private func noteTouchScreen(_ id: Int, present: Bool) {
        let before = !touchScreens.isEmpty
        if present { touchScreens.insert(id) } else { touchScreens.remove(id) }
        if before != !touchScreens.isEmpty { send(.touchScreen(present: !touchScreens.isEmpty)) }
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
            if case .deviceAdded = event { applyTouchLayout() }
            switch event {
            case .deviceAdded(let info) where info.capabilities.contains(.touch): noteTouchScreen(info.id, present: true)
            case .deviceRemoved(let info) where info.capabilities.contains(.touch): noteTouchScreen(info.id, present: false)
            default: break
            }
            var recognized: [Gesture] = []
            gestures.process(event) { recognized.append($0) }
            let target = touchExtra
            for gesture in recognized {
                if let target { send(.gesture(gesture, inputMicros: event.time), to: target) } else {
                    send(.gesture(gesture, inputMicros: event.time))
                }
            }
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
        let oldLightSensor = config.lightSensor
        let oldOutputs = config.effectiveOutputs
        config = Daemon.effective(outcome.config, options)
        screen.renderer.renderThreads = Daemon.renderThreads(for: config)
        let oldSafeArea = screen.safeArea
        screen.safeArea = config.safeArea
        for extra in extras { extra.screen.safeArea = config.safeArea }
        send(.configure(Daemon.setup(for: config, file: configPath)))
        // Another safe area is another size for the core to lay out (as a new mode would be).
        if config.safeArea != oldSafeArea {
            if let d = display { send(.displayOpened(info(of: d))) }
            for extra in extras { if let d = extra.screen.display { extra.send(.displayOpened(extra.screen.info(of: d))) } }
        }
        if config.effectiveOutputs.map(\.name) != oldOutputs.map(\.name) || config.tapeSpan != (screen.tapeSpan != nil) {
            // Outputs added, removed or renamed: the extras start again on the new sections.
            stopExtras()
            screen.tapeSpan = nil
            startExtras()
        } else {
            for extra in extras {
                extra.runner.send(.configure(Daemon.setup(for: config, file: configPath, output: extra.index)))
            }
        }
        if config.cec != oldCEC { startCEC() }
        if config.lightSensor != oldLightSensor { startLightSensor() }
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
        if let refusal = control.screenshotRefusal() {
            control.answer(id, .error(refusal))
            return
        }
        guard let picture = display?.capturedPicture() ?? screen.lastPresented else {
            control.answer(id, .error(.refused("no picture yet")))
            return
        }
        // The picture is shared with the thread that encodes it: the next frame's first write
        // copies it once (a copy on request, not per frame).
        control.write(making: { () throws(BackgroundWrite.Problem) in
            do throws(PNGError) { return try PNG.encode(picture) } catch { throw BackgroundWrite.Problem("cannot encode: \(error.reason)") }
        }, to: fd, for: id, done: { "screenshot \(picture.width)x\(picture.height) \($0) bytes" })
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
        status.peakRSSKB = ProcessResources.peakKB()
        status.openFDs = ProcessResources.openDescriptors()
        status.outputs = outputStatus
        status.version = TickerboardVersion.string
        return status
    }

    package func writeStatus(_ coreStatus: KioskStatus) {
        lastCoreStatus = coreStatus
        guard let path = options.statusFile else { return }
        let status = completed(coreStatus)
        do { try AtomicFile.write(Array(status.json.utf8), to: path) } catch {
            Log.limited(.warning, key: "status", "run: status file \(path): \(error)")
        }
        if let metrics = options.metricsFile {
            let cpu = ProcessCPUTime.now()
            let text = Metrics.text(status: status, instruments: runner.core.instrumentHealth(),
                                    cpuSeconds: Double(cpu.user &+ cpu.system) / 1e9, version: TickerboardVersion.string, now: clock.now().wall)
            do { try AtomicFile.write(Array(text.utf8), to: metrics) } catch {
                Log.limited(.warning, key: "metrics", "run: metrics file \(metrics): \(error)")
            }
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
