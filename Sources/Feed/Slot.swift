/// Which of an instrument's two files a series is: the fetcher writes them, the daemon reads them.
public enum Slot: String, Sendable, Hashable, CaseIterable {
    /// Daily bars (1M to 5Y ranges), `Date` column.
    case daily
    /// Intraday bars (1D and 5D), `Datetime` column with the exchange's UTC offset.
    case intraday
}
