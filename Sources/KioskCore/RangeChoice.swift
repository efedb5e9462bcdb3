// RangeChoice: which range the chart shows when the instrument cannot draw the one asked for (1D
// needs intraday bars, every range two points): the next one it can, in the configured order; and
// the way back, when the data comes (minute bars read just after the daily ones), unless something
// else was chosen meanwhile.

import Chart

struct RangeChoice {
    enum State: Equatable {
        /// The range shown is the one asked for.
        case asked
        /// `wanted` could not be drawn; `to` is shown instead, until `wanted` can be.
        case gaveWay(wanted: ChartRange, to: ChartRange)
    }
    private(set) var state = State.asked
    /// The configured ranges the instrument on screen can draw: the selector's and the round's.
    private(set) var shown: [ChartRange] = []

    /// The range to lay the chart out on. `asked`: one chosen now (nil: keep what is shown,
    /// `current`, or start on `first`); `configured`: the config's ranges in order; `drawable`:
    /// those the instrument can draw now.
    mutating func choose(asked: ChartRange?, current: ChartRange?, first: ChartRange, configured: [ChartRange],
                         drawable: [ChartRange]) -> ChartRange {
        shown = drawable
        var wanted = asked ?? current ?? first
        if asked == nil, case .gaveWay(let before, let to) = state, current == to { wanted = before }
        state = .asked
        guard !drawable.contains(wanted) else { return wanted }
        let after = configured.drop { $0 != wanted }.first { drawable.contains($0) }
        let instead = after ?? drawable.first ?? wanted
        state = .gaveWay(wanted: wanted, to: instead)
        return instead
    }
}
