import Chart
import Display
import Feed
import Input
import LinuxIO
import Raster
import Text

#if canImport(Glibc)
import Glibc
#endif

/// The kiosk daemon: one thread, one epoll loop over the display, signals and timers. A frame is
/// rendered only when something changed (a morph is running, data arrived, a finger moved) and the
/// previous flip has completed; otherwise the process sleeps with zero wakeups.
final class Daemon {
    private var config: Config
    private let configPath: String?
    private let displayChoice: DisplayBackends.Choice
    private let loop: EventLoop
    private let fonts: FontSet
    private var display: (any Display)?
    private var displayRegistration: EventLoop.Registration?
    private var hotplugMonitor: UEventMonitor?
    private var hotplugRegistration: EventLoop.Registration?
    private var model: ScreenModel?
    private var instruments: [Instrument] = []
    /// Config ids of `instruments` (live updates name them); "sample" for the built-in market.
    private var instrumentIDs: [String] = []
    private var liveData: LiveData?
    private var liveRegistration: EventLoop.Registration?
    private var power: ScreenPower
    private var powerTimer: EventLoop.Registration?
    private var screenIsOn = true
    private var lastActivityWall = Double(time(nil))
    private var burnIn: BurnInShift
    private var burnInTimer: EventLoop.Registration?
    private let startNanos = MonotonicClock.now()
    /// The picture moved by the burn-in offset (and rotated), as it goes to the display.
    private var shifted: PixelBuffer?
    private var instrumentIndex = 0
    private var stats = FrameStatistics()
    private var frameWanted = false
    private var lastVblankNanos: UInt64 = 0
    private var lastFlipAnimating = false
    private var lastFrameTime = 0.0
    private var readySent = false
    private var cycleTimer: EventLoop.Registration?
    private var lastTouchNanos: UInt64 = 0
    /// False until the first touch or key: until then `lastActivityWall` is the start-up time.
    private var touchedSinceStart = false
    /// The contact that woke the screen is still down: its gestures are not acted on.
    private var ignoringWakingContact = false
    private var exitStatus: Int32 = 0
    private var lastProgressNanos: UInt64 = MonotonicClock.now()
    private var input: InputDevices?
    private var gestures = GestureRecognizer(width: 0, height: 0)
    /// The rotated frame when the display is mounted on its side (rotation 90/180/270).
    private var scanout: PixelBuffer?
    /// Time (µs, monotonic) of the input event the frame in flight answers, for latency statistics.
    private var pendingInputMicros: UInt64?
    private var inFlightInputMicros: UInt64?
    private var quarterTurns: Int { config.rotation.map { $0 / 90 } ?? display?.panelQuarterTurns ?? 0 }

    private let readyFile: String?

    init(config: Config, configPath: String?, displayChoice: DisplayBackends.Choice, fonts: FontSet,
         readyFile: String? = nil) throws(Errno) {
        self.readyFile = readyFile
        self.config = config
        power = ScreenPower(config: config)
        burnIn = BurnInShift(config: config)
        self.configPath = configPath
        self.displayChoice = displayChoice
        self.fonts = fonts
        loop = try EventLoop()
    }

    /// Seconds on the monotonic clock: the time base of animations (vblank timestamps use it too).
    private static func seconds(_ nanos: UInt64) -> Double { Double(nanos) / 1e9 }

    func run() -> Int32 {
        do {
            try installSignals()
            try installWatchdog()
        } catch {
            Log.error("run: cannot set up the event loop: \(error)")
            return 1
        }
        instruments = loadInstruments(config)
        startLiveData()
        openInput()
        openDisplay()
        armCycleTimer()
        armPowerTimer()
        armBurnInTimer()
        do { try loop.run() } catch {
            Log.error("run: event loop failed: \(error)")
            exitStatus = 1
        }
        display?.shutdown()
        virtualTerminal?.restore()
        input = nil
        Log.notice("run: exiting; \(statisticsLine)")
        return exitStatus
    }

    // MARK: Display

    private func openDisplay() {
        do {
            let d = try DisplayBackends.open(displayChoice, device: config.displayDevice, mode: config.mode,
                                             log: { Log.notice("display: \($0)") })
            attach(d)
        } catch {
            // With no device at all the command line has said so already.
            if error.kind != .noDisplay || !DisplayBackends.devicePaths().isEmpty {
                Log.warning("display: \(error); waiting for a display to appear")
            }
            waitForHotplug()
        }
    }

    private func attach(_ d: any Display) {
        display = d
        // Only a KMS output competes with the console and other sessions for the screen.
        if d is KMSDisplay, virtualTerminal == nil {
            virtualTerminal = VirtualTerminal(log: { Log.info($0) })
        }
        if let fd = d.pollDescriptor {
            displayRegistration = try? loop.watch(fd) { [unowned self] _ in handleDisplayEvents() }
        }
        if let hotplugRegistration { loop.remove(hotplugRegistration); self.hotplugRegistration = nil; hotplugMonitor = nil }
        rebuildModel()
        if !d.canPresent {
            Log.notice("display: \(d.width)x\(d.height) opened, waiting for the output")
        } else {
            Log.notice("display: \(d.width)x\(d.height)@\(format(d.refreshHz, 2)) Hz")
        }
        requestFrame()
        // A frame in flight also makes canPresent false: READY then comes with its flip.
        if !readySent && !d.canPresent && stats.presentedFrames == 0 { notifyReady("waiting for an output") }
    }

    /// No display device at all: a udev monitor wakes us when a card or framebuffer appears.
    private func waitForHotplug() {
        if !readySent { notifyReady("no display; waiting for one") }
        guard hotplugMonitor == nil else { return }
        do {
            let monitor = try UEventMonitor(subsystems: ["drm", "graphics"])
            hotplugMonitor = monitor
            hotplugRegistration = try loop.watch(monitor.descriptor.rawValue) { [unowned self] _ in
                let events = (try? monitor.readEvents()) ?? []
                if events.contains(where: { $0.action == "add" || $0.action == "change" }), display == nil {
                    // Give udev a moment to set permissions on the new node.
                    _ = try? loop.addTimer(after: .milliseconds(500)) { [unowned self] in
                        if display == nil { openDisplay() }
                    }
                }
            }
        } catch {
            Log.error("display: cannot watch for hotplug: \(error)")
        }
    }

    private func rebuildModel() {
        guard let d = display, !instruments.isEmpty else { return }
        let palette = ScreenModel.palette(named: config.paletteName) ?? .standard
        let sideways = quarterTurns % 2 == 1
        let (w, h) = sideways ? (d.height, d.width) : (d.width, d.height)
        let m = ScreenModel(instrument: instruments[instrumentIndex % instruments.count], width: w,
                            height: h, fonts: fonts, palette: palette, range: config.startRange)
        m.timing = config.morph
        if m.timeAxis != config.timeAxis { m.timeAxis = config.timeAxis }
        if readySent { m.prepareAllRanges() }
        model = m
        scanout = quarterTurns == 0 ? nil : PixelBuffer(width: d.width, height: d.height)
        input?.mapping = TouchMapping(panelWidth: d.width, panelHeight: d.height, quarterTurns: quarterTurns)
        gestures.resize(width: Double(w), height: Double(h))
        shifted = nil
        needsFullPresent = true
        updateStatusNote()
    }

    private func handleDisplayEvents() {
        guard let d = display else { return }
        for event in d.handleReadable() {
            switch event {
            case .flipCompleted(let vblankNanos, let sequence):
                lastVblankNanos = vblankNanos
                lastProgressNanos = MonotonicClock.now()
                let animating = model?.isAnimating(at: Self.seconds(vblankNanos)) ?? false
                // After an idle pause (the previous flip ended the motion) the sequence gap is no miss.
                if !lastFlipAnimating { stats.resetSequence() }
                stats.recordFlip(sequence: sequence, animating: animating)
                lastFlipAnimating = animating
                if let t = inFlightInputMicros {
                    // Input event to the vblank that shows its answer.
                    stats.recordInputLatency(nanos: vblankNanos &- t &* 1000)
                    inFlightInputMicros = nil
                }
                if !readySent {
                    notifyReady("showing the chart")
                    // Idle right after the first frame: lay out every range before the first morph.
                    model?.prepareAllRanges()
                }
            case .connectorLost:
                Log.warning("display: output disconnected; rendering stopped until it returns")
                stats.resetSequence()
            case .connectorReturned, .masterRegained:
                Log.notice("display: output back (\(d.width)x\(d.height)); redrawing")
                if (scanout?.width ?? model?.canvas.width) != d.width || (scanout?.height ?? model?.canvas.height) != d.height {
                    rebuildModel()
                }
                stats.resetSequence()
                frameWanted = true
            case .masterLost:
                Log.notice("display: another process took the display; pausing")
                stats.resetSequence()
            }
        }
        renderIfNeeded()
    }

    private func requestFrame() {
        frameWanted = true
        renderIfNeeded()
    }

    /// Renders and presents the next frame if one is wanted and the display can take it.
    private func renderIfNeeded() {
        presentBlackFrameIfWanted()
        guard let d = display, let model, d.canPresent, screenIsOn else { return }
        // Animation time is the vblank the frame will be shown at: the last one plus a period.
        let now = MonotonicClock.now()
        let period = UInt64(1e9 / max(1, d.refreshHz))
        var at = lastVblankNanos &+ period
        if lastVblankNanos == 0 || now > at &+ period { at = now }
        let t = Self.seconds(at)
        // One more frame when the one on screen was drawn mid-motion: the settled picture must be shown
        // even when the motion ended between two (slow) frames.
        guard frameWanted || model.isAnimating(at: t) || model.isAnimating(at: lastFrameTime) else { return }
        lastFrameTime = t
        frameWanted = false
        let t0 = MonotonicClock.now()
        let canvas = model.render(at: t)
        let t1 = MonotonicClock.now()
        do {
            let offset = burnIn.offset(at: Double(MonotonicClock.now() - startNanos) / 1e9)
            var picture = canvas.buffer
            var damage = model.lastDamage
            if offset != .zero {
                var moved = shifted ?? PixelBuffer(width: picture.width, height: picture.height)
                shifted = nil  // uniquely referenced while written
                moved.copy(from: picture, offsetX: offset.dx, offsetY: offset.dy,
                           fill: model.screen.palette.background.premultiplied)
                picture = moved
                shifted = moved
                damage = picture.bounds
            }
            if var rotated = scanout {
                scanout = nil  // keep the buffer uniquely referenced while it is written
                picture.rotate(quarterTurns: quarterTurns, into: &rotated)
                try d.present(rotated, damage: rotated.bounds)
                scanout = rotated
            } else {
                try d.present(picture, damage: needsFullPresent ? picture.bounds : damage)
            }
            needsFullPresent = offset != .zero
            inFlightInputMicros = pendingInputMicros
            pendingInputMicros = nil
        } catch {
            Log.limited(.warning, key: "present", "display: \(error)")
            return
        }
        stats.recordFrame(renderNanos: t1 - t0, copyNanos: MonotonicClock.now() - t1)
    }

    // MARK: VT switching

    private var virtualTerminal: VirtualTerminal?

    /// The kernel asks to switch our VT away (give the display up, then allow it) or tells us it is
    /// back (acknowledge, then take the display again and redraw everything).
    private func handleVTSwitch() {
        guard let vt = virtualTerminal else { return }
        switch vt.request() {
        case .release:
            display?.suspend()
            vt.allowRelease()
            stats.resetSequence()
            Log.notice("vt: switched away; the display is released")
        case .acquire:
            vt.acknowledgeAcquire()
            display?.resume()
            needsFullPresent = true
            frameWanted = true
            Log.notice("vt: back; taking the display again")
        }
    }

    // MARK: Input

    private func openInput() {
        guard config.inputEnabled else { return }
        let calibration = config.calibration.flatMap { CalibrationMatrix($0.map(Float.init)) }
        do {
            let devices = try InputDevices(seat: config.seat, mapping: TouchMapping(panelWidth: 0, panelHeight: 0),
                                           calibration: calibration, log: { Log.notice($0) })
            input = devices
            try loop.watch(devices.pollDescriptor) { [unowned self] _ in handleInput() }
            // Devices present at start queue their events without making the descriptor readable.
            handleInput()
        } catch {
            Log.warning("input: \(error); running without touch")
        }
    }

    private func handleInput() {
        guard let input else { return }
        for event in input.dispatch() {
            if case .key(_, true, let command?, _) = event {
                handleKey(command)
                continue
            }
            gestures.process(event) { gesture in handle(gesture, time: event.time) }
        }
    }

    private func handle(_ gesture: Gesture, time: UInt64?) {
        guard let model else { return }
        lastTouchNanos = MonotonicClock.now()
        // The touch that wakes the screen does nothing else: it wakes on the contact's first event
        // (scrubBegan), so the rest of that contact (its moves, its end, the tap or swipe it turns
        // into on release) is ignored too, until the next contact begins.
        if noteActivity() {
            ignoringWakingContact = true
            return
        }
        if ignoringWakingContact {
            guard case .scrubBegan = gesture else { return }
            ignoringWakingContact = false
        }
        let now = Self.seconds(max(lastTouchNanos, lastVblankNanos))
        let plot = model.screen.layout.plot
        switch gesture {
        case .scrubBegan(let x, let y), .scrubMoved(let x, let y):
            guard y <= plot.bottom + 8 * model.screen.layout.scale || model.scrubIndex != nil else { return }
            if model.scene != .line { model.select(model.range, at: now, animated: false) }
            if model.scrub(atX: x) {
                if pendingInputMicros == nil { pendingInputMicros = time }
                requestFrame()
            }
        case .scrubEnded:
            if model.scrubIndex != nil {
                model.endScrub()
                requestFrame()
            }
        case .tap(let x, let y):
            if let range = model.screen.layout.range(atX: x, y: y) {
                model.select(range, at: now)
                if pendingInputMicros == nil { pendingInputMicros = time }
                requestFrame()
            }
        case .swipe(let direction):
            step(direction == .left ? 1 : -1, at: now)
        }
    }

    private func handleKey(_ command: KeyCommand) {
        guard let model else { return }
        lastTouchNanos = MonotonicClock.now()
        if noteActivity() { return }
        let now = Self.seconds(max(lastTouchNanos, lastVblankNanos))
        switch command {
        case .selectRange(let index) where index < ChartRange.allCases.count:
            model.select(ChartRange.allCases[index], at: now)
            requestFrame()
        case .selectRange: break
        case .previousRange: step(-1, at: now)
        case .nextRange: step(1, at: now)
        case .togglePause:
            paused.toggle()
            Log.notice("cycling \(paused ? "paused" : "resumed") from the keyboard")
        }
    }

    /// Someone is there: restart the idle countdown; returns true if this woke the screen.
    private func noteActivity() -> Bool {
        lastActivityWall = Double(time(nil))
        touchedSinceStart = true
        let wasOff = !screenIsOn
        if wasOff || config.blankAfterIdleSeconds > 0 { armPowerTimer() }
        return wasOff && screenIsOn
    }

    private func step(_ delta: Int, at time: Double) {
        guard let model else { return }
        let all = ChartRange.allCases
        let i = ((all.firstIndex(of: model.range) ?? 0) + delta + all.count) % all.count
        model.select(all[i], at: time)
        requestFrame()
    }

    // MARK: Cycling

    private func armCycleTimer() {
        if let cycleTimer { loop.remove(cycleTimer); self.cycleTimer = nil }
        guard config.cycleSeconds > 0 else { return }
        let interval = Duration.milliseconds(Int64(config.cycleSeconds * 1000))
        cycleTimer = try? loop.addTimer(after: interval, repeating: interval) { [unowned self] in cycle() }
    }

    /// One step of the unattended show: every range in turn, then the bar chart of monthly change,
    /// then the next instrument of the watchlist drawing itself in.
    private func cycle() {
        guard let model, display != nil else { return }
        let now = MonotonicClock.now()
        if paused { return }
        if lastTouchNanos != 0 && Double(now - lastTouchNanos) / 1e9 < config.touchPauseSeconds { return }
        let t = Self.seconds(max(now, lastVblankNanos))
        let ranges = config.ranges
        let position = ranges.firstIndex(of: model.range) ?? -1
        if model.scene == .bars {
            if instruments.count > 1 {
                instrumentIndex = (instrumentIndex + 1) % instruments.count
                rebuildModel()
                self.model?.show(.drawIn, at: t)
            } else {
                model.select(ranges[0], at: t)
            }
        } else if position == ranges.count - 1 && ranges.count > 1 {
            model.show(.bars, at: t)
        } else {
            model.select(ranges[(position + 1) % ranges.count], at: t)
        }
        requestFrame()
    }

    /// Space on a keyboard pauses and resumes the unattended cycling.
    private var paused = false

    // MARK: Data

    private func loadInstruments(_ config: Config) -> [Instrument] {
        var result: [Instrument] = []
        instrumentIDs = []
        for spec in config.instruments {
            do {
                let zone = try ExchangeTimeZone(identifier: spec.timeZone)
                var daily: PriceSeries?, intraday: PriceSeries?
                let field: PriceField = spec.adjusted ? .adjustedClose : .close
                for (file, isIntraday) in [(spec.dailyFile, false), (spec.intradayFile, true)] {
                    guard let file else { continue }
                    let path = LiveData.resolve(file, in: config.dataDirectory)
                    let (series, report) = try YahooCSV.load(path: path, priceField: field)
                    if let message = report.message { Log.warning("data: \(message)") }
                    if isIntraday { intraday = series } else { daily = series }
                }
                let market = MarketData(daily: daily, intraday: intraday, timeZone: zone, priceField: field)
                result.append(Instrument(name: spec.name ?? spec.id, market: market, priceFormat: priceFormat(spec)))
                instrumentIDs.append(spec.id)
            } catch {
                Log.error("data: instrument \(spec.id): \(error)")
            }
        }
        if result.isEmpty {
            if !config.instruments.isEmpty { Log.warning("data: no instrument could be loaded; showing the built-in sample") }
            result = [.sample()]
            instrumentIDs = ["sample"]
        }
        return result
    }

    // MARK: Live data, staleness, screen power, burn-in

    private func startLiveData() {
        if let liveRegistration { loop.remove(liveRegistration); self.liveRegistration = nil }
        liveData = nil
        guard !config.instruments.isEmpty else { return }
        do {
            let live = try LiveData(config: config) { [unowned self] update in apply(update) }
            for source in live.sources {
                guard let i = instrumentIDs.firstIndex(of: source.instrumentID) else { continue }
                let market = instruments[i].market
                if let series = source.slot == .daily ? market.daily : market.intraday {
                    live.noteLoaded(path: source.path, series: series)
                }
            }
            liveRegistration = try loop.watch(live.pollDescriptor) { _ in live.handleReadable() }
            liveData = live
        } catch {
            Log.warning("data: cannot watch the data files (\(error)); changes need a restart or SIGHUP")
        }
        updateStatusNote()
    }

    private func apply(_ update: LiveData.Update) {
        guard let i = instrumentIDs.firstIndex(of: update.instrumentID) else { return }
        var market = instruments[i].market
        if update.slot == .daily { market.daily = update.series } else { market.intraday = update.series }
        instruments[i].market = market
        Log.info("data: \(update.path): \(update.series.count) bars")
        if i == instrumentIndex % instruments.count, let model {
            model.replaceMarket(market, at: Self.seconds(max(MonotonicClock.now(), lastVblankNanos)))
            updateStatusNote()
            requestFrame()
        }
    }

    /// "delayed · updated …" when the shown instrument's newest bar is older than the configured age.
    private func updateStatusNote() {
        guard let model, instrumentIDs.first != "sample" else { return }
        let market = model.instrument.market
        guard let series = [market.intraday, market.daily].compactMap({ $0 }).max(by: { ($0.last?.time ?? 0) < ($1.last?.time ?? 0) }),
              let staleness = Staleness(series: series, now: Int64(time(nil)), staleAfterSeconds: config.staleAfterSeconds,
                                        timeZone: market.timeZone)
        else { return }
        let note = staleness.isStale ? "delayed · " + staleness.text : nil
        if note != model.statusNote {
            model.statusNote = note
            requestFrame()
        }
    }

    /// Decides on/off now and arms one timer for the next change (capped, for wall-clock steps).
    private func armPowerTimer() {
        let now = Double(time(nil))
        var decision = power.decide(at: now, lastActivity: lastActivityWall)
        if !touchedSinceStart && decision.reason == .touched {
            // The start-up time stands in for the last touch so that the idle timeout runs from
            // start-up; it is no touch, though: outside the schedule the screen stays off from start.
            decision = power.decide(at: now, lastActivity: -1e12)
        }
        setScreen(on: decision.isOn)
        updateStatusNote()
        let sleep = min(decision.nextChange.map { max(1, $0 - now) } ?? ScreenPower.maximumSleep, ScreenPower.maximumSleep)
        let delay = Duration.milliseconds(Int64(sleep * 1000))
        if let powerTimer {
            try? loop.rearm(powerTimer, after: delay)
        } else {
            powerTimer = try? loop.addTimer(after: delay) { [unowned self] in armPowerTimer() }
        }
    }

    private func setScreen(on: Bool) {
        guard on != screenIsOn else { return }
        screenIsOn = on
        if on {
            blackFrameWanted = false
            Log.notice("power: screen on")
            if let d = display, poweredDown { _ = d.setPowered(true) }
            poweredDown = false
            stats.resetSequence()
            needsFullPresent = true
            requestFrame()
        } else if let d = display {
            // DPMS when the driver has it; otherwise a black frame. No rendering at all until on.
            // Not only when the display can present: at start-up (a schedule that is off now) the
            // first frame's flip is still in flight; setPowered lets it land first, and the black
            // frame waits for it in renderIfNeeded.
            if d.setPowered(false) {
                poweredDown = true
                Log.notice("power: screen off (DPMS)")
            } else {
                Log.notice("power: screen off (black frame)")
                blackFrameWanted = true
                presentBlackFrameIfWanted()
            }
            if !readySent { notifyReady("screen off (power)") }
        }
    }

    /// The black frame of a screen switched off without DPMS, once the display can take it.
    private var blackFrameWanted = false

    private func presentBlackFrameIfWanted() {
        guard blackFrameWanted, !screenIsOn, let d = display, d.canPresent else { return }
        blackFrameWanted = false
        let black = PixelBuffer(width: d.width, height: d.height, fill: 0xFF00_0000)
        try? d.present(black, damage: black.bounds)
        needsFullPresent = true
    }

    /// The output is switched off through DPMS (not merely black).
    private var poweredDown = false

    private func armBurnInTimer() {
        if let burnInTimer { loop.remove(burnInTimer); self.burnInTimer = nil }
        let elapsed = Double(MonotonicClock.now() - startNanos) / 1e9
        guard let next = burnIn.nextChange(after: elapsed) else { return }
        let delay = Duration.milliseconds(Int64(max(0.05, next - elapsed) * 1000))
        burnInTimer = try? loop.addTimer(after: delay) { [unowned self] in
            needsFullPresent = true
            requestFrame()
            armBurnInTimer()
        }
    }

    /// True when the next frame must be copied whole (the shift changed, a black frame was shown).
    private var needsFullPresent = false

    private func priceFormat(_ spec: InstrumentConfig) -> PriceFormat {
        let symbol = config.currencySymbol ?? (spec.currency == "USD" ? "$" : spec.currency == "EUR" ? "€" : spec.currency)
        return PriceFormat(decimals: config.decimals, groupingSeparator: config.groupingSeparator,
                           decimalSeparator: config.decimalSeparator, currencySymbol: symbol,
                           symbolPosition: config.currencyAfter ? .after : .before)
    }

    // MARK: Signals, reload, watchdog

    private var signals: SignalFD?

    private func installSignals() throws(Errno) {
        // SIGUSR2 is the VT switch request (VirtualTerminal); blocking it costs nothing without a VT.
        let s = try SignalFD(signals: [SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2])
        signals = s
        try loop.watch(s.descriptor.rawValue) { [unowned self] _ in
            while let info = try? s.next() {
                switch info.signal {
                case SIGTERM, SIGINT:
                    _ = try? SystemdNotify.stopping()
                    loop.stop()
                case SIGHUP: reload()
                case SIGUSR1: Log.notice("stats: \(statisticsLine)")
                case SIGUSR2: handleVTSwitch()
                default: break
                }
            }
        }
    }

    private func reload() {
        guard let configPath else {
            Log.notice("reload: no --config file; nothing to reload")
            return
        }
        _ = try? SystemdNotify.reloading()
        let outcome = ConfigReload.reload(current: config, path: configPath)
        for issue in outcome.issues {
            issue.severity == .error ? Log.error("config: \(issue)") : Log.warning("config: \(issue)")
        }
        Log.notice("reload: \(outcome.summary)")
        if outcome.applied && outcome.changed {
            config = outcome.config
            power = ScreenPower(config: config)
            burnIn = BurnInShift(config: config)
            instruments = loadInstruments(config)
            instrumentIndex = 0
            rebuildModel()
            startLiveData()
            armCycleTimer()
            armPowerTimer()
            armBurnInTimer()
            requestFrame()
        }
        _ = try? SystemdNotify.send("READY=1")
    }

    private func installWatchdog() throws(Errno) {
        guard let interval = SystemdNotify.watchdogPingInterval else { return }
        try loop.addTimer(after: interval, repeating: interval) { [unowned self] in
            // Healthy: frames are flowing, or nothing needs drawing, or we are deliberately waiting for
            // a display. A renderer stuck with work pending stops the pings and systemd restarts us.
            let stalled = (frameWanted || (model?.isAnimating(at: Self.seconds(MonotonicClock.now())) ?? false))
                && (display?.canPresent ?? false) == false && display != nil
                && MonotonicClock.now() - lastProgressNanos > 10_000_000_000
            if !stalled { _ = try? SystemdNotify.watchdog() }
        }
    }

    private func notifyReady(_ status: String) {
        readySent = true
        _ = try? SystemdNotify.send("READY=1\nSTATUS=\(status)")
        if let readyFile {
            let fd = open(readyFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            if fd >= 0 {
                var line = Array((status + "\n").utf8)
                _ = line.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
        }
    }

    /// The statistics line: frames, flips, timings, and the process's CPU time and peak memory.
    private var statisticsLine: String {
        let cpu = ProcessCPUTime.now()
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return stats.summary + ", cpu \((cpu.user + cpu.system) / 1_000_000) ms, max rss \(usage.ru_maxrss) kB, wakeups \(loop.wakeupCount)"
    }
}
