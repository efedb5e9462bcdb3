// Which outputs an event reaches when the daemon drives several `[output]` screens: a decision of
// the core's, written once beside the events, which the shell carries out without judging them.
// (Each output still runs a core of its own: this is the rule the one router will keep.)

extension KioskEvent {
    /// Every output's core hears it: time, data, people, the screen's power by hand, SIGUSR1 (each
    /// output logs its `stats:` line, the others prefixed `[output NAME]`). The control socket's
    /// requests other than power and messages drive the first output's chart; a display's own
    /// events (flips, hotplug, its master) and the touchscreen's gestures reach its output alone.
    public var reachesEveryOutput: Bool {
        switch self {
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

    /// The VT is being switched away: the other outputs let go of the shared descriptor's master
    /// before the first output does, or their retry would take the screen back from the other VT.
    public var isVTRelease: Bool {
        if case .vtRelease = self { return true }
        return false
    }

    /// The key an event is kept under for an output started later (its card opened after a
    /// hotplug): the newest series per instrument and slot, fetch status per instrument, the
    /// data problems whole. nil: not kept.
    public var keptForLaterOutputs: String? {
        switch self {
        case .series(let id, let slot, _): return "\(id)\u{1F}\(slot)"
        case .fetchStatus(let id, _): return id
        case .dataProblems: return ""
        default: return nil
        }
    }
}
