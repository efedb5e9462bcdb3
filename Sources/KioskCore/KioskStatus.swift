import Chart
import StatusModel

// The status type is StatusModel's (the bridge reads it without the display stack); what a
// frame's numbers say is the core's, which knows the screen's values.
extension KioskStatus {
    /// The numbers of one frame (`render --values`, and the picture part of the status file).
    public init(values v: ScreenValues) {
        self.init()
        instrumentName = v.instrument
        range = v.range.rawValue
        scene = SceneKind(v.scene)
        price = v.price
        change = v.change
        changePercent = v.changePercent
        priceText = v.priceText.isEmpty ? nil : v.priceText
        changeText = v.changeText.isEmpty ? nil : v.changeText
        baseline = v.baseline
        baselineKind = v.baseline == nil ? nil : v.baselineKind
        lastDataTime = v.lastDataTime
        waitingFor = v.waitingFor
        note = v.note.isEmpty ? nil : v.note
        intradayTimesZone = v.intradayTimesZone
        lastPrice = v.day?.price
        previousClose = v.day?.previousClose
        dayChange = v.day?.change
        dayChangePercent = v.day?.changePercent
        dayLow = v.stats?.dayLow
        dayHigh = v.stats?.dayHigh
        low52w = v.stats?.yearLow
        high52w = v.stats?.yearHigh
        volume = v.stats?.volume
        statsText = v.statsText.isEmpty ? nil : v.statsText
        clock = v.clock.isEmpty ? nil : v.clock
    }
}
