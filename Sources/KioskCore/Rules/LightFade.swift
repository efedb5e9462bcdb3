// The screen's level between two decisions: a change of level fades over about a second instead of
// jumping. Pure: the core asks for the level at a frame's time (its monotonic clock).

/// A level (0...1) that moves to a new target along an eased curve over `duration` seconds.
public struct LightFade: Sendable, Equatable {
    public static let duration = 1.0
    public private(set) var from: Double
    public private(set) var to: Double
    public private(set) var start: Double

    public init(level: Double) {
        from = level
        to = level
        start = -Double.greatestFiniteMagnitude
    }

    /// The level at `time`: `from` before the fade, `to` after, eased in and out between (the
    /// smoothstep curve: no jump in the rate of change at either end, which the eye sees on a
    /// backlight).
    public func level(at time: Double) -> Double {
        guard from != to else { return to }
        let x = (time - start) / LightFade.duration
        guard x.isFinite, x > 0 else { return x.isNaN ? to : from }
        if x >= 1 { return to }
        let e = x * x * (3 - 2 * x)
        return from + (to - from) * e
    }

    /// True while the level still moves at `time`.
    public func isFading(at time: Double) -> Bool { from != to && time < start + LightFade.duration }

    /// Fade from wherever the level is at `time` to `target`; a fade to the current target changes nothing.
    public mutating func fade(to target: Double, at time: Double) {
        let target = target.isFinite ? min(1, max(0, target)) : 1
        guard target != to else { return }
        from = level(at: time)
        to = target
        start = time
    }

    /// Be at `target` at once (the screen comes on from DPMS off already at its level).
    public mutating func jump(to target: Double) {
        let target = target.isFinite ? min(1, max(0, target)) : 1
        from = target
        to = target
        start = -Double.greatestFiniteMagnitude
    }
}
