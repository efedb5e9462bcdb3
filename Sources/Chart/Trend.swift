import Text

extension ChartPalette {
    /// This palette with up and down as `trend` has them: red-up markets swap the two colours
    /// (the colour-blind palette's blue and orange swap too, so it stays colour-blind safe).
    public func trending(_ trend: NumberLocale.Trend) -> ChartPalette {
        guard trend == .redUp else { return self }
        var p = self
        (p.up, p.down) = (down, up)
        return p
    }
}

/// The trend without colour: ▲ before a rise, ▼ before a fall, nothing for no change. DejaVu
/// Sans has both triangles (U+25B2, U+25BC).
public enum TrendArrow {
    public static let up = "\u{25B2}"
    public static let down = "\u{25BC}"
}
