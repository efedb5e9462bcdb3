/// Snaps a finger's x to the nearest visible data point: O(log n) by binary search over the
/// points' screen x, with hysteresis so the label does not flicker between two neighbours when
/// the finger rests near their midpoint.
public struct ScrubSnapper: Sendable {
    /// Screen x of each point, ascending (the chart's vertices).
    public var xs: [Double]
    /// How far past the midpoint (pixels) the finger must go before the selection changes.
    public var hysteresis: Double
    public private(set) var selected: Int?

    public init(xs: [Double], hysteresis: Double = 3) {
        self.xs = xs
        self.hysteresis = hysteresis
    }

    /// The index of the point nearest to `x`, ignoring hysteresis.
    public func nearest(to x: Double) -> Int? {
        guard !xs.isEmpty, x.isFinite else { return nil }
        var lo = 0, hi = xs.count - 1
        if x <= xs[lo] { return lo }
        if x >= xs[hi] { return hi }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if xs[mid] <= x { lo = mid } else { hi = mid }
        }
        return x - xs[lo] <= xs[hi] - x ? lo : hi
    }

    /// Moves the selection for a finger at `x` and returns it.
    public mutating func update(x: Double) -> Int? {
        guard let candidate = nearest(to: x) else { return selected }
        if let current = selected, current < xs.count, candidate != current, abs(candidate - current) == 1 {
            // Stay unless the finger is clearly closer to the candidate than to the current point.
            // The margin shrinks with the neighbours' spacing: a fixed few pixels on points closer
            // than that would carry the finger past the next point before the selection left the
            // current one, and a slow sweep would skip every other point.
            let margin = min(hysteresis, abs(xs[candidate] - xs[current]) / 4)
            if abs(x - xs[current]) - abs(x - xs[candidate]) < margin * 2 {
                return current
            }
        }
        selected = candidate
        return candidate
    }

    public mutating func reset() { selected = nil }
}
