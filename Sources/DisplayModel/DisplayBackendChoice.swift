// DisplayModel: what a display is asked for and how its frames are paced, with no device behind
// it: the backend names a config may use, a requested mode, the vblank accounting and the pacing
// decisions (time comes in as an argument). `Display` opens the devices and carries them out.

/// Opens the right backend for `tickerboard run` and `display-check` (the opening is Display's;
/// the names are here, where a config can check them without linking a display).
public enum DisplayBackends {
    /// Every backend there is: each list of names, `--display` value and config check derives from
    /// this one enum, so a new backend is a new case here and in `open`.
    public enum Choice: String, Sendable, CaseIterable {
        /// KMS if a card has a connected output, else fbdev, else (with a card) KMS waiting for one.
        case auto
        case kms
        case fbdev
        /// A simulated display in memory with timer-paced flips (tests, previews, `--time-scale`).
        case headless

        /// What `[display] backend` may name: a config file describes a real screen.
        public static let configurable: [Choice] = allCases.filter(\.isPhysical)

        /// A real screen on a seat: input devices and the console's VT belong with it.
        public var isPhysical: Bool { self != .headless }

        /// `auto, kms, fbdev or headless`, for messages.
        public static func names(_ choices: [Choice] = allCases) -> String {
            let names = choices.map(\.rawValue)
            guard let last = names.last else { return "" }
            return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " or " + last
        }
    }
}
