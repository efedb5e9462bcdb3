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

// The daemon's outputs: one `ShellOutput` per output the core drives (`[output]` sections, else
// one). The first output's display is opened from the command line and the config; it gives the
// card the others' connectors are opened on (one DRM master for all). Presenting, power and the
// touch layout are the same code for every output.

/// One output's devices: its screen (display and renderer), the display's poll registration,
/// and the layout its touches map through.
final class ShellOutput {
    let screen: OutputScreen
    var registration: EventLoop.Registration?
    /// The panel's turn and the chart's size as the core last laid this output out.
    var quarterTurns = 0
    var chartSize: (width: Int, height: Int)?
    /// The core's display lifecycle wants uevents for this output.
    var wantsHotplug = false

    init(screen: OutputScreen) { self.screen = screen }
    var display: (any Display)? { screen.display }
}

extension Daemon {
    // MARK: Display

    /// Opens output `i`'s display: the first from the options and the config, the others on the
    /// first's card. Answers the core with `.displayOpened` or `.displayUnavailable`.
    package func openDisplay(output i: Int) {
        guard outputs.indices.contains(i), outputs[i].display == nil else { return }
        if i == 0 { openFirstDisplay() } else { openOnCard(i) }
    }

    func openFirstDisplay() {
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
            watch(output: 0)
            send(.displayOpened(info(of: d)), output: 0)
            openCard()
            // Outputs that asked before the card was open ask again now.
            for i in outputs.indices.dropFirst() where outputs[i].display == nil { openOnCard(i) }
        } catch {
            // With no device at all the command line has said so already.
            let quiet = error.kind == .noDisplay && DisplayBackends.devicePaths().isEmpty
            send(.displayUnavailable(message: quiet ? nil : "\(error)"), output: 0)
        }
    }

    /// The connector the first output asks for: `[display] connector`, or with `[output]`
    /// sections the first one's when it names one.
    var firstConnector: String? {
        guard let first = config.effectiveOutputs.first, !config.outputs.isEmpty else { return config.connector }
        if case .connector(let name) = first.name { return name }
        return nil
    }

    func watch(output i: Int) {
        guard let fd = outputs[i].display?.pollDescriptor else { return }
        outputs[i].registration = try? loop.watch(fd) { [unowned self] _ in handleAllDisplayEvents() }
    }

    /// Closes output `i`'s display. The first output's takes the card, and with it the others'.
    func closeDisplay(output i: Int) {
        if i == 0 {
            for j in outputs.indices.dropFirst() where outputs[j].display != nil {
                closeDisplay(output: j)
                send(.displayUnavailable(message: "[output \(config.effectiveOutputs[j].name)] its card was closed"), output: j)
            }
            card = nil
        }
        if let registration = outputs[i].registration { loop.remove(registration) }
        outputs[i].registration = nil
        outputs[i].display?.shutdown()
        outputs[i].screen.display = nil
    }

    func info(of d: any Display) -> DisplayInfo { screen.info(of: d) }

    /// Every output's events: outputs on one card share its descriptor, and whichever reads it
    /// routes each flip's completion to its own output, which must then hear of it too.
    func handleAllDisplayEvents() {
        for i in outputs.indices {
            guard let d = outputs[i].display else { continue }
            let screen = outputs[i].screen
            for event in d.handleReadable() { send(Daemon.kioskEvent(event, info: screen.info(of: d), clock: clock), output: i) }
        }
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

    // MARK: The card the outputs after the first are opened on

    /// The section index touches go to (tests).
    var touchOutputIndex: Int { touchOutput }

    /// With two or more outputs and the first output's display open: the card its connectors are
    /// surveyed and opened on, and which connector drives which section.
    func openCard() {
        let sections = config.effectiveOutputs
        guard card == nil, sections.count > 1, let d = display else { return }
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
        guard card != nil else {
            Log.warning("display: [output] sections need a KMS card; \(d.presentMethod) shows the first section's scene only")
            return
        }
        assignConnectors()
    }

    /// Which connector drives which section (the card's survey), and the spanning tape's offsets.
    func assignConnectors() {
        guard let card else { return }
        let survey = card.survey().map {
            OutputAssignment.Connector(name: $0.name, connected: $0.connected, modes: $0.modes, panelRotation: $0.panelQuarterTurns * 90)
        }
        var plan = OutputAssignment(outputs: config.effectiveOutputs)
        _ = plan.update(survey)
        assignment = plan
        for line in plan.summary { Log.notice("display: output \(line)") }
        let (span, x0) = plan.spanOffsets(showsTape: config.showsTape)
        for i in outputs.indices {
            outputs[i].screen.tapeSpan = config.tapeSpan ? span[i].map { ($0, x0) } : nil
        }
    }

    /// Opens output `i`'s connector on the first output's card.
    func openOnCard(_ i: Int) {
        let name = "[output \(config.effectiveOutputs[i].name)]"
        guard let card else {
            send(.displayUnavailable(message: nil), output: i)
            return
        }
        do {
            let d = try card.open(connector: assignment?.states[i].connector, log: { Log.notice("display: \(name) \($0)") })
            outputs[i].screen.display = d
            watch(output: i)
            if let report = d.connectorReport, report.connector == nil {
                Log.notice("display: \(name) waits for a free connector to be plugged in")
            }
            send(.displayOpened(outputs[i].screen.info(of: d)), output: i)
        } catch {
            send(.displayUnavailable(message: "\(name) \(error)"), output: i)
        }
    }

    /// The shell's outputs follow the configured sections: one per section, the first kept.
    func resizeOutputs() {
        let count = max(1, config.effectiveOutputs.count)
        while outputs.count > count { closeDisplay(output: outputs.count - 1); outputs.removeLast() }
        while outputs.count < count {
            let section = config.effectiveOutputs[outputs.count]
            let screen = OutputScreen(renderThreads: Daemon.renderThreads(for: config), logPrefix: "[output \(section.name)] ")
            screen.safeArea = config.safeArea
            outputs.append(ShellOutput(screen: screen))
        }
    }

    /// One line of the status file's `outputs` per section (empty without sections): the core's,
    /// with the connector and mode (and a KMS connector's own state and counts) the display reports.
    func outputStatus(_ lines: [KioskStatus.Output]) -> [KioskStatus.Output] {
        lines.enumerated().map { i, line in
            var line = line
            guard outputs.indices.contains(i), let d = outputs[i].display else { return line }
            guard let report = d.connectorReport else {
                // A simulated screen (headless): its connector is the survey's.
                line.connector = assignment?.states[i].connector
                line.mode = "\(d.width)x\(d.height)@\(Int(d.refreshHz.rounded()))"
                return line
            }
            // A connector of another card by the name the survey gave it (cardN-NAME on a clash).
            let connector = card?.surveyName(of: d) ?? report.connector
            line.connector = connector
            line.mode = connector == nil ? nil : report.mode
            line.state = report.state
            line.flips = report.flips
            line.missedVblanks = report.missedVblanks
            return line
        }
    }

    /// No display device at all, or a framebuffer that yields to KMS: a udev monitor wakes us when
    /// a card or framebuffer appears or changes.
    package func watchHotplug(_ wanted: Bool, output i: Int) {
        if outputs.indices.contains(i) { outputs[i].wantsHotplug = wanted }
        let on = outputs.contains { $0.wantsHotplug }
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

    package func present(_ plan: FramePlan, output i: Int) {
        let (answer, previewDue) = outputs[i].screen.present(plan, fonts: fonts)
        send(answer, output: i)
        // The preview is the first output's picture (`--preview`, what `render --config` draws).
        if i == 0, previewDue, let preview = options.previewFile, let d = display { writePreview(d, to: preview, time: plan.time) }
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

    /// Output `i`'s turn, offered to its display (refused: the core plans copies), and the touch
    /// layout when the touchscreen is on it.
    func applyLayout(output i: Int) {
        guard outputs[i].chartSize != nil, let d = outputs[i].display else { return }
        if outputs[i].screen.applyTurn(outputs[i].quarterTurns) { send(.displayOpened(outputs[i].screen.info(of: d)), output: i) }
        if i == touchOutput { applyTouchLayout() }
    }

    /// Maps touches onto the output the touchscreen is on, in its layout, and recognises gestures
    /// in its chart's frame.
    func applyTouchLayout() {
        let target = outputs[touchOutput]
        guard let size = target.chartSize, let d = target.display else { return }
        let margins = target.screen.margins(of: d)
        input?.mapping = TouchMapping(panelWidth: d.width, panelHeight: d.height, quarterTurns: target.quarterTurns,
                                      marginX: margins.x, marginY: margins.y)
        gestures.resize(width: Double(size.width), height: Double(size.height))
        let name = outputs.count == 1 ? nil : touchOutput == 0 ? "the first output" : "[output \(config.effectiveOutputs[touchOutput].name)]"
        if let name, name != touchOutputLogged {
            touchOutputLogged = name
            Log.notice("input: touch works \(name)")
        }
    }

    /// The output the touchscreen is on: `[input] output`, else a touch device's udev WL_OUTPUT,
    /// by section name or by the connector driving it; else the first.
    var touchOutput: Int {
        guard outputs.count > 1 else { return 0 }
        let tagged = input?.devices.first { $0.capabilities.contains(.touch) && $0.outputName != nil }?.outputName
        guard let wanted = config.inputOutput ?? tagged.flatMap(OutputConfig.Name.init) else { return 0 }
        let sections = config.effectiveOutputs
        return outputs.indices.first { i in
            if sections.indices.contains(i), sections[i].name.same(as: wanted) { return true }
            guard let connector = outputs[i].display?.connectorReport?.connector else { return false }
            return wanted.same(as: .connector(connector))
        } ?? 0
    }
}
