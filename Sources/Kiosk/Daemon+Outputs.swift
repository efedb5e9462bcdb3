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

// The daemon's outputs: opening the first display, the outputs after the first (each with its
// own core, opened on the first display's card), hotplug, presenting and the touch layout.
extension Daemon {
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
    var firstConnector: String? {
        guard let first = config.effectiveOutputs.first, !config.outputs.isEmpty else { return config.connector }
        if case .connector(let name) = first.name { return name }
        return nil
    }

    func closeDisplay() {
        stopExtras()
        if let displayRegistration { loop.remove(displayRegistration); self.displayRegistration = nil }
        display?.shutdown()
        display = nil
    }

    func info(of d: any Display) -> DisplayInfo { screen.info(of: d) }

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

    /// With two or more `[output]` sections and the first output's display open: surveys its
    /// card, assigns the connectors, and starts a core for each further output, told the data so far.
    func startExtras() {
        let sections = config.effectiveOutputs
        guard extras.isEmpty, sections.count > 1, let d = display else { return }
        // A simulated card calls its connectors what the sections call them.
        let names = sections.indices.map { i in
            if case .connector(let n) = sections[i].name { return n }
            return "VIRTUAL-\(i + 1)"
        }
        let request = CardRequest(names: names, shiftMargin: config.burnInShift, maxSize: config.maxModeSize,
                                  otherCards: config.displayDevice == nil)
        if let extraDisplayOpener {
            card = OpenerCard(names: names, size: ModeRequest(width: d.width, height: d.height), opener: extraDisplayOpener)
        } else if options.displayChoice == .headless {
            // Headless, every further section gets a screen of its own, the first one's size and
            // refresh: several outputs run (and are tested) without a card.
            card = SimulatedCard(names: names, width: d.width, height: d.height, refreshHz: d.refreshHz)
        } else {
            card = d.card(for: request)
        }
        guard let card else {
            Log.warning("display: [output] sections need a KMS card; \(d.presentMethod) shows the first section's scene only")
            return
        }
        let survey = card.survey().map {
            OutputAssignment.Connector(name: $0.name, connected: $0.connected, modes: $0.modes, panelRotation: $0.panelQuarterTurns * 90)
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

    func stopExtras() {
        for extra in extras {
            extra.runner.send(.terminate)
            extra.close()
        }
        extras = []
    }

    /// Opens the extra output's connector on the first output's card.
    func openExtraDisplay(_ extra: ExtraOutput) {
        guard extra.display == nil else { return }
        let name = "[output \(extra.section.name)]"
        guard let card else {
            extra.send(.displayUnavailable(message: nil))
            return
        }
        do {
            let d = try card.open(connector: assignment?.states[extra.index].connector, log: { Log.notice("display: \(name) \($0)") })
            extra.screen.display = d
            if let fd = d.pollDescriptor {
                extra.registration = try? loop.watch(fd) { [unowned self] _ in handleAllDisplayEvents() }
            }
            if let report = d.connectorReport, report.connector == nil {
                Log.notice("display: \(name) waits for a free connector to be plugged in")
            }
            extra.send(.displayOpened(extra.screen.info(of: d)))
        } catch {
            extra.send(.displayUnavailable(message: "\(name) \(error)"))
        }
    }

    /// Rewrites the status file with every output's state (an extra output's core saw a change).
    func rewriteStatus() {
        guard var write = lastStatusWrite else { return }
        // The write's own time: an idle first output's status may be a minute old.
        write.status.time = clock.now().wall
        writeStatus(write)
    }

    /// One line of the status file's `outputs` per section (empty without sections).
    var outputStatus: [KioskStatus.Output] {
        let sections = config.effectiveOutputs
        guard !config.outputs.isEmpty else { return [] }
        return sections.indices.map { i in
            let extra = extras.first { $0.index == i }
            let d: (any Display)? = i == 0 ? display : extra?.display
            // What the output's core says of its display where the display cannot say more.
            let coreState = i == 0 ? core.status().display : extra?.runner.core.status().display
            guard let d, let report = d.connectorReport else {
                // A simulated screen (headless): its core counts its flips; its connector is the survey's.
                let stats = i == 0 ? core.stats : extra?.runner.core.stats
                return KioskStatus.Output(name: sections[i].name.description, connector: d == nil ? nil : assignment?.states[i].connector,
                                          mode: d.map { "\($0.width)x\($0.height)@\(Int($0.refreshHz.rounded()))" }, scene: sections[i].scene,
                                          state: coreState == "presenting" ? "running" : coreState ?? "waiting: no display open",
                                          flips: stats?.completedFlips ?? 0, missedVblanks: stats?.missedVblanks ?? 0)
            }
            // A connector of another card by the name the survey gave it (cardN-NAME on a clash).
            let connector = card?.surveyName(of: d) ?? report.connector
            return KioskStatus.Output(name: sections[i].name.description, connector: connector,
                                      mode: connector == nil ? nil : report.mode, scene: sections[i].scene,
                                      state: report.state, flips: report.flips, missedVblanks: report.missedVblanks)
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
    func writePreview(_ display: any Display, to path: String, time: Double) {
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

    func applyLayout() {
        guard chartSize != nil, let d = display else { return }
        // Offered but refused: the core plans copies (a new model, full frames).
        if screen.applyTurn(quarterTurns) { send(.displayOpened(info(of: d))) }
        applyTouchLayout()
    }

    /// Maps touches onto the output the touchscreen is on, in its layout, and recognises gestures
    /// in its chart's frame.
    func applyTouchLayout() {
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
    var touchExtra: ExtraOutput? {
        guard !extras.isEmpty else { return nil }
        let tagged = input?.devices.first { $0.capabilities.contains(.touch) && $0.outputName != nil }?.outputName
        guard let wanted = config.inputOutput ?? tagged.flatMap(OutputConfig.Name.init) else { return nil }
        return extras.first { extra in
            if extra.section.name.same(as: wanted) { return true }
            guard let connector = extra.display?.connectorReport?.connector else { return false }
            return wanted.same(as: .connector(connector))
        }
    }

    func extraLayoutChanged(_ extra: ExtraOutput) {
        if extra === touchExtra { applyTouchLayout() }
    }
}
