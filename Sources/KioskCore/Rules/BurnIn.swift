/// Burn-in care: the whole picture is drawn shifted by a small offset that moves one pixel every
/// `periodSeconds`, so static parts (labels, the baseline, range buttons) never sit on the same
/// pixels for hours. OLED and plasma panels age where the picture does not change.
///
/// The path is a square spiral out from the centre to the corner of the ±`shift` square, then back
/// in, and round again: every offset in the square is used (wear is spread evenly, not just along a
/// ring), each step moves one pixel along one axis (imperceptible: nothing jumps), and it is a pure
/// function of time, so a restart continues the same orbit and tests can predict it.
///
/// The daemon asks `offset(at:)` when it draws, and arms a timer for `nextChange(after:)`; between
/// changes nothing wakes up. Time is any steady clock in seconds (monotonic is fine: after a boot the
/// picture starts centred).
public struct BurnInShift: Sendable, Equatable {
    public struct Offset: Sendable, Equatable, Hashable {
        public var dx: Int
        public var dy: Int
        public init(dx: Int, dy: Int) { self.dx = dx; self.dy = dy }
        public static let zero = Offset(dx: 0, dy: 0)
    }

    /// The largest offset either way, in pixels (0 = off).
    public let shift: Int
    public let periodSeconds: Double
    /// The spiral from the centre out; the orbit walks it forward then backward.
    private let spiral: [Offset]

    public init(shift: Int, periodSeconds: Double) {
        self.shift = max(0, shift)
        self.periodSeconds = periodSeconds > 0 && periodSeconds.isFinite ? periodSeconds : 180
        spiral = BurnInShift.squareSpiral(radius: self.shift)
    }

    public init(config: Config) {
        self.init(shift: config.burnInShift, periodSeconds: config.burnInPeriodSeconds)
    }

    /// Steps in one full orbit (out and back): 2 × ((2·shift + 1)² − 1); 0 when off.
    public var cycleLength: Int { spiral.count > 1 ? 2 * (spiral.count - 1) : 0 }

    /// The offset of step `index` (index 0 is the centre).
    public func offset(step index: Int) -> Offset {
        guard cycleLength > 0 else { return .zero }
        let i = ((index % cycleLength) + cycleLength) % cycleLength
        return i < spiral.count ? spiral[i] : spiral[cycleLength - i]
    }

    /// The offset to draw with at `seconds`.
    public func offset(at seconds: Double) -> Offset {
        offset(step: step(at: seconds))
    }

    /// When the offset next changes, strictly after `seconds`; nil when shifting is off.
    public func nextChange(after seconds: Double) -> Double? {
        guard cycleLength > 0 else { return nil }
        guard seconds.isFinite else { return nil }
        return ((seconds / periodSeconds).rounded(.down) + 1) * periodSeconds
    }

    private func step(at seconds: Double) -> Int {
        guard seconds.isFinite else { return 0 }
        let s = (seconds / periodSeconds).rounded(.down)
        // Only the position in the orbit matters; keep the value in Int range for any clock.
        let cycle = Double(max(1, cycleLength))
        return Int(s - (s / cycle).rounded(.down) * cycle)
    }

    /// (0,0), (1,0), (1,1), (0,1), (-1,1), (-1,0), (-1,-1), ... : runs of 1, 1, 2, 2, 3, 3, ...
    /// turning each time, until the (2r+1)² square is full.
    static func squareSpiral(radius: Int) -> [Offset] {
        let total = (2 * radius + 1) * (2 * radius + 1)
        var out = [Offset.zero]
        var x = 0, y = 0
        let directions = [(1, 0), (0, 1), (-1, 0), (0, -1)]
        var turn = 0, run = 1
        while out.count < total {
            for _ in 0..<2 {
                let (ddx, ddy) = directions[turn % 4]
                for _ in 0..<run where out.count < total {
                    x += ddx
                    y += ddy
                    out.append(Offset(dx: x, dy: y))
                }
                turn += 1
            }
            run += 1
        }
        return out
    }
}
