// ValueLineSchedule: when the portfolio's value line is worked out again, and from which date.
// Series that come together (a start reads every held file in one go) make one computation, at
// the timer after them; a held file's new day recomputes from that day on, not the whole line.

import Feed

struct ValueLineSchedule {
    enum State: Equatable {
        /// The line is the inputs' (or nothing is held).
        case current
        /// A held series or a rate came at `since`: worked out at the next timer from then.
        case due(since: Double)
    }
    private(set) var state = State.current
    /// How often the line was worked out (the tests count them: a burst of series must make one).
    private(set) var computations = 0
    /// What the line was last worked out from: a new one starts at the first difference.
    private var valued: (inputs: PortfolioInputs, daily: [String: PriceSeries], rates: [String: PriceSeries])?

    /// When the core should look: the first input that came since the line was worked out.
    var deadline: Double? {
        if case .due(let since) = state { return since }
        return nil
    }

    /// A held series or a rate came at `t`.
    mutating func inputChanged(at t: Double) {
        if case .due = state { return }
        state = .due(since: t)
    }

    /// The timer at `t`: true when the line is to be worked out now.
    mutating func timer(at t: Double) -> Bool {
        guard let due = deadline, due <= t else { return false }
        state = .current
        return true
    }

    /// How much of the line to work out for these inputs: `.whole` when the holdings or the
    /// settings changed (or it never was), `.from(date)` the first date whose inputs changed,
    /// nil when nothing did. Counted as a computation unless nil.
    enum Work: Equatable {
        case whole
        case from(Int64)
    }

    mutating func work(inputs: PortfolioInputs, daily: [String: PriceSeries], rates: [String: PriceSeries]) -> Work? {
        var work = Work.whole
        if let valued, valued.inputs == inputs {
            let changed = [Portfolio.firstDifference(valued.daily, daily), Portfolio.firstDifference(valued.rates, rates)]
            guard let from = changed.compactMap({ $0 }).min() else { return nil }
            work = .from(from)
        }
        computations += 1
        valued = (inputs, daily, rates)
        return work
    }
}
