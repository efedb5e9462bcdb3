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

// What reaches the daemon from outside besides the display: input devices, the data files, signals
// and reloads, the control socket's answers, and what it tells systemd and the status file.
extension Daemon {
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
            applyTouchLayout()
            // Devices present at start queue their events without making the descriptor readable.
            handleInput()
        } catch {
            Log.warning("input: \(error); running without touch")
        }
    }

    /// The core hears whether any touchscreen is attached, when that changes.
    func noteTouchScreen(_ id: Int, present: Bool) {
        let before = !touchScreens.isEmpty
        if present { touchScreens.insert(id) } else { touchScreens.remove(id) }
        if before != !touchScreens.isEmpty { send(.touchScreen(present: !touchScreens.isEmpty), output: touchOutput) }
    }

    func handleInput() {
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
            let target = touchOutput
            for gesture in recognized { send(.gesture(gesture, inputMicros: event.time), output: target) }
        }
    }

    // MARK: Data

    func startLiveData() {
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
            var keepAlive = LoadKeepAlive(startedAt: Double(MonotonicClock.now()) / 1e9, ready: toldReady)
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

    func installSignals() throws(Errno) {
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
        let oldTapeSpan = config.tapeSpan
        config = Daemon.effective(outcome.config, options)
        let oldSafeArea = screen.safeArea
        for output in outputs {
            output.screen.renderer.renderThreads = Daemon.renderThreads(for: config)
            output.screen.safeArea = config.safeArea
        }
        let outputsChanged = config.effectiveOutputs.map(\.name) != oldOutputs.map(\.name)
        if outputsChanged {
            // Outputs added, removed or renamed: the core starts them again (`.reopenDisplay`), on
            // connectors surveyed again.
            resizeOutputs()
            assignConnectors()
        } else if config.tapeSpan != oldTapeSpan {
            assignConnectors()
        }
        send(.configure(Daemon.setup(for: config, file: configPath)))
        // Another safe area is another size for the core to lay out (as a new mode would be).
        if config.safeArea != oldSafeArea {
            for i in outputs.indices { if let d = outputs[i].display { send(.displayOpened(outputs[i].screen.info(of: d)), output: i) } }
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

    func notify(_ message: String) {
        _ = try? SystemdNotify.send(message)
        if message.hasPrefix("READY=1"), let readyFile = options.readyFile {
            let status = message.split(separator: "\n").first { $0.hasPrefix("STATUS=") }.map { String($0.dropFirst(7)) } ?? "ready"
            try? AtomicFile.write(Array((status + "\n").utf8), to: readyFile)
        }
    }

    /// The core's status with what only the shell can measure.
    func completed(_ coreStatus: KioskStatus) -> KioskStatus {
        var status = coreStatus
        status.presentMethod = display?.presentMethod
        status.pacing = display?.pacingMethod
        status.rssKB = ProcessResources.residentKB()
        status.peakRSSKB = ProcessResources.peakKB()
        status.openFDs = ProcessResources.openDescriptors()
        status.outputs = outputStatus(coreStatus.outputs)
        status.version = TickerboardVersion.string
        return status
    }

    package func writeStatus(_ write: StatusWrite) {
        guard let path = options.statusFile else { return }
        let status = completed(write.status)
        do { try AtomicFile.write(Array(status.json.utf8), to: path) } catch {
            Log.limited(.warning, key: "status", "run: status file \(path): \(error)")
        }
        if let metrics = options.metricsFile {
            let cpu = ProcessCPUTime.now()
            let text = Metrics.text(status: status, instruments: write.instruments,
                                    cpuSeconds: Double(cpu.user &+ cpu.system) / 1e9, version: TickerboardVersion.string, now: clock.now().wall)
            do { try AtomicFile.write(Array(text.utf8), to: metrics) } catch {
                Log.limited(.warning, key: "metrics", "run: metrics file \(metrics): \(error)")
            }
        }
        // Alongside the status (at most once a second): the alerts' states, when they changed.
        let alerts = write.alertStates
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
    var resourceLine: String {
        let cpu = ProcessCPUTime.now()
        return ", cpu \((cpu.user + cpu.system) / 1_000_000) ms, max rss \(ProcessResources.peakKB()) kB, "
            + "wakeups \(loop.wakeupCount)"
    }
}
