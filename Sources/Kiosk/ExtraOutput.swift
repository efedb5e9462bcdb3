import Control
import DisplayModel
import Display
import KioskCore
import LinuxIO
import StatusModel

/// An output after the first when the daemon drives several (`[output]` sections): a core of its
/// own, deciding this screen's scene, pacing and power from the same events the first output's
/// core hears, and the shell's screen that carries its plans out. It shares the daemon's loop, the
/// DRM card (one master) and the data; the first output keeps what exists once (systemd, the
/// control socket's answers, the TV's CEC link, the VT, the status file, which lists every output).
final class ExtraOutput: KioskShell {
    /// Index into `Config.effectiveOutputs`.
    let index: Int
    let section: OutputConfig
    let runner: KioskRunner
    let screen: OutputScreen
    var registration: EventLoop.Registration?
    /// The panel's turn and the chart's size as this output's core last laid it out (touch maps
    /// through them when the touchscreen is on this output).
    private(set) var quarterTurns = 0
    private(set) var chartSize: (width: Int, height: Int)?
    private unowned let daemon: Daemon

    init(index: Int, section: OutputConfig, core: KioskCore, daemon: Daemon, now: @escaping () -> KioskTime, renderThreads: Int) {
        self.index = index
        self.section = section
        self.daemon = daemon
        runner = KioskRunner(core: core, now: now)
        screen = OutputScreen(renderThreads: renderThreads, logPrefix: "[output \(section.name)] ")
        runner.shell = self
    }

    var display: (any Display)? { screen.display }

    func send(_ event: KioskEvent) { daemon.send(event, to: self) }

    /// Reads this output's display events (routed flips, hotplug of its connector, master).
    func handleDisplayEvents() {
        guard let d = screen.display else { return }
        for event in d.handleReadable() { send(Daemon.kioskEvent(event, info: screen.info(of: d), clock: daemon.clockForOutputs)) }
    }

    func close() {
        if let registration { daemon.removeFromLoop(registration) }
        registration = nil
        screen.display?.shutdown()
        screen.display = nil
    }

    // MARK: KioskShell

    func present(_ plan: FramePlan) { send(screen.present(plan, fonts: daemon.fontSet).answer) }

    func setPowered(_ on: Bool) {
        guard let d = screen.display else { return }
        let applied = d.setPowered(on)
        if !on { send(.screenOffApplied(dpms: applied)) }
    }

    func log(_ priority: Log.Priority, _ text: String) { Log.write(priority, "[output \(section.name)] " + text) }
    func openDisplay() { daemon.openExtraDisplay(self) }
    func reopenDisplay() {
        close()
        openDisplay()
    }
    func releaseDisplay() { screen.display?.suspend() }
    func acquireDisplay() { screen.display?.resume() }
    func layoutChanged(quarterTurns: Int, width: Int, height: Int) {
        self.quarterTurns = quarterTurns
        chartSize = (width, height)
        if screen.applyTurn(quarterTurns), let d = screen.display { send(.displayOpened(screen.info(of: d))) }
        daemon.extraLayoutChanged(self)
    }
    func writeStatus(_ write: StatusWrite) { daemon.rewriteStatus() }

    // The first output's alone: one systemd service, one process to stop, one TV, one input seat.
    func ready(status: String?) {}
    func watchdogPing() {}
    func reloading() {}
    func stopping(statistics: String) { if screen.backlight != nil { _ = screen.applyBacklight(1) } }
    func watchHotplug(_ on: Bool) {}
    func openInput() {}
    func exit(status: Int32) {}
    func cec(_ request: CECRequest) {}
}
