// Which outputs an event reaches when the core drives several `[output]` screens: the router's
// rule, written once beside the events. The shell sends each event once, with the output it
// comes from when it is a screen's own.

extension KioskEvent {
    /// Every output hears it: time, data, people, the light, a card plugged in, the screen's power
    /// by hand, SIGUSR1 (each output logs its `stats:` line, the others prefixed `[output NAME]`).
    /// The control socket's requests other than power and messages drive the first output's chart;
    /// a display's own events (flips, its connector, its master) and the touchscreen's gestures
    /// reach its output alone.
    public var reachesEveryOutput: Bool {
        switch self {
        case .start, .timer, .series, .fetchStatus, .dataProblems, .clockStepped, .presence, .key, .vtRelease, .vtAcquire,
             .reloadRequested, .reloadRejected, .terminate, .statisticsRequested, .ambientLight, .hotplug, .kmsOutputAppeared:
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
}
