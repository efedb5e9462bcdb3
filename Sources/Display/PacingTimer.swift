import DisplayModel
import LinuxIO

/// The timerfd a `FramePacer` drives: carries out its commands, feeds it the expirations.
final class PacingTimer {
    let timer: TimerFD
    var descriptor: CInt { timer.descriptor.rawValue }

    init() throws(Errno) { timer = try TimerFD() }

    /// Carries out `command`; a timer that cannot be armed throws (and the pacer forgets it).
    func tryApply(_ command: FramePacer.TimerCommand, to pacer: inout FramePacer) throws(Errno) {
        switch command {
        case .none: break
        case .arm(let first, let period):
            do { try timer.arm(atMonotonicNanos: first, intervalNanos: period) } catch {
                pacer.timerFailed()
                throw error
            }
        case .disarm: try? timer.disarm()
        }
    }

    func apply(_ command: FramePacer.TimerCommand, to pacer: inout FramePacer) {
        try? tryApply(command, to: &pacer)
    }

    /// Reads the expirations and hands them to `pacer`; the completion, if one is due.
    func expired(_ pacer: inout FramePacer) -> FramePacer.Completion? {
        let n = (try? timer.readExpirations()) ?? 0
        let (done, command) = pacer.timerExpired(n)
        apply(command, to: &pacer)
        return done
    }

    func disarm() { try? timer.disarm() }
}
