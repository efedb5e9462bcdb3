import Control
import DisplayModel
import StatusModel

/// What a shell does for the core: one method per effect. The daemon (`Kiosk.Daemon`) does it with
/// devices and files; the tests' driver does it with a manual clock and a record. Both reach their
/// methods through `perform` and feed events through `KioskRunner`, so the switch from effects to
/// acts and the order events are handled in are the same code for the product and its tests.
/// `output` is the index of the output (`Config.effectiveOutputs`) an effect is for.
public protocol KioskShell: AnyObject {
    /// Draw and present the frame `plan` describes; answer with `.framePresented` or `.presentFailed`.
    func present(_ plan: FramePlan, output: Int)
    /// DPMS on or off; an off is answered with `.screenOffApplied(dpms:)`.
    func setPowered(_ on: Bool, output: Int)
    func ready(status: String?)
    func watchdogPing()
    func reloading()
    func stopping(statistics: String)
    /// A line for the journal; `output` names the output it is about (nil: the daemon's).
    func log(_ priority: Log.Priority, _ text: String, output: Int?)
    /// Open the output's display; answer with `.displayOpened` or `.displayUnavailable`.
    func openDisplay(output: Int)
    /// Close the output's display and open it again.
    func reopenDisplay(output: Int)
    /// Watch for DRM/framebuffer uevents while any output asks.
    func watchHotplug(_ on: Bool, output: Int)
    func openInput()
    /// Let the output's display go for another VT; nil: every output has, let the VT switch.
    func releaseDisplay(output: Int?)
    /// nil: acknowledge the VT's return; then each output takes its display again.
    func acquireDisplay(output: Int?)
    func layoutChanged(output: Int, quarterTurns: Int, width: Int, height: Int)
    func writeStatus(_ write: StatusWrite)
    func exit(status: Int32)
    /// The control socket's answers (a shell without one never receives its requests).
    func controlReply(id: UInt64, _ reply: ControlReply)
    func controlStatus(id: UInt64, _ status: KioskStatus)
    func screenshot(id: UInt64)
    func reloadConfig(id: UInt64)
    /// Send `request` to the TV over HDMI-CEC (nothing when there is no adapter); the outcome
    /// comes back as `.cec(.sent)` or `.cec(.failed)`.
    func cec(_ request: CECRequest)
}

extension KioskShell {
    public func controlReply(id: UInt64, _ reply: ControlReply) {}
    public func controlStatus(id: UInt64, _ status: KioskStatus) {}
    public func screenshot(id: UInt64) {}
    public func reloadConfig(id: UInt64) {}
}

extension KioskShell {
    /// The one switch from an effect to the shell's act (no `default`: a new effect is a compile
    /// error in every shell until it is handled).
    public func perform(_ effect: KioskEffect, output: Int?) {
        // A screen's effect from the process's part is the first output's (never emitted so).
        let screen = output ?? 0
        switch effect {
        case .present(let plan): present(plan, output: screen)
        case .setPowered(let on): setPowered(on, output: screen)
        case .ready(let status): ready(status: status)
        case .watchdogPing: watchdogPing()
        case .reloading: reloading()
        case .stopping(let statistics): stopping(statistics: statistics)
        case .log(let priority, let text): log(priority, text, output: output)
        case .openDisplay: openDisplay(output: screen)
        case .reopenDisplay: reopenDisplay(output: screen)
        case .watchHotplug(let on): watchHotplug(on, output: screen)
        case .openInput: openInput()
        case .releaseDisplay: releaseDisplay(output: output)
        case .acquireDisplay: acquireDisplay(output: output)
        case .layoutChanged(let turns, let width, let height): layoutChanged(output: screen, quarterTurns: turns, width: width, height: height)
        case .writeStatus(let write): writeStatus(write)
        case .exit(let status): exit(status: status)
        case .controlReply(let id, let reply): controlReply(id: id, reply)
        case .controlStatus(let id, let status): controlStatus(id: id, status)
        case .screenshot(let id): screenshot(id: id)
        case .reloadConfig(let id): reloadConfig(id: id)
        case .cec(let request): cec(request)
        }
    }
}

/// Hands a core its events one at a time and the effects to a shell. Events raised while effects
/// are carried out (a display opened, a frame presented) wait their turn: the core sees one event
/// at a time and no effect runs inside another.
public final class KioskRunner {
    public let core: KioskCore
    /// The time each event is stamped with (the shell's clock; the tests' manual one).
    private let now: () -> KioskTime
    public weak var shell: (any KioskShell)?
    private var queued: [(event: KioskEvent, output: Int)] = []
    private var draining = false
    /// Every effect as it was carried out, when `recordsEffects` (tests read it).
    public var recordsEffects = false
    public private(set) var effects: [(time: KioskTime, effect: KioskEffect, output: Int?)] = []

    public init(core: KioskCore, now: @escaping () -> KioskTime) {
        self.core = core
        self.now = now
    }

    /// Handles `event` (from `output`, when it is a screen's own) and everything it leads to.
    /// True when this call emptied the queue (the outermost call: the shell re-arms its timer
    /// for `core.nextDeadline` then).
    @discardableResult
    public func send(_ event: KioskEvent, output: Int = 0) -> Bool {
        queued.append((event, output))
        guard !draining else { return false }
        draining = true
        while !queued.isEmpty {
            let next = queued.removeFirst()
            let time = now()
            for routed in core.handle(next.event, at: time, output: next.output) {
                if recordsEffects { effects.append((time, routed.effect, routed.output)) }
                shell?.perform(routed.effect, output: routed.output)
            }
        }
        draining = false
        return true
    }
}
