/// `[power] light-sensor`: the room's light, read from an ambient-light sensor (IIO), sets how bright
/// the screen is, under the schedule's level (the schedule is the ceiling). A sensor reads every
/// passing cloud and every hand near it, and a backlight that follows each reading flickers, so the
/// machine turns lux into one of a few steps, crosses a step's edge only when the light has moved a
/// quarter past it (hysteresis), and changes the level at most once per `minimumInterval`: a change
/// that comes sooner waits until then, and is dropped if the light went back meanwhile.
public struct AmbientLight: Sendable, Equatable {
    /// The steps: up to `lux`, the screen at `level` (0...1). A dark room, a dim one, an evening
    /// living room, an office, daylight. Office light is about 300-500 lux, daylight indoors near a
    /// window 1,000 and more (EN 12464-1's task levels; the usual ALS tables of phones and laptops).
    public static let steps: [(lux: Double, level: Double)] = [(5, 0.2), (50, 0.4), (200, 0.6), (800, 0.8), (.infinity, 1)]
    /// How far past a step's edge (as a fraction of the edge) the light must go to cross it.
    public static let hysteresis = 0.25
    /// At most one change of level in this many seconds.
    public static let minimumInterval = 30.0

    public enum State: Sendable, Equatable {
        /// No reading yet (or the sensor stopped answering): the schedule alone.
        case unknown
        /// The level of `step`, chosen at `since` (core seconds).
        case steady(step: Int, since: Double)
        /// Showing `step`; the light says `wanted`, which takes effect at `due` unless it goes back.
        case waiting(step: Int, since: Double, wanted: Int, due: Double)
    }

    public private(set) var state = State.unknown
    /// The last reading (status, `ctl status`); nil before one or after the sensor went away.
    public private(set) var lux: Double?

    public init() {}

    /// The level the room asks for now (nil: no sensor reading, the schedule alone).
    public var level: Double? {
        switch state {
        case .unknown: return nil
        case .steady(let step, _), .waiting(let step, _, _, _): return Self.steps[step].level
        }
    }

    /// When a waiting change is due (the core wakes then).
    public var nextDeadline: Double? {
        if case .waiting(_, _, _, let due) = state { return due }
        return nil
    }

    /// A reading at `time`; nil lux: the sensor could not be read. Returns true when `level` changed.
    public mutating func reading(lux reading: Double?, at time: Double) -> Bool {
        guard let reading, reading.isFinite, reading >= 0 else {
            lux = nil
            let changed = state != .unknown
            state = .unknown
            return changed
        }
        lux = reading
        switch state {
        case .unknown:
            // The first reading is taken as it is: there is no level to flicker from yet.
            state = .steady(step: Self.step(for: reading), since: time)
            return true
        case .steady(let step, let since):
            let wanted = Self.step(for: reading, from: step)
            guard wanted != step else { return false }
            if time - since >= Self.minimumInterval {
                state = .steady(step: wanted, since: time)
                return true
            }
            state = .waiting(step: step, since: since, wanted: wanted, due: since + Self.minimumInterval)
            return false
        case .waiting(let step, let since, _, let due):
            let wanted = Self.step(for: reading, from: step)
            state = wanted == step ? .steady(step: step, since: since) : .waiting(step: step, since: since, wanted: wanted, due: due)
            return timer(at: time)
        }
    }

    /// The clock reached `time`: a waiting change that is due takes effect. True when `level` changed.
    public mutating func timer(at time: Double) -> Bool {
        guard case .waiting(_, _, let wanted, let due) = state, time >= due else { return false }
        state = .steady(step: wanted, since: time)
        return true
    }

    /// The step of `lux` with nothing shown yet.
    static func step(for lux: Double) -> Int {
        steps.firstIndex { lux <= $0.lux } ?? steps.count - 1
    }

    /// The step of `lux` seen from `current`: a neighbouring step only once the light is a quarter
    /// beyond the edge between them.
    static func step(for lux: Double, from current: Int) -> Int {
        var s = current
        while s + 1 < steps.count, lux > steps[s].lux * (1 + hysteresis) { s += 1 }
        while s > 0, lux < steps[s - 1].lux * (1 - hysteresis) { s -= 1 }
        return s
    }
}
