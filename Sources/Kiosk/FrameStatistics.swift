/// Counts and timings of presented frames, for SIGUSR1, the exit summary and the E2E checks.
public struct FrameStatistics: Sendable, Equatable {
    public private(set) var presentedFrames = 0
    public private(set) var completedFlips = 0
    public private(set) var missedVblanks = 0
    private var renderNanos: [UInt64] = []
    private var copyNanos: [UInt64] = []
    private var lastSequence: UInt64?
    private var inputLatencyNanos: [UInt64] = []
    private let window = 4096

    public init() {}

    mutating func recordFrame(renderNanos render: UInt64, copyNanos copy: UInt64) {
        presentedFrames += 1
        // A bounded window: statistics must not grow over years of uptime.
        if renderNanos.count == window { renderNanos.removeFirst(window / 2); copyNanos.removeFirst(window / 2) }
        renderNanos.append(render)
        copyNanos.append(copy)
    }

    /// A completed flip; a sequence jump of more than one while animating means vblanks were missed.
    mutating func recordFlip(sequence: UInt64, animating: Bool) {
        completedFlips += 1
        if let last = lastSequence, animating, sequence > last + 1 { missedVblanks += Int(sequence - last - 1) }
        lastSequence = sequence
    }

    /// Time from an input event to the vblank of the frame answering it.
    mutating func recordInputLatency(nanos: UInt64) {
        if inputLatencyNanos.count == window { inputLatencyNanos.removeFirst(window / 2) }
        inputLatencyNanos.append(nanos)
    }

    /// Forget the sequence after a pause (idle, screen off): the gap is not a miss.
    mutating func resetSequence() { lastSequence = nil }

    /// Input-to-flip latency percentile in milliseconds (nil before the first sample).
    public func inputLatencyPercentile(_ p: Double) -> Double? {
        inputLatencyNanos.isEmpty ? nil : Self.percentile(inputLatencyNanos, p)
    }

    static func percentile(_ values: [UInt64], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded(.up)))
        return Double(sorted[index]) / 1e6
    }

    public var summary: String {
        "frames \(presentedFrames), flips \(completedFlips), missed vblanks \(missedVblanks), "
            + "render p50 \(format(Self.percentile(renderNanos, 0.5), 2)) ms p99 \(format(Self.percentile(renderNanos, 0.99), 2)) ms, "
            + "copy p50 \(format(Self.percentile(copyNanos, 0.5), 2)) ms p99 \(format(Self.percentile(copyNanos, 0.99), 2)) ms, "
            + "input-to-flip p50 \(format(Self.percentile(inputLatencyNanos, 0.5), 2)) ms p99 \(format(Self.percentile(inputLatencyNanos, 0.99), 2)) ms"
            + " (\(inputLatencyNanos.count) samples)"
    }
}
